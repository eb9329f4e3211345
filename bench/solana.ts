/**
 * Issue 16's benchmark, on a world of its own (startExtraWorld: embedded PostgreSQL with fsync
 * on, an anvil devnet for the EVM side, the real service graph and app) plus the Solana
 * validator stand-in (src/devnet/solana: litesvm behind JSON-RPC) producing slots on its own
 * clock (BENCH_SOL_SLOT_MS, default 400 ms as on the cluster):
 *
 * - Detection latency: an SPL USDC deposit counts (deposit.success) once its slot is
 *   finalized (32 blocks behind the newest). For each deposit: from the moment the stand-in's
 *   finalized slot reaches the deposit's slot (first sighting by a 10 ms `getSlot` loop at
 *   `finalized`) to `deposit.success` at a local webhook receiver.
 * - Address issuance: child addresses through POST /v1/wallets/{id}/addresses on a Solana
 *   wallet (ed25519 by SLIP-0010, from the seed, one vault opening per batch) and on an EVM
 *   wallet (from the stored xpub) of the same process, runs interleaved. Target: Solana's rate
 *   at least the EVM rate. Beside it, the key derivation alone, interleaved in this process:
 *   2,000 addresses by AddressDeriver (EVM, from an xpub) and by the Solana derivation (from a
 *   seed, batches of 100 as issuance derives ahead), per run.
 * - Withdrawals: N USDC withdrawals to N fresh recipients posted at once to one master;
 *   accepted/s = N / (last answer - first send); then every one SUCCESS, checked on chain:
 *   each recipient holds exactly its amount (a double payment would double it) and every
 *   signature the database holds is in a block, once. Beside it, in the same run, a bare
 *   @solana/kit loop (fresh blockhash, create the recipient's token account, transferChecked,
 *   sign, sendTransaction, one after the other) from one funded key; ratio = accepted/s /
 *   baseline tx/s. The worker runs in this process (bench/withdrawals.ts runs it in another).
 */
import {
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
} from '@solana/kit';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { startSolanaStandIn, type SolanaStandIn } from '../src/devnet/solana/index.js';
import { resolveChain } from '../src/configuration.js';
import { startIndexer, type IndexerHandle } from '../src/roles/indexer.js';
import { startWorker, type WorkerHandle } from '../src/roles/worker.js';
import { taskList } from '../src/jobs/tasks.js';
import { fmt, sleep } from './stats.js';
import { nowMs, startBenchReceiver, type BenchReceiver } from './receiver.js';
import { benchChainSpec, figure, percentile, startExtraWorld, type ExtraFigure, type ExtraWorld, type Log } from './webhooks.js';
import { randomBytes } from 'node:crypto';
import { evmDerivation } from '../src/chains/evm/derivation.js';
import { solanaDerivation } from '../src/chains/solana/derivation.js';

const DERIVED = 2_000;
const derivationSeed = randomBytes(64);
// The EVM family's own deriver, from the account xpub as a wallet's is opened (chains/bip32-derivation.ts).
const evmKeys = evmDerivation();
const evmDeriver = evmKeys.openAccount!(evmKeys.accountXpub!(derivationSeed));

/** Addresses per second of each family's key derivation alone, EVM then Solana, fresh indexes each run. */
function deriveRates(run: number): { evm: number; solana: number } {
  const first = 1 + run * DERIVED;
  let t = performance.now();
  for (let i = first; i < first + DERIVED; i++) evmDeriver.address(i);
  const evm = (DERIVED * 1000) / (performance.now() - t);
  t = performance.now();
  for (let i = first; i < first + DERIVED; i += 100)
    solanaDerivation.publicKeysFromSeed(
      derivationSeed,
      Array.from({ length: 100 }, (_, k) => i + k),
    );
  return { evm, solana: (DERIVED * 1000) / (performance.now() - t) };
}

export interface SolanaBenchOptions {
  runs: number;
  depositsPerRun: number;
  spreadSeconds: number;
  slotMs: number;
  pollMs: number;
  issuanceSeconds: number;
  issuanceConnections: number;
  withdrawals: number;
  log: Log;
}

export interface SolanaBenchReport {
  figures: ExtraFigure[];
  details: Record<string, unknown>;
}

const SLUG = 'solana-bench';

