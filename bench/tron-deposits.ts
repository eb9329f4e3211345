/**
 * Issue 15's deposit and issuance benchmark, on a world of its own (startExtraWorld: embedded
 * PostgreSQL with fsync on, an anvil devnet for the EVM side, the real service graph and
 * app) plus the java-tron stand-in (src/devnet/tron) producing blocks on its own clock:
 *
 * - Detection latency on Tron: a TRC-20 deposit is confirmed when its block is solidified
 *   (19 blocks behind the head). For each deposit: from the moment the stand-in's solidified
 *   head reaches the deposit's block (first sighting by a 10 ms `/walletsolidity/getblock`
 *   loop) to `deposit.success` at a local webhook receiver. Target p99 under one block time.
 * - Address issuance: child addresses through POST /v1/wallets/{id}/addresses on a Tron
 *   wallet and on an EVM wallet of the same process, runs interleaved. Target: Tron's rate
 *   at least the EVM rate (both derive from the stored account xpub; Tron adds base58check).
 */
import { startTronStandIn, type TronStandIn } from '../src/devnet/tron/index.js';
import { resolveChain } from '../src/configuration.js';
import { startIndexer, type IndexerHandle } from '../src/roles/indexer.js';
import { startWorker, type WorkerHandle } from '../src/roles/worker.js';
import { taskList } from '../src/jobs/tasks.js';
import { tronWeb } from '../src/devnet/tron/testkit.js';
import { fmt, sleep } from './stats.js';
import { nowMs, startBenchReceiver, type BenchReceiver } from './receiver.js';
import { benchChainSpec, figure, percentile, startExtraWorld, type ExtraFigure, type ExtraWorld, type Log } from './webhooks.js';

export interface TronBenchOptions {
  runs: number;
  depositsPerRun: number;
  spreadSeconds: number;
  blockTimeMs: number;
  pollMs: number;
  issuanceSeconds: number;
  issuanceConnections: number;
  log: Log;
}

export interface TronBenchReport {
  figures: ExtraFigure[];
  details: Record<string, unknown>;
}

const SLUG = 'tron-bench';

