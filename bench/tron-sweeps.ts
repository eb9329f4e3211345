/**
 * Issue 15: what sweeping one TRC-20 deposit costs on Tron, with the child's energy lent from
 * the master's stake (delegateresource, then undelegateresource) vs burned from TRX the
 * master sends (sweepFunding 'burn'), side by side in one process on one java-tron stand-in.
 *
 * The real service graph and worker on an embedded PostgreSQL; two chains-file Tron chains on
 * the same stand-in (3 s blocks shortened to BENCH_TRON_BLOCK_MS), one per way. Each run is one
 * USDT deposit to a fresh child address of each wallet (a child that never held TRX: its sweep
 * includes its activation), confirmed by the deposit indexer and auto-swept; the cost is the
 * deposit's `assetSweptGasFee` (every transaction of the sweep: activation, lend, transfer,
 * give-back as they apply), checked against the fees the node reports. Prints the TRX per
 * deposit each way and the ratio.
 *
 *   tsx bench/tron-sweeps.ts           (or: tsx bench/run-extra.ts tron-sweeps)
 *   BENCH_TRON_SWEEPS     deposits per way (default 5)
 *   BENCH_TRON_BLOCK_MS   the stand-in's block time (default 100)
 *   BENCH_TRON_BANDWIDTH_TRX  TRX both masters stake for bandwidth (default 0: free bandwidth only)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { hexToBytes } from '@noble/hashes/utils';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';
import { createDatabase } from '../src/db/pool.js';
import { LocalKeyVault } from '../src/keys/vault.js';
import { createServices } from '../src/services.js';
import { buildServer } from '../src/server.js';
import { startWorker } from '../src/roles/worker.js';
import { taskList } from '../src/jobs/tasks.js';
import { createLogger } from '../src/lib/logger.js';
import { resolveChain } from '../src/configuration.js';
import { tronHex } from '../src/chains/tron/codec.js';
import { startTronStandIn } from '../src/devnet/tron/index.js';
import { post, sendToken, tronWeb, fundedWallet } from '../src/devnet/tron/testkit.js';
import { figure, type ExtraFigure } from './webhooks.js';
import { fmt } from './stats.js';

type Way = 'lend' | 'burn';

export interface TronSweepReport {
  figures: ExtraFigure[];
  details: Record<string, unknown>;
}

export async function benchTronSweeps(opts: {
  deposits: number;
  blockMs: number;
  bandwidthTrx: number;
  log: (line: string) => void;
}): Promise<TronSweepReport> {
  const { log } = opts;
  const logger = createLogger(process.env.BENCH_LOG_LEVEL ?? 'warn');
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const s = await startTronStandIn({ blockTimeMs: opts.blockMs, tokens: [{ symbol: 'USDT', decimals: 6 }] });
    cleanups.push(() => s.stop());
    const usdt = s.tokens[0]!.address;
    const dir = await mkdtemp(path.join(tmpdir(), 'wallet-bench-tron-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const pgServer = await startEmbeddedPostgres({ dir, port: 0, durable: false, logger });
    cleanups.push(() => pgServer.stop());
    const admin = new pg.Client({ connectionString: pgServer.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE wallet_bench');
    await admin.end();
    const databaseUrl = pgServer.url('wallet_bench');
    await migrate(databaseUrl, logger);
    const database = createDatabase(databaseUrl, logger);
    cleanups.push(() => database.close());

    const chain = (slug: string, chainId: number, way: Way) =>
      resolveChain(
        {
          blockchain: slug,
          family: 'tron',
          network: 'testnet',
          rpcUrl: s.url,
          chainId,
          name: 'Tron',
          symbol: 'TRX',
          tokenStandard: 'TRC20',
          confirmations: 20,
          multicall3: s.multicall.address,
          assets: [{ symbol: 'USDT', address: usdt, decimals: 6 }],
          ...(way === 'burn' ? { sweepFunding: 'burn' as const } : {}),
        },
        'bench',
      );
    const chains = { lend: chain('tron-bench-lend', 990_401, 'lend'), burn: chain('tron-bench-burn', 990_402, 'burn') };
    const services = await createServices(
      database.db,
      new LocalKeyVault(randomBytes(32)),
      {
        chains: [chains.lend, chains.burn],
        addressLimit: 1000,
        keyExport: { testnet: false, mainnet: false },
        webhookAllowPrivateTargets: true,
      },
      { databaseUrl, outbound: { firstTrackDelayMs: 100, maxTrackDelayMs: 400 } },
    );
    cleanups.push(async () =>
      'close' in services && typeof services.close === 'function' ? services.close() : services.catalogue.close(),
    );
    const worker = await startWorker({ connectionString: databaseUrl, logger, taskList: taskList(services) });
    cleanups.push(() => worker.stop());
    const app = await buildServer({ services, logger });
    cleanups.push(() => app.close());

    const { business } = await services.businesses.create('Bench Business');
    const wallets = {} as Record<Way, { id: string; apiKey: string; address: string; slug: string }>;
    for (const way of ['lend', 'burn'] as Way[]) {
      const slug = chains[way].blockchain.slug;
      const { wallet, apiKey } = await services.wallets.createForBusiness(business.id, { blockchain: slug, network: 'testnet', name: way });
      for (const a of services.catalogue.findChain(slug, 'testnet')!.assets) {
        const res = await app.inject({
          method: 'PATCH',
          url: `/v1/wallets/${wallet.id}/assets/${a.id}`,
          headers: { 'x-api-key': apiKey },
          payload: { isActive: true },
        });
        if (res.statusCode !== 200) throw new Error(res.body);
      }
      await s.control.fund(wallet.address, { trx: 20_000_000_000, tokens: { USDT: 1_000_000n } });
      wallets[way] = { id: wallet.id, apiKey, address: wallet.address, slug };
    }
    await s.control.produceBlocks(1);
    // The lending master stakes 10,000 TRX for energy; with BENCH_TRON_BANDWIDTH_TRX (default
    // 0) both masters also stake that much for bandwidth (about 1 byte a day per TRX), as an
    // operator sending many transactions a day does. Signed with the service's own keys.
    const tw = tronWeb(s);
    const stake = async (way: Way, sun: number, resource: 'ENERGY' | 'BANDWIDTH') => {
      const w = wallets[way];
      const freeze = await tw.transactionBuilder.freezeBalanceV2(sun, resource, w.address);
      const sig = await services.signer.withKey(w.id, 0, w.address, (k) => k.signDigest(hexToBytes(freeze.txID)));
      const hexSig = sig.r.toString(16).padStart(64, '0') + sig.s.toString(16).padStart(64, '0') + (27 + sig.recovery).toString(16);
      if (!(await tw.trx.sendRawTransaction({ ...freeze, signature: [hexSig] })).result) throw new Error('freezebalancev2 refused');
    };
    await stake('lend', 10_000_000_000, 'ENERGY');
    if (opts.bandwidthTrx > 0) for (const way of ['lend', 'burn'] as Way[]) await stake(way, opts.bandwidthTrx * 1_000_000, 'BANDWIDTH');
    const payer = await fundedWallet(s, 1_000_000_000, { USDT: 1_000_000_000n });

    const newChild = async (way: Way) => {
      const w = wallets[way];
      const child = await app.inject({
        method: 'POST',
        url: `/v1/wallets/${w.id}/addresses`,
        headers: { 'x-api-key': w.apiKey },
        payload: {},
      });
      return (JSON.parse(child.body).data as { address: string }).address;
    };
    const sweepOne = async (way: Way, address: string) => {
      const w = wallets[way];
      const sent = await sendToken(s, payer, usdt, address, 10_000_000n);
      if (!sent.result) throw new Error(JSON.stringify(sent));
      const indexer = services.deposits.indexer(services.catalogue.findChain(w.slug, 'testnet')!);
      const deadline = Date.now() + 120_000;
      for (;;) {
        await indexer.step();
        const { rows } = await sql<{ id: string; asset_swept: boolean; asset_swept_gas_fee: string | null; asset_swept_response: any }>`
          SELECT id, asset_swept, asset_swept_gas_fee::text, asset_swept_response FROM transactions
           WHERE type = 'DEPOSIT' AND hash = ${sent.txid as string}`.execute(database.db);
        const d = rows[0];
        if (d?.asset_swept) {
          const { rows: txs } = await sql<{ hash: string }>`
            SELECT o.hash FROM outbound_txs o JOIN transactions t ON t.sweep_id = o.owner_id
             WHERE t.id = ${d.id} AND o.stage = 'mined'`.execute(database.db);
          let charged = 0n;
          for (const t of txs) charged += BigInt((await post(s, 'wallet/gettransactioninfobyid', { value: t.hash })).fee ?? 0);
          const fee = BigInt(d.asset_swept_gas_fee!);
          if (fee !== charged) throw new Error(`${way}: assetSweptGasFee ${fee} sun, the node charged ${charged}`);
          return {
            sun: fee,
            energy: Number(d.asset_swept_response.energyUsed ?? 0),
            bandwidth: Number(d.asset_swept_response.bandwidthUsed ?? 0),
            transactions: txs.length,
          };
        }
        if (d?.asset_swept_response?.error) throw new Error(`${way} sweep failed: ${d.asset_swept_response.error}`);
        if (Date.now() > deadline) throw new Error(`${way}: the deposit was not swept within 120 s`);
        await new Promise((r) => setTimeout(r, 200));
      }
    };

    type Result = { sun: bigint; energy: number; bandwidth: number; transactions: number };
    // fresh: the first deposit to a new child (its sweep activates it); again: a second deposit
    // to the same child, active now (its free bandwidth partly spent by the first sweep).
    const results: Record<'fresh' | 'again', Record<Way, Result[]>> = { fresh: { lend: [], burn: [] }, again: { lend: [], burn: [] } };
    const line = (r: Result) => `${fmt(Number(r.sun) / 1e6, 6)} TRX (${r.transactions} txs, ${r.energy} energy, ${r.bandwidth} bytes)`;
    for (let i = 0; i < opts.deposits; i++) {
      // Side by side: one child each way per round, both sweeping at once.
      const children = { lend: await newChild('lend'), burn: await newChild('burn') };
      for (const kind of ['fresh', 'again'] as const) {
        const [lend, burn] = await Promise.all([sweepOne('lend', children.lend), sweepOne('burn', children.burn)]);
        results[kind].lend.push(lend);
        results[kind].burn.push(burn);
        log(`  round ${i + 1}, ${kind === 'fresh' ? 'new child ' : 'same child'}: lend ${line(lend)}; burn ${line(burn)}`);
      }
    }
    // Nothing stays lent: every loan was taken back.
    const master = await post(s, 'wallet/getaccount', { address: tronHex(wallets.lend.address) });
    const stillLent = Number(master.account_resource?.delegated_frozenV2_balance_for_energy ?? 0);
    if (stillLent !== 0) throw new Error(`${stillLent} sun of energy is still lent after the runs`);

    const figures: ExtraFigure[] = [];
    for (const kind of ['fresh', 'again'] as const) {
      const of = results[kind];
      const trx = (way: Way) => of[way].map((r) => Number(r.sun) / 1e6);
      const ratios = of.lend.map((l, i) => Number(of.burn[i]!.sun) / Number(l.sun));
      const what = kind === 'fresh' ? 'new child' : 'active child';
      figures.push(
        figure(`tron-sweeps: ${what}, cost per deposit, energy lent`, 'TRX', trx('lend'), 'info', undefined, 6),
        figure(`tron-sweeps: ${what}, cost per deposit, TRX burned`, 'TRX', trx('burn'), 'info', undefined, 6),
        figure(`tron-sweeps: ${what}, burned / lent cost ratio`, 'x', ratios, 'info', undefined, 2),
      );
    }
    return {
      figures,
      details: {
        deposits: opts.deposits,
        blockMs: opts.blockMs,
        bandwidthTrx: opts.bandwidthTrx,
        perDeposit: Object.fromEntries(
          (['fresh', 'again'] as const).map((kind) => [
            kind,
            Object.fromEntries(
              (['lend', 'burn'] as Way[]).map((way) => [way, results[kind][way].map((r) => ({ ...r, sun: r.sun.toString() }))]),
            ),
          ]),
        ),
      },
    };
  } finally {
    for (const cleanup of cleanups.splice(0).reverse())
      await cleanup().catch((err) => console.error(`teardown: ${(err as Error).message}`));
  }
}

// Run alone: tsx bench/tron-sweeps.ts
if (import.meta.url === `file://${process.argv[1]}`) {
  const deposits = Number(process.env.BENCH_TRON_SWEEPS ?? 5);
  const blockMs = Number(process.env.BENCH_TRON_BLOCK_MS ?? 100);
  const bandwidthTrx = Number(process.env.BENCH_TRON_BANDWIDTH_TRX ?? 0);
  const log = (line: string) => console.log(line);
  log(`tron-sweeps: ${deposits} USDT deposits to fresh child addresses per way, stand-in blocks of ${blockMs} ms`);
  const r = await benchTronSweeps({ deposits, blockMs, bandwidthTrx, log });
  for (const f of r.figures)
    log(`${f.name}: median ${fmt(f.median, f.digits)} ${f.unit} (runs ${f.runs.map((x) => fmt(x, f.digits)).join(' / ')})`);
}