export async function benchSolana(opts: SolanaBenchOptions): Promise<SolanaBenchReport> {
  const { log } = opts;
  const node: SolanaStandIn = await startSolanaStandIn({ port: 0, slotMs: opts.slotMs, tokens: [{ symbol: 'USDC', decimals: 6 }] });
  const rpc = createSolanaRpc(node.url);
  let world: ExtraWorld | null = null;
  let receiver: BenchReceiver | null = null;
  let worker: WorkerHandle | null = null;
  let indexer: IndexerHandle | null = null;
  let watching = true;
  let watcher: Promise<void> | null = null;
  try {
    const usdc = node.tokens[0]!.mint;
    const solChain = resolveChain(
      {
        blockchain: SLUG,
        family: 'solana',
        network: 'testnet',
        rpcUrl: node.url,
        chainId: 990_499,
        name: 'Solana',
        symbol: 'SOL',
        confirmations: 1,
        assets: [{ symbol: 'USDC', address: usdc, decimals: 6 }],
      },
      'bench',
    );
    world = await startExtraWorld({ spec: benchChainSpec(1), blockTime: 1, extraChains: [solChain] });
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
    const chain = w.services.catalogue.findChain(SLUG, 'testnet')!;
    const usdcId = chain.assets.find((a) => a.symbol === 'USDC')!.id;
    const newSolWallet = async (name: string) => {
      const { wallet, apiKey } = await w.services.wallets.createForBusiness(w.businessId, { blockchain: SLUG, network: 'testnet', name });
      await api('PATCH', `/v1/wallets/${wallet.id}`, apiKey, {
        webhookUrl: rcv.url,
        configurations: { autoSweeping: { isActive: false } },
      });
      for (const a of chain.assets) await api('PATCH', `/v1/wallets/${wallet.id}/assets/${a.id}`, apiKey, { isActive: true });
      return { id: wallet.id, address: wallet.address, apiKey };
    };

    // ---- detection: USDC minted into children (the mint creates each child's token account)
    const depositor = await newSolWallet('deposits');
    const total = opts.runs * opts.depositsPerRun;
    const children: string[] = [];
    for (let i = 0; i < total; i++)
      children.push((await api('POST', `/v1/wallets/${depositor.id}/addresses`, depositor.apiKey, {})).address);

    const arrivals = new Map<string, number>();
    rcv.onHook = (h) => {
      if (h.key && h.event === 'deposit.success' && !arrivals.has(h.key)) arrivals.set(h.key, h.at);
    };
    await rcv.setRecording(true);

    // When the finalized slot first reached each slot number.
    const finalizedAt = new Map<number, number>();
    watcher = (async () => {
      let last = -1;
      while (watching) {
        try {
          const n = Number(await rpc.getSlot({ commitment: 'finalized' }).send());
          const t = nowMs();
          if (n > last) {
            for (let s = last + 1; s <= n; s++) if (!finalizedAt.has(s)) finalizedAt.set(s, last < 0 ? NaN : t);
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
    log(
      `  Solana stand-in, ${opts.slotMs} ms slots, finalized 32 behind; indexer pollMs ${opts.pollMs}; ${opts.depositsPerRun} USDC deposits per run over ${opts.spreadSeconds} s, ${opts.runs} runs`,
    );
    const runs: number[][] = [];
    const pooled: number[] = [];
    for (let run = 0; run < opts.runs; run++) {
      const start = nowMs();
      const sigs: string[] = [];
      for (let i = 0; i < opts.depositsPerRun; i++) {
        const wait = start + (i * opts.spreadSeconds * 1000) / opts.depositsPerRun - nowMs();
        if (wait > 0) await sleep(wait);
        const to = children[run * opts.depositsPerRun + i]!;
        sigs.push((await node.control.mintTo(usdc, to, BigInt(1_000_000 + run * 1000 + i))).signature);
      }
      const deadline = Date.now() + 40 * opts.slotMs + 30_000;
      while (sigs.some((s) => !arrivals.has(s)) && Date.now() < deadline) await sleep(50);
      const statuses = (await rpc.getSignatureStatuses(sigs as never, { searchTransactionHistory: true }).send()).value;
      const values: number[] = [];
      for (const [i, sig] of sigs.entries()) {
        const at = arrivals.get(sig);
        const slot = statuses[i]?.slot;
        const final = slot === undefined ? undefined : finalizedAt.get(Number(slot));
        if (at === undefined || final === undefined || Number.isNaN(final))
          throw new Error(`deposit ${sig}: no deposit.success or no sighting`);
        values.push(at - final);
      }
      runs.push(values);
      pooled.push(...values);
      log(
        `  run ${run + 1}: p50 ${fmt(percentile(values, 50), 0)} ms, p99 ${fmt(percentile(values, 99), 0)} ms, max ${fmt(Math.max(...values), 0)} ms`,
      );
    }
    await indexer.stop();
    indexer = null;

    // ---- issuance: Solana vs EVM through the API, interleaved
    const evm = await w.newWallet('evm issuance');
    const solIssuer = await newSolWallet('issuance');
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
    await rate(solIssuer.id, solIssuer.apiKey);
    const evmRates: number[] = [];
    const solRates: number[] = [];
    for (let run = 0; run < opts.runs; run++) {
      evmRates.push(await rate(evm.id, evm.apiKey));
      solRates.push(await rate(solIssuer.id, solIssuer.apiKey));
      log(`  issuance run ${run + 1}: EVM ${fmt(evmRates.at(-1)!, 0)}/s, Solana ${fmt(solRates.at(-1)!, 0)}/s`);
    }
    const issuanceRatios = solRates.map((s, i) => s / evmRates[i]!);
    const derivation = Array.from({ length: opts.runs }, (_, run) => deriveRates(run));
    for (const [run, d] of derivation.entries())
      log(`  derivation alone, run ${run + 1}: EVM ${fmt(d.evm, 0)}/s, Solana ${fmt(d.solana, 0)}/s, ratio ${fmt(d.solana / d.evm, 2)}`);

    // ---- withdrawals from one master, beside a bare kit loop
    const wd: { accepted: number; minedS: number; baseline: number; doubles: number; onChain: number }[] = [];
    for (let run = 0; run < opts.runs; run++) {
      const payer = await newSolWallet(`withdrawals ${run}`);
      await node.control.fund(payer.address, 100_000_000_000n);
      await node.control.mintTo(usdc, payer.address, 1_000_000_000_000n);
      const recipients = await Promise.all(Array.from({ length: opts.withdrawals }, async () => (await generateKeyPairSigner()).address));
      const amountOf = (i: number) => 1_000_000n + BigInt(run * 10_000 + i);
      await waitFor(async () => (await usdcOf(rpc, payer.address as Address, usdc as Address)) > 0n, 30_000);
      const slotBefore = Number(await rpc.getSlot({ commitment: 'confirmed' }).send());
      const first = nowMs();
      const ids = await Promise.all(
        recipients.map(async (to, i) => {
          const t = await api('POST', `/v1/wallets/${payer.id}/withdraw`, payer.apiKey, {
            assetId: usdcId,
            address: to,
            amount: (Number(amountOf(i)) / 1e6).toFixed(6),
            reference: `sol-bench-${run}-${i}`,
          });
          return t.id as string;
        }),
      );
      const accepted = (opts.withdrawals * 1000) / (nowMs() - first);
      const done = await waitFor(async () => {
        const rows = await w.database.db.selectFrom('transactions').select(['id', 'status', 'hash']).where('id', 'in', ids).execute();
        return rows.every((r) => r.status === 'SUCCESS') ? rows : null;
      }, 120_000);
      const minedS = (nowMs() - first) / 1000;
      // On chain: each recipient holds exactly its amount; every recorded signature is in a block once.
      let doubles = 0;
      for (const [i, to] of recipients.entries()) {
        const held = await usdcOf(rpc, to, usdc as Address);
        if (held !== amountOf(i)) doubles++;
      }
      await waitFor(async () => Number(await rpc.getSlot({ commitment: 'confirmed' }).send()) > slotBefore, 10_000);
      const slotAfter = Number(await rpc.getSlot({ commitment: 'confirmed' }).send());
      const seen = new Map<string, number>();
      for (const slot of await rpc.getBlocks(BigInt(slotBefore) as never, BigInt(slotAfter) as never, { commitment: 'confirmed' }).send()) {
        const block = await rpc
          .getBlock(slot, { commitment: 'confirmed', transactionDetails: 'signatures', rewards: false, maxSupportedTransactionVersion: 0 })
          .send();
        for (const s of block?.signatures ?? []) seen.set(s, (seen.get(s) ?? 0) + 1);
      }
      const onChain = done.filter((r) => r.hash && seen.get(r.hash) === 1).length;

      // The bare loop: one funded key, the same USDC transfer, one after the other.
      const key = await generateKeyPairSigner();
      await node.control.fund(key.address, 100_000_000_000n);
      await node.control.mintTo(usdc, key.address, 1_000_000_000_000n);
      await waitFor(async () => (await usdcOf(rpc, key.address, usdc as Address)) > 0n, 30_000);
      const [source] = await findAssociatedTokenPda({ owner: key.address, mint: usdc as Address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
      const started = nowMs();
      for (let i = 0; i < opts.withdrawals; i++) {
        const to = (await generateKeyPairSigner()).address;
        const [ata] = await findAssociatedTokenPda({ owner: to, mint: usdc as Address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
        const { value: lifetime } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
        const message = pipe(
          createTransactionMessage({ version: 0 }),
          (m) => setTransactionMessageFeePayerSigner(key, m),
          (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
          (m) =>
            appendTransactionMessageInstructions(
              [
                getCreateAssociatedTokenIdempotentInstruction({ payer: key, ata, owner: to, mint: usdc as Address }),
                getTransferCheckedInstruction({
                  source,
                  mint: usdc as Address,
                  destination: ata,
                  authority: key,
                  amount: amountOf(i),
                  decimals: 6,
                }),
              ],
              m,
            ),
        );
        const signed = await signTransactionMessageWithSigners(message);
        await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
      }
      const baseline = (opts.withdrawals * 1000) / (nowMs() - started);
      wd.push({ accepted, minedS, baseline, doubles, onChain });
      log(
        `  withdrawals run ${run + 1}: ${opts.withdrawals} accepted at ${fmt(accepted, 1)}/s, all SUCCESS after ${fmt(minedS, 1)} s, ${onChain} signatures once on chain, ${doubles} recipients off their amount; bare kit loop ${fmt(baseline, 1)} tx/s`,
      );
    }

    const slot = opts.slotMs;
    const figures: ExtraFigure[] = [
      figure(
        'solana.detection.p50',
        'ms',
        runs.map((v) => percentile(v, 50)),
        '-',
        undefined,
        0,
      ),
      figure(
        'solana.detection.p99',
        'ms',
        runs.map((v) => percentile(v, 99)),
        `< ${2 * slot} ms (2 slots)`,
        (m) => m < 2 * slot,
        0,
      ),
      figure('solana.issuance.solana', 'addr/s', solRates, '-', undefined, 0),
      figure('solana.issuance.evm', 'addr/s', evmRates, '-', undefined, 0),
      figure('solana.issuance.ratio', 'x', issuanceRatios, '>= 1 (Solana vs EVM)', (m) => m >= 1, 2),
      figure(
        'solana.derivation.ratio',
        'x',
        derivation.map((d) => d.solana / d.evm),
        '- (keys alone, Solana vs EVM)',
        undefined,
        2,
      ),
      figure(
        `solana.withdrawals.accepted (${opts.withdrawals} at once, one master)`,
        'withdrawals/s',
        wd.map((r) => r.accepted),
        '-',
        undefined,
        1,
      ),
      figure(
        'solana.withdrawals.all-success',
        's',
        wd.map((r) => r.minedS),
        '-',
        undefined,
        1,
      ),
      figure(
        'solana.withdrawals.baseline (bare kit send loop)',
        'tx/s',
        wd.map((r) => r.baseline),
        '-',
        undefined,
        1,
      ),
      figure(
        'solana.withdrawals.ratio',
        'x',
        wd.map((r) => r.accepted / r.baseline),
        '-',
        undefined,
        2,
      ),
      figure(
        'solana.withdrawals.double-payments',
        '',
        wd.map((r) => r.doubles + (opts.withdrawals - r.onChain)),
        '0',
        (m) => m === 0,
        0,
      ),
    ];
    return {
      figures,
      details: {
        settings: { ...opts, log: undefined },
        pooled: { n: pooled.length, p50: percentile(pooled, 50), p99: percentile(pooled, 99), max: Math.max(...pooled) },
        samples: runs,
        issuance: { solana: solRates, evm: evmRates, derivation },
        withdrawals: wd,
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

async function usdcOf(rpc: ReturnType<typeof createSolanaRpc>, owner: Address, mint: Address): Promise<bigint> {
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const info = await rpc
    .getTokenAccountBalance(ata, { commitment: 'confirmed' })
    .send()
    .catch(() => null);
  return info ? BigInt(info.value.amount) : 0n;
}

async function waitFor<T>(check: () => Promise<T | null | false>, timeoutMs: number): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > until) throw new Error('timed out');
    await sleep(100);
  }
}