export async function benchTronDeposits(opts: TronBenchOptions): Promise<TronBenchReport> {
  const { log } = opts;
  const node: TronStandIn = await startTronStandIn({ blockTimeMs: opts.blockTimeMs, tokens: [{ symbol: 'USDT', decimals: 6 }] });
  let world: ExtraWorld | null = null;
  let receiver: BenchReceiver | null = null;
  let worker: WorkerHandle | null = null;
  let indexer: IndexerHandle | null = null;
  let watching = true;
  let watcher: Promise<void> | null = null;
  try {
    const usdt = node.tokens[0]!.address;
    const tronChain = resolveChain(
      {
        blockchain: SLUG,
        family: 'tron',
        network: 'testnet',
        rpcUrl: node.url,
        chainId: 990_299,
        name: 'Tron',
        symbol: 'TRX',
        tokenStandard: 'TRC20',
        confirmations: 20,
        multicall3: node.multicall.address,
        assets: [{ symbol: 'USDT', address: usdt, decimals: 6 }],
      },
      'bench',
    );
    world = await startExtraWorld({ spec: benchChainSpec(1), blockTime: 1, extraChains: [tronChain] });
    const w = world;
    receiver = await startBenchReceiver();
    const rcv = receiver;
    const api = async (method: string, url: string, key: string, body?: unknown) => {
      const res = await fetch(`${w.baseUrl}${url}`, {
        method,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const json = (await res.json()) as { data: any };
      if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
      return json.data;
    };

    // ---- the Tron wallet: USDT enabled, sweeps off (deposits only), webhooks to the receiver
    const { wallet, apiKey } = await w.services.wallets.createForBusiness(w.businessId, {
      blockchain: SLUG,
      network: 'testnet',
      name: 'tron',
    });
    await api('PATCH', `/v1/wallets/${wallet.id}`, apiKey, {
      webhookUrl: rcv.url,
      configurations: { autoSweeping: { isActive: false } },
    });
    const chain = w.services.catalogue.findChain(SLUG, 'testnet')!;
    for (const a of chain.assets) await api('PATCH', `/v1/wallets/${wallet.id}/assets/${a.id}`, apiKey, { isActive: true });
    const total = opts.runs * opts.depositsPerRun;
    const children: string[] = [];
    for (let i = 0; i < total; i++) children.push((await api('POST', `/v1/wallets/${wallet.id}/addresses`, apiKey, {})).address);

    const arrivals = new Map<string, number>();
    rcv.onHook = (h) => {
      if (h.key && h.event === 'deposit.success' && !arrivals.has(h.key.toLowerCase())) arrivals.set(h.key.toLowerCase(), h.at);
    };
    await rcv.setRecording(true);

    // When the solidified head first reached each block number.
    const solidifiedAt = new Map<number, number>();
    watcher = (async () => {
      let last = -1;
      while (watching) {
        try {
          const res = await fetch(`${node.url}/walletsolidity/getblock`, { method: 'POST', body: '{"detail":false}' });
          const n = Number((await res.json()).block_header?.raw_data?.number ?? 0);
          const t = nowMs();
          if (n > last) {
            for (let b = last + 1; b <= n; b++) if (!solidifiedAt.has(b)) solidifiedAt.set(b, last < 0 ? NaN : t);
            last = n;
          }
        } catch {
          /* stopping */
        }
        await sleep(10);
      }
    })();

    worker = await startWorker({ connectionString: w.databaseUrl, logger: w.logger, taskList: taskList(w.services) });
    const ix = w.services.deposits.indexer(chain);
    indexer = await startIndexer({ connectionString: w.databaseUrl, indexers: [ix], logger: w.logger, pollMs: opts.pollMs });

    const tw = tronWeb(node);
    const faucet = node.faucet;
    log(
      `  Tron stand-in, ${opts.blockTimeMs} ms blocks, solidified 19 behind; indexer pollMs ${opts.pollMs}; ${opts.depositsPerRun} USDT deposits per run over ${opts.spreadSeconds} s, ${opts.runs} runs`,
    );
    const runs: number[][] = [];
    const pooled: number[] = [];
    for (let run = 0; run < opts.runs; run++) {
      const start = nowMs();
      const txids: string[] = [];
      for (let i = 0; i < opts.depositsPerRun; i++) {
        const wait = start + (i * opts.spreadSeconds * 1000) / opts.depositsPerRun - nowMs();
        if (wait > 0) await sleep(wait);
        const to = children[run * opts.depositsPerRun + i]!;
        const built = await tw.transactionBuilder.triggerSmartContract(
          usdt,
          'transfer(address,uint256)',
          { feeLimit: 100_000_000 },
          [
            { type: 'address', value: to },
            { type: 'uint256', value: String(1_000_000 + run * 1000 + i) },
          ],
          faucet.address,
        );
        const sent = await tw.trx.sendRawTransaction(await tw.trx.sign(built.transaction, faucet.privateKey));
        if (!sent.result) throw new Error(`deposit refused: ${JSON.stringify(sent)}`);
        txids.push(sent.txid as string);
      }
      const deadline = Date.now() + 30 * opts.blockTimeMs + 30_000;
      while (txids.some((t) => !arrivals.has(t)) && Date.now() < deadline) await sleep(50);
      const values: number[] = [];
      for (const txid of txids) {
        const info = (await (
          await fetch(`${node.url}/wallet/gettransactioninfobyid`, { method: 'POST', body: JSON.stringify({ value: txid }) })
        ).json()) as { blockNumber?: number };
        const at = arrivals.get(txid);
        const solid = solidifiedAt.get(Number(info.blockNumber));
        if (at === undefined || solid === undefined || Number.isNaN(solid))
          throw new Error(`deposit ${txid}: no deposit.success or no sighting`);
        values.push(at - solid);
      }
      runs.push(values);
      pooled.push(...values);
      log(
        `  run ${run + 1}: p50 ${fmt(percentile(values, 50), 0)} ms, p99 ${fmt(percentile(values, 99), 0)} ms, max ${fmt(Math.max(...values), 0)} ms`,
      );
    }
    await indexer.stop();
    indexer = null;

    // ---- issuance: Tron vs EVM through the API, interleaved
    const evm = await w.newWallet('evm issuance');
    const tronIssuer = await w.services.wallets.createForBusiness(w.businessId, { blockchain: SLUG, network: 'testnet', name: 'issuance' });
    const rate = async (walletId: string, key: string) => {
      let n = 0;
      const until = Date.now() + opts.issuanceSeconds * 1000;
      const started = nowMs();
      await Promise.all(
        Array.from({ length: opts.issuanceConnections }, async () => {
          while (Date.now() < until) {
            await api('POST', `/v1/wallets/${walletId}/addresses`, key, {});
            n++;
          }
        }),
      );
      return (n * 1000) / (nowMs() - started);
    };
    await rate(evm.id, evm.apiKey); // warm-up
    await rate(tronIssuer.wallet.id, tronIssuer.apiKey);
    const evmRates: number[] = [];
    const tronRates: number[] = [];
    for (let run = 0; run < opts.runs; run++) {
      evmRates.push(await rate(evm.id, evm.apiKey));
      tronRates.push(await rate(tronIssuer.wallet.id, tronIssuer.apiKey));
      log(`  issuance run ${run + 1}: EVM ${fmt(evmRates.at(-1)!, 0)}/s, Tron ${fmt(tronRates.at(-1)!, 0)}/s`);
    }
    const ratios = tronRates.map((t, i) => t / evmRates[i]!);
    const blockTime = opts.blockTimeMs;
    const figures: ExtraFigure[] = [
      figure(
        'tron.detection.p50',
        'ms',
        runs.map((v) => percentile(v, 50)),
        '-',
        undefined,
        0,
      ),
      figure(
        'tron.detection.p99',
        'ms',
        runs.map((v) => percentile(v, 99)),
        `< ${blockTime} ms`,
        (m) => m < blockTime,
        0,
      ),
      figure('tron.issuance.tron', 'addr/s', tronRates, '-', undefined, 0),
      figure('tron.issuance.evm', 'addr/s', evmRates, '-', undefined, 0),
      figure('tron.issuance.ratio', 'x', ratios, '>= 1 (Tron vs EVM)', (m) => m >= 1, 2),
    ];
    return {
      figures,
      details: {
        settings: opts,
        pooled: { n: pooled.length, p50: percentile(pooled, 50), p99: percentile(pooled, 99), max: Math.max(...pooled) },
        samples: runs,
        issuance: { tron: tronRates, evm: evmRates },
      },
    };
  } finally {
    watching = false;
    await watcher;
    await indexer?.stop();
    await worker?.stop();
    await receiver?.close();
    await world?.stop();
    await node.stop();
  }
}
