/**
 * Issue-4 benchmarks: the deposit indexer.
 *
 * a. Detection latency (`benchDetection`): a devnet with 1 s blocks and 1 confirmation, the
 *    real indexer role (src/roles/indexer.ts `startIndexer` over `services.deposits.indexer`)
 *    and a real worker delivering webhooks to a local receiver (auto-sweep on, as shipped,
 *    with a funded master). Token deposits from the faucet to child addresses at random
 *    moments; a tight `eth_blockNumber` loop (every 10 ms) records when each block first
 *    appears. Latency = receiver gets `deposit.success` minus that block's first sighting.
 *    Each latency is also split: waiting for the indexer's next step, the step itself, and
 *    the webhook delivery after the step committed.
 *
 * b. Backfill throughput (`benchBackfill`): 100,000 child addresses on one wallet (derived
 *    with AddressDeriver from the wallet's xpub and bulk-inserted with consecutive derivation
 *    indexes 1..100,000 and the allocator's row shape: going through the allocator would
 *    issue them at ~1k/s, minutes of set-up), 10,000 token transfers to 10,000 distinct of
 *    them (indexes 10, 20, ..., 100,000) made by contracts/BatchSender.sol in 40 transactions
 *    of 250, spread with empty blocks over about 1,000 blocks; then the cursor is put back
 *    before the transfers and a fresh ChainIndexer is stepped until idle, in a process of
 *    its own run as the deploy recipes run the indexer: plain node on the build (dist/,
 *    built-child.ts; one more run under tsx, as `npm start` runs it, is reported beside). Reported:
 *    transfers/s, baseline and peak RSS (sampled every 50 ms, cross-checked with the
 *    kernel's VmHWM), an exactly-once check of the rows, and where the time went (watch-set
 *    load, RPC, DB record with events and sweep hooks, SQL statements per transfer, CPU).
 *    After each run, the bare ceiling on the same range (bench/backfill-bare.ts: eth_getLogs
 *    and COPY into a bare table) and our rate's ratio to it (issue 29: >= 0.5).
 *    No worker runs meanwhile (the deliveries and sweep jobs the range creates wait in the
 *    queue), so the figure is the indexer's alone.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createPublicClient, createWalletClient, erc20Abi, http, maxUint256, type Abi, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devnetChain } from '../src/devnet/chain.js';
import { loadArtifact } from '../src/devnet/compile.js';
import { derivationBackend } from '../src/keys/hd.js';
import { uuidv7 } from '../src/lib/ids.js';
import { startIndexer, type IndexerHandle } from '../src/roles/indexer.js';
import { startWorker, type WorkerHandle } from '../src/roles/worker.js';
import { taskList } from '../src/jobs/tasks.js';
import { ChainIndexer } from '../src/modules/deposits/indexer.js';
import type { ChainHandle } from '../src/modules/catalogue/service.js';
import { builtChild } from './built-child.js';
import { cpuProbeMs, fmt, load1, sleep } from './stats.js';
import { cpuShare, cpuSnapshot, withCpu, type CpuShare, type CpuSnapshot } from './cpu.js';
import type { IndexerRunReport } from './backfill-indexer.js';
import { nowMs, startBenchReceiver, type BenchReceiver } from './receiver.js';
import {
  BENCH_SQL,
  benchChainSpec,
  check,
  countQueries,
  figure,
  logProfile,
  cpuPct,
  sqlRoundTripMs,
  percentile,
  profiled,
  topStatements,
  type ProfileSummary,
  startExtraWorld,
  type BenchWallet,
  type ExtraFigure,
  type ExtraWorld,
  type Log,
} from './webhooks.js';

const MB = 1024 * 1024;

function chainHandle(world: ExtraWorld): ChainHandle {
  return world.services.catalogue.chains()[0]!;
}

function faucetClients(world: ExtraWorld) {
  const cfg = world.chain.config;
  const chain = devnetChain(cfg.chainId, cfg.rpcUrl);
  const account = privateKeyToAccount(world.chain.faucet.privateKey as Hex);
  const transport = http(cfg.rpcUrl);
  const pub = createPublicClient({ chain, transport, pollingInterval: 50 });
  const wallet = createWalletClient({ chain, transport, account });
  const usdc = cfg.assets.find((a) => a.symbol === 'USDC' && !a.isNative)!.address as Address;
  return { pub, wallet, account, usdc };
}

/** Small seeded PRNG (mulberry32): the same schedule on every run of the benchmark. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------------------------------
// a. Detection latency
// ---------------------------------------------------------------------------------------

export interface DetectionOptions {
  runs: number;
  depositsPerRun: number;
  /** Seconds over which a run's deposits are spread (random moments). */
  spreadSeconds: number;
  /** The indexer's pause at the head (INDEXER_POLL_MS; default 500 in production). */
  pollMs: number;
  log: Log;
}

export interface DetectionRun {
  n: number;
  missing: number;
  p50: number;
  p99: number;
  max: number;
  /** Averages of the split, ms. */
  waitForStep: number;
  step: number;
  delivery: number;
  load1: number;
}

export interface DetectionReport {
  figures: ExtraFigure[];
  details: {
    settings: Record<string, unknown>;
    runs: DetectionRun[];
    pooled: { p50: number; p99: number; max: number; n: number };
    samples: { block: number; latencyMs: number; waitForStep: number | null; step: number | null; delivery: number | null }[];
  };
}

export async function benchDetection(opts: DetectionOptions): Promise<DetectionReport> {
  const { log } = opts;
  const world = await startExtraWorld({ spec: benchChainSpec(1), blockTime: 1 });
  let receiver: BenchReceiver | null = null;
  let worker: WorkerHandle | null = null;
  let indexer: IndexerHandle | null = null;
  let watching = true;
  let watcher: Promise<void> | null = null;
  const chain = chainHandle(world);
  const adapter = chain.adapter as { scan: ChainHandle['adapter']['scan'] };
  try {
    receiver = await startBenchReceiver();
    const rcv = receiver;
    const { services } = world;
    const wallet = await world.newWallet('Bench detection', { webhookUrl: rcv.url, fundMaster: true });
    const total = opts.runs * opts.depositsPerRun;
    const children = await Promise.all(
      Array.from({ length: total }, (_, i) => services.addresses.create(wallet.auth, wallet.id, { name: `d${i}` })),
    );

    // When each event arrived, by transaction hash.
    const arrivals = new Map<string, number>();
    rcv.onHook = (h) => {
      if (!h.key) return;
      const key = h.key.toLowerCase();
      if (h.event === 'deposit.success' && !arrivals.has(key)) arrivals.set(key, h.at);
    };
    await rcv.setRecording(true);

    // Block arrivals: first sighting of each number by a 10 ms eth_blockNumber loop.
    const seen = new Map<number, number>();
    watcher = (async () => {
      let last = -1;
      while (watching) {
        try {
          const n = Number(BigInt(await world.rpc<string>('eth_blockNumber')));
          const t = nowMs();
          if (n > last) {
            for (let b = Math.max(0, last + 1); b <= n; b++) if (!seen.has(b)) seen.set(b, last < 0 ? NaN : t);
            last = n;
          }
        } catch {
          /* the devnet is stopping */
        }
        await sleep(10);
      }
    })();

    // Steps of the indexer: when each started and ended, and the range it scanned.
    const steps: { start: number; end: number; from: number; to: number }[] = [];
    const ix = services.deposits.indexer(chain);
    const origStep = ix.step.bind(ix);
    let currentRange: { from: number; to: number } | null = null;
    const origScan = adapter.scan;
    adapter.scan = function (this: unknown, from, to, tokens, isWatched) {
      currentRange = { from: Number(from), to: Number(to) };
      return origScan.call(chain.adapter, from, to, tokens, isWatched);
    };
    ix.step = async () => {
      const start = nowMs();
      currentRange = null;
      const result = await origStep();
      const range = currentRange as { from: number; to: number } | null;
      if (range) steps.push({ start, end: nowMs(), ...range });
      return result;
    };

    worker = await startWorker({
      connectionString: world.databaseUrl,
      logger: world.logger,
      taskList: taskList(services),
      periodic: [
        { name: 'webhooks_sweep', everyMs: 30_000, run: () => services.webhooks.sweep() },
        { name: 'outbound_sweep', everyMs: 15_000, run: () => services.outbound.sweepStuck() },
      ],
    });
    indexer = await startIndexer({ connectionString: world.databaseUrl, indexers: [ix], logger: world.logger, pollMs: opts.pollMs });
    // Caught up with the provisioning blocks before the first deposit.
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(100)) {
      const { rows } = await world.database.pool.query<{ n: string }>(
        `${BENCH_SQL}SELECT block_number AS n FROM chain_cursors WHERE chain_id = $1`,
        [chain.id],
      );
      const head = Number(BigInt(await world.rpc<string>('eth_blockNumber')));
      if (rows[0] && Number(rows[0].n) >= head - 1) break;
    }

    const { pub, wallet: faucet, account, usdc } = faucetClients(world);
    let nonce = await pub.getTransactionCount({ address: account.address, blockTag: 'pending' });
    const random = prng(4);
    log(
      `  1 s blocks, 1 confirmation, indexer pollMs ${opts.pollMs}, worker concurrency 20, auto-sweep on; ${opts.depositsPerRun} deposits per run over ${opts.spreadSeconds} s, ${opts.runs} runs`,
    );

    const runs: DetectionRun[] = [];
    const samples: DetectionReport['details']['samples'] = [];
    const pooled: number[] = [];
    for (let run = 0; run < opts.runs; run++) {
      const offsets = Array.from({ length: opts.depositsPerRun }, () => random() * opts.spreadSeconds * 1000).sort((a, b) => a - b);
      const start = nowMs();
      const hashes: Hex[] = [];
      for (const [i, offset] of offsets.entries()) {
        const wait = start + offset - nowMs();
        if (wait > 0) await sleep(wait);
        const to = children[run * opts.depositsPerRun + i]!.address as Address;
        const hash = await faucet.writeContract({
          address: usdc,
          abi: erc20Abi,
          functionName: 'transfer',
          args: [to, 1_000_000n + BigInt(run * 1000 + i)],
          nonce: nonce++,
          gas: 100_000n,
        });
        hashes.push(hash);
      }
      const deadline = Date.now() + 30_000;
      while (hashes.some((h) => !arrivals.has(h.toLowerCase())) && Date.now() < deadline) await sleep(20);
      const receipts = await Promise.all(hashes.map((hash) => pub.getTransactionReceipt({ hash })));
      const values: number[] = [];
      const split = { wait: [] as number[], step: [] as number[], delivery: [] as number[] };
      receipts.forEach((r, i) => {
        const at = arrivals.get(hashes[i]!.toLowerCase());
        const block = Number(r.blockNumber);
        const mined = seen.get(block);
        if (at === undefined || mined === undefined || Number.isNaN(mined)) return;
        const latency = at - mined;
        values.push(latency);
        const step = steps.find((s) => s.from <= block && block <= s.to && s.end >= mined);
        const sample = {
          block,
          latencyMs: latency,
          waitForStep: step ? step.start - mined : null,
          step: step ? step.end - step.start : null,
          delivery: step ? at - step.end : null,
        };
        samples.push(sample);
        if (step) {
          split.wait.push(sample.waitForStep!);
          split.step.push(sample.step!);
          split.delivery.push(sample.delivery!);
        }
      });
      const avg = (v: number[]) => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : NaN);
      const r: DetectionRun = {
        n: values.length,
        missing: hashes.length - values.length,
        p50: percentile(values, 50),
        p99: percentile(values, 99),
        max: Math.max(...values),
        waitForStep: avg(split.wait),
        step: avg(split.step),
        delivery: avg(split.delivery),
        load1: load1(),
      };
      runs.push(r);
      pooled.push(...values);
      log(
        `  run ${run + 1}: p50 ${fmt(r.p50, 0)} ms, p99 ${fmt(r.p99, 0)} ms, max ${fmt(r.max, 0)} ms (n=${r.n}${r.missing ? `, ${r.missing} MISSING` : ''}) | avg split: wait for step ${fmt(r.waitForStep, 0)} + step ${fmt(r.step, 0)} + delivery ${fmt(r.delivery, 0)} ms | load ${r.load1.toFixed(2)}`,
      );
    }
    const allSteps = steps.map((s) => s.end - s.start);
    log(
      `  indexer steps that scanned blocks: ${allSteps.length}, duration p50 ${fmt(percentile(allSteps, 50), 0)} ms, p99 ${fmt(percentile(allSteps, 99), 0)} ms`,
    );

    const missing = runs.reduce((a, r) => a + r.missing, 0);
    const figures: ExtraFigure[] = [
      figure(
        'deposits: detection latency p50 (block -> deposit.success)',
        'ms',
        runs.map((r) => r.p50),
        '-',
        undefined,
        0,
      ),
      figure(
        'deposits: detection latency p99',
        'ms',
        runs.map((r) => r.p99),
        '< 2,500 ms',
        (m) => m < 2500,
        0,
      ),
      check('deposits: deposits without deposit.success (all runs)', '', missing, '= 0', missing === 0),
    ];
    return {
      figures,
      details: {
        settings: {
          pollMs: opts.pollMs,
          blockTimeS: 1,
          confirmations: 1,
          depositsPerRun: opts.depositsPerRun,
          spreadSeconds: opts.spreadSeconds,
          runs: opts.runs,
        },
        runs,
        pooled: { p50: percentile(pooled, 50), p99: percentile(pooled, 99), max: Math.max(...pooled), n: pooled.length },
        samples,
      },
    };
  } finally {
    watching = false;
    await indexer?.stop().catch((err) => console.error(`indexer stop failed: ${(err as Error).message}`));
    await worker?.stop().catch((err) => console.error(`worker stop failed: ${(err as Error).message}`));
    await watcher;
    delete (adapter as { scan?: unknown }).scan;
    await receiver?.close();
    await world.stop();
  }
}

// ---------------------------------------------------------------------------------------
// b. Backfill throughput and memory
// ---------------------------------------------------------------------------------------

export interface BackfillOptions {
  runs: number;
  /** Watched child addresses on the wallet. */
  watched: number;
  /** Token transfers to distinct child addresses. */
  transfers: number;
  /** Transfers per BatchSender transaction. */
  perTx: number;
  /** About how many blocks the transfers are spread over (empty blocks between them). */
  spanBlocks: number;
  /** Indexer range sizes to measure (INDEXER_BATCH_BLOCKS; production default 100). */
  batchSizes: number[];
  /** Runs for the batch sizes after the first (the first gets `runs`). */
  extraBatchRuns: number;
  /** Write a CPU profile of the first run and print its top entries. */
  cpuProfile: boolean;
  /**
   * Afterwards, diagnostic runs (not in the figures), one per variant of `diagnosticVariants`
   * (cumulative: each variant's statements are applied on top of the previous ones).
   */
  diagnose?: boolean;
  log: Log;
}

/** One run: what the indexer process reported, its range size, the row check and CPU shares. */
export interface BackfillRun extends IndexerRunReport {
  batchBlocks: number;
  rate: number;
  check: BackfillCheck;
  /** Over the indexer's stepping: `other` is the indexer process, `node` this (idle) bench process. */
  cpu: CpuShare;
  load1: number;
  /** Percent of samples per state / wait event of the sessions in a transaction (see sampleSessions). */
  recordingSession: Record<string, number>;
  /** bench/stats.ts cpuProbeMs just before the run: how fast the machine was. */
  cpuProbeMs: number;
}

export interface BackfillCheck {
  rows: number;
  distinctTransfers: number;
  expectedRecipients: number;
  success: number;
  amountOk: boolean;
  processingEvents: number;
  successEvents: number;
  ok: boolean;
}

export interface BackfillReport {
  figures: ExtraFigure[];
  details: {
    settings: Record<string, unknown>;
    setup: Record<string, number>;
    watchSet: { size: number; ms: number; liveMb: number; peakMb: number };
    runs: BackfillRun[];
    bare: BareRun[];
    diagnostics?: { name: string; run: BackfillRun }[];
    profile?: ProfileSummary;
  };
}

/**
 * The --diagnose variants: BENCH_BACKFILL_DIAG="name=statement;statement|name=statement"
 * (schema or setting changes to measure, on the throw-away bench database), by default one:
 * event bodies stored without TOAST compression.
 */
function diagnosticVariants(): { name: string; sql: string[] }[] {
  const spec = process.env.BENCH_BACKFILL_DIAG;
  if (!spec)
    return [{ name: 'events.body STORAGE EXTERNAL (no compression)', sql: ['ALTER TABLE events ALTER COLUMN body SET STORAGE EXTERNAL'] }];
  return spec.split('|').map((part) => {
    const eq = part.indexOf('=');
    if (eq < 1) throw new Error(`BENCH_BACKFILL_DIAG: "${part}" is not name=statement;statement`);
    return {
      name: part.slice(0, eq).trim(),
      sql: part
        .slice(eq + 1)
        .split(';')
        .map((x) => x.trim())
        .filter(Boolean),
    };
  });
}

function exposeGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

export async function benchBackfill(opts: BackfillOptions): Promise<BackfillReport> {
  const { log } = opts;
  const gc = exposeGc();
  // The indexer process opens the wallets with the same key-encryption key.
  const kek = randomBytes(32);
  const world = await startExtraWorld({ spec: benchChainSpec(1), blockTime: 0, kek });
  try {
    const { services } = world;
    const chain = chainHandle(world);
    // A URL no one is asked to call: no worker runs during the backfill, but every event
    // still gets its delivery row and queued job, as in production.
    const wallet = await world.newWallet('Bench backfill', { webhookUrl: 'http://127.0.0.1:9/hooks' });
    const setup: Record<string, number> = {};

    // 1. The watched addresses.
    let t = performance.now();
    const { recipients, deriveMs, insertMs } = await insertChildAddresses(world, wallet, opts.watched, opts.transfers);
    setup.addressesS = (performance.now() - t) / 1000;
    setup.deriveS = deriveMs / 1000;
    setup.insertS = insertMs / 1000;
    log(
      `  ${opts.watched.toLocaleString('en-US')} child addresses derived (AddressDeriver, ${derivationBackend}) and bulk-inserted in ${fmt(setup.addressesS, 1)} s (derive ${fmt(setup.deriveS, 1)} s, insert ${fmt(setup.insertS, 1)} s)`,
    );

    // 2. The transfers.
    t = performance.now();
    const sent = await sendTransfers(world, recipients, opts.perTx, opts.spanBlocks);
    setup.transfersS = (performance.now() - t) / 1000;
    setup.firstBlock = sent.firstBlock;
    setup.lastBlock = sent.lastBlock;
    log(
      `  ${recipients.length.toLocaleString('en-US')} transfers in ${sent.txs} BatchSender transactions (${opts.perTx} each, ${fmt(sent.gasPerTransfer, 0)} gas per transfer), blocks ${sent.firstBlock}..${sent.lastBlock} (+ ${sent.gap} empty blocks between), in ${fmt(setup.transfersS, 1)} s`,
    );
    const expectedLower = recipients.map((r) => r.address.toLowerCase());
    const expectedTotal = recipients.reduce((a, r) => a + r.amount, 0n);

    // The watch set alone: live heap it keeps, and the transient peak of loading it.
    const watchProbe = await probeWatchSet(world, chain, gc);
    const roundTripMs = await sqlRoundTripMs(world.database.pool);
    setup.roundTripMs = roundTripMs;
    log(
      `  watch set of ${watchProbe.size.toLocaleString('en-US')} addresses: loads in ${fmt(watchProbe.ms, 0)} ms, keeps +${fmt(watchProbe.liveMb, 1)} MB of live heap, heap used peaks +${fmt(watchProbe.peakMb, 0)} MB while loading | SQL round trip (SELECT 1, serial) ${fmt(roundTripMs, 3)} ms`,
    );

    // 3. Index from scratch, per batch size.
    const runs: BackfillRun[] = [];
    const bare: BareRun[] = [];
    const ratios: number[] = [];
    let profile: BackfillReport['details']['profile'];
    for (const [bi, batchBlocks] of opts.batchSizes.entries()) {
      const count = bi === 0 ? opts.runs : opts.extraBatchRuns;
      for (let run = 1; run <= count; run++) {
        await resetIndexing(world, wallet, chain.id, sent.cursorBefore);
        const profiling = opts.cpuProfile && bi === 0 && run === 1;
        const heapProfiling = process.env.BENCH_HEAP_PROF === '1' && bi === 0 && run === 1;
        const r = await backfillRun(world, wallet, kek, batchBlocks, expectedLower, expectedTotal, { cpu: profiling, heap: heapProfiling });
        // The bare ceiling right after, on the same range (issue 29): the ratio is within one run.
        if (bi === 0) {
          const b = await bareRun(world, sent.cursorBefore.blockNumber + 1n, batchBlocks, expectedLower.length);
          bare.push(b);
          log(
            `  batch ${batchBlocks} run ${run}, bare (eth_getLogs + COPY into a bare table): ${fmt(b.rate, 0)} transfers/s (${fmt(b.ms / 1000, 2)} s) | our rate / bare ${fmt(r.rate / b.rate, 3)} | load ${b.load1.toFixed(2)}`,
          );
          ratios.push(r.rate / b.rate);
        }
        if (r.profile) profile = r.profile;
        for (const line of r.heapSites ?? []) log(line);
        runs.push(r);
        const ph = r.phasesMs;
        log(
          `  batch ${batchBlocks} run ${run}${profiling ? ' (CPU-profiled)' : ''}: ${fmt(r.rate, 0)} transfers/s (${fmt(r.ms / 1000, 2)} s, ${r.steps} steps) | RSS baseline ${fmt(r.baselineRssMb, 0)} MB, peak ${fmt(r.peakRssMb, 0)} MB (VmHWM ${r.hwmRssMb === null ? 'n/a' : fmt(r.hwmRssMb, 0)} MB), heap used peak ${fmt(r.heapUsedPeakMb, 0)} MB (after GC: ${fmt(r.afterGc.heapUsed, 0)} MB; at the sampled peak: V8 heap ${fmt(r.atPeak.heapTotal, 0)} MB, external ${fmt(r.atPeak.external, 0)} MB) | check ${r.check.ok ? 'OK' : 'FAILED'} | load ${r.load1.toFixed(2)}, cpu probe ${fmt(r.cpuProbeMs, 0)} ms`,
        );
        const pct = (v: number) => `${fmt(v / 1000, 2)} s (${fmt((v / r.ms) * 100, 0)}%)`;
        log(
          `         where: watch-set load ${pct(ph.refresh!)}, RPC ${pct(ph.rpc!)} [scan ${pct(ph.scan!)}], vanished check ${pct(ph.vanished!)}, DB record ${pct(ph.record!)} [events of confirmations ${pct(ph.emit!)}; sweep hooks ${pct(ph.hooks!)}; new deposits with their events, blocks, cursor ${pct(ph.recordRest!)}], other ${pct(ph.other!)} (two ranges overlap: phases can add up to more than the run)`,
        );
        log(
          `         SQL: ${fmt(r.queriesPerTransfer, 1)} statements per transfer (${fmt(r.jobQueueQueriesPerTransfer, 1)} job-queue); ${r.calls.emit} emit calls, ${r.calls.hooks} sweep-hook calls | cpu% indexer process ${cpuPct(r.cpu.other)} pg ${cpuPct(r.cpu.postgres)} anvil ${cpuPct(r.cpu.anvil)} foreign ${cpuPct(r.cpu.foreign)} | CPU per transfer: indexer ${fmt((r.cpuMs * 1000) / r.transfers, 0)} µs, pg ${fmt(pgCpuUsPerTransfer(r), 0)} µs`,
        );
        log(
          `         database sessions in a transaction, % of 5 ms samples: ${Object.entries(r.recordingSession)
            .map(([k, v]) => `${k} ${fmt(v, 0)}`)
            .join(', ')}`,
        );
        for (const g of r.idleGaps ?? []) log(`         transaction idle ${fmt(g.ms, 0)} ms in ${g.n} waits, then: ${g.before}`);
        if (!r.check.ok) log(`         CHECK FAILED: ${JSON.stringify(r.check)}`);
        if (bi === 0 && run === 1) {
          const b = r.baseline;
          log(
            `         baseline memory: rss ${fmt(b.rss, 0)} MB = V8 heap ${fmt(b.heapTotal, 0)} MB (used ${fmt(b.heapUsed, 0)}) + external ${fmt(b.external, 0)} MB + code, stacks, native libraries and allocator slack`,
          );
          log('         statements by client-side time (per transfer: count x avg ms = ms):');
          for (const st of r.statements)
            log(`           ${fmt(st.perUnit, 2)} x ${fmt(st.avgMs, 3)} = ${fmt(st.msPerUnit, 3)} ms  ${st.statement}`);
        }
      }
    }
    if (profile) logProfile(log, 'CPU profile of the first backfill run (the indexer process, main thread)', profile);

    // The same run once more with the indexer as `npm start` runs it (tsx compiling as it
    // loads), for comparison: the figures above are the deployed process's (built-child.ts).
    await resetIndexing(world, wallet, chain.id, sent.cursorBefore);
    const underTsx = await backfillRun(world, wallet, kek, opts.batchSizes[0]!, expectedLower, expectedTotal, {
      cpu: false,
      heap: false,
      tsx: true,
    });
    log(
      `  batch ${opts.batchSizes[0]} under tsx (npm start's way, not the deployed build): ${fmt(underTsx.rate, 0)} transfers/s | RSS baseline ${fmt(underTsx.baselineRssMb, 0)} MB, peak ${fmt(underTsx.peakRssMb, 0)} MB | check ${underTsx.check.ok ? 'OK' : 'FAILED'}`,
    );

    const diagnostics: { name: string; run: BackfillRun }[] = [];
    if (opts.diagnose) {
      const batchBlocks = opts.batchSizes[0]!;
      for (const variant of diagnosticVariants()) {
        for (const statement of variant.sql) await world.database.pool.query(`${BENCH_SQL}${statement}`);
        await resetIndexing(world, wallet, chain.id, sent.cursorBefore);
        const run = await backfillRun(world, wallet, kek, batchBlocks, expectedLower, expectedTotal, { cpu: false, heap: false });
        diagnostics.push({ name: variant.name, run });
        const ev = run.statements.find((x) => x.statement.startsWith('WITH m AS'));
        const tx = run.statements.find((x) => x.statement.startsWith('INSERT INTO transactions'));
        log(
          `  diagnostic (cumulative), batch ${batchBlocks}, ${variant.name}: ${fmt(run.rate, 0)} transfers/s (${fmt(run.ms / 1000, 2)} s), peak RSS ${fmt(run.peakRssMb, 0)} MB | events+deliveries ${ev ? fmt(ev.avgMs, 1) : '?'} ms per call, INSERT transactions ${tx ? fmt(tx.avgMs, 1) : '?'} ms per call | cpu% indexer ${cpuPct(run.cpu.other)} pg ${cpuPct(run.cpu.postgres)} | check ${run.check.ok ? 'OK' : 'FAILED'} | load ${run.load1.toFixed(2)}, cpu probe ${fmt(run.cpuProbeMs, 0)} ms`,
        );
        log(
          `         database sessions in a transaction, % of samples: ${Object.entries(run.recordingSession)
            .map(([k, v]) => `${k} ${fmt(v, 0)}`)
            .join(', ')}`,
        );
      }
    }

    const main = runs.filter((r) => r.batchBlocks === opts.batchSizes[0]);
    const figures: ExtraFigure[] = [
      figure(
        `deposits: backfill rate (batch ${opts.batchSizes[0]} blocks)`,
        'transfers/s',
        main.map((r) => r.rate),
        '>= 10,000',
        (m) => m >= 10_000,
        0,
      ),
      figure(
        `deposits: backfill bare ceiling, eth_getLogs + COPY (batch ${opts.batchSizes[0]} blocks)`,
        'transfers/s',
        bare.map((b) => b.rate),
        '-',
        undefined,
        0,
      ),
      figure('deposits: backfill rate / bare ceiling (same run)', 'x', ratios, '>= 0.5', (m) => m >= 0.5, 3),
      figure(
        'deposits: backfill peak RSS',
        'MB',
        main.map((r) => r.peakRssMb),
        '< 300 MB',
        (m) => m < 300,
        0,
      ),
      // The indexer's CPU time per transfer: what its work costs whatever else runs on the
      // machine (the rate moves with the other work sharing the two cores; this much less).
      // PostgreSQL's (printed per run) is not a figure: under contention it moved 3x.
      figure(
        'deposits: backfill CPU per transfer, indexer process',
        'µs',
        main.map((r) => (r.cpuMs * 1000) / r.transfers),
        '-',
        undefined,
        0,
      ),
      figure('deposits: backfill peak RSS, indexer under tsx (one run)', 'MB', [underTsx.peakRssMb], '-', undefined, 0),
      figure(
        'deposits: backfill baseline RSS (before indexing)',
        'MB',
        main.map((r) => r.baselineRssMb),
        '-',
        undefined,
        0,
      ),
    ];
    for (const size of opts.batchSizes.slice(1)) {
      const rs = runs.filter((r) => r.batchBlocks === size);
      figures.push(
        figure(
          `deposits: backfill rate (batch ${size} blocks)`,
          'transfers/s',
          rs.map((r) => r.rate),
          '>= 10,000',
          (m) => m >= 10_000,
          0,
        ),
      );
      figures.push(
        figure(
          `deposits: backfill peak RSS (batch ${size} blocks)`,
          'MB',
          rs.map((r) => r.peakRssMb),
          '< 300 MB',
          (m) => m < 300,
          0,
        ),
      );
    }
    const bad = runs.filter((r) => !r.check.ok).length;
    figures.push(
      check(
        `deposits: backfill rows exactly once (${opts.transfers.toLocaleString('en-US')} per run, ${runs.length} runs)`,
        'runs ok',
        runs.length - bad,
        `= ${runs.length}`,
        bad === 0,
      ),
    );
    return {
      figures,
      details: {
        settings: {
          watched: opts.watched,
          transfers: opts.transfers,
          perTx: opts.perTx,
          spanBlocks: sent.lastBlock - sent.firstBlock + 1,
          batchSizes: opts.batchSizes,
          runs: opts.runs,
          extraBatchRuns: opts.extraBatchRuns,
          worker: 'none during indexing',
        },
        setup,
        watchSet: watchProbe,
        runs,
        bare,
        ...(diagnostics.length ? { diagnostics } : {}),
        ...(profile ? { profile } : {}),
      },
    };
  } finally {
    await world.stop();
  }
}

interface Recipient {
  address: string;
  amount: bigint;
}

/**
 * Derives `count` child addresses (indexes 1..count) from the wallet's xpub and inserts them
 * in chunks with the allocator's row shape; returns the `transfers` recipients (every
 * (count / transfers)-th address) with distinct amounts.
 */
async function insertChildAddresses(
  world: ExtraWorld,
  wallet: BenchWallet,
  count: number,
  transfers: number,
): Promise<{ recipients: Recipient[]; deriveMs: number; insertMs: number }> {
  const { services } = world;
  const row = await services.wallets.requireRow(wallet.id);
  const chain = services.wallets.chainOf(row);
  const accountPath = chain.config.blockchain.derivationPath;
  const deriver = await services.wallets.deriver(row);
  const configurations = JSON.stringify({ aml: { status: 'NOT_SCREENED' }, disableAutoSweep: false, enableGaslessWithdraw: false });
  const sample = await services.addresses.create(wallet.auth, wallet.id, {});
  // The allocator's own row for index 1: reuse its configurations shape, then continue from 2.
  const { rows: first } = await world.database.pool.query<{ configurations: unknown }>(
    `${BENCH_SQL}SELECT configurations FROM addresses WHERE id = $1`,
    [sample.id],
  );
  const conf = first[0] ? JSON.stringify(first[0].configurations) : configurations;
  // Every step-th index from `step` on (index 1, the allocator's, is never a recipient).
  const step = Math.max(2, Math.floor(count / transfers));
  const recipients: Recipient[] = [];
  const CHUNK = 5_000;
  let deriveMs = 0;
  let insertMs = 0;
  for (let start = 2; start <= count; start += CHUNK) {
    const t0 = performance.now();
    const ids: string[] = [];
    const indexes: number[] = [];
    const addresses: string[] = [];
    const paths: string[] = [];
    for (let i = start; i < start + CHUNK && i <= count; i++) {
      ids.push(uuidv7());
      indexes.push(i);
      const address = deriver.address(i);
      addresses.push(address);
      if (i % step === 0 && recipients.length < transfers) recipients.push({ address, amount: 1_000_000n + BigInt(recipients.length + 1) });
      paths.push(`${accountPath}/${i}`);
    }
    const t1 = performance.now();
    deriveMs += t1 - t0;
    await world.database.pool.query(
      `${BENCH_SQL}INSERT INTO addresses (id, wallet_id, chain_id, derivation_index, address, name, metadata, type, derivation_path, configurations, created_at, updated_at)
       SELECT id, $1, $2, idx, addr, NULL, NULL, 'INTERNAL', p, $3::jsonb, now() - interval '1 day', now() - interval '1 day'
         FROM unnest($4::uuid[], $5::int[], $6::text[], $7::text[]) AS t(id, idx, addr, p)`,
      [wallet.id, chain.id, conf, ids, indexes, addresses, paths],
    );
    insertMs += performance.now() - t1;
  }
  await world.database.pool.query(`${BENCH_SQL}UPDATE wallets SET next_index = $2 WHERE id = $1`, [wallet.id, count + 1]);
  // Addresses that exist since long before the backfill, as in the scenario: the watch set
  // re-reads rows changed in the last 60 s on every step (OVERLAP_MS in watch.ts), which for
  // 100,000 fresh rows would add a full re-read to each step.
  await world.database.pool.query(
    `${BENCH_SQL}UPDATE addresses SET created_at = now() - interval '1 day', updated_at = now() - interval '1 day' WHERE id = $1`,
    [sample.id],
  );
  if (recipients.length < transfers) throw new Error(`only ${recipients.length} recipients among ${count} addresses`);
  await world.database.pool.query(`${BENCH_SQL}ANALYZE addresses`);
  return { recipients, deriveMs, insertMs };
}

async function sendTransfers(world: ExtraWorld, recipients: Recipient[], perTx: number, spanBlocks: number) {
  const { pub, wallet: faucet, account, usdc } = faucetClients(world);
  const artifact = await loadArtifact('BatchSender');
  const abi = artifact.abi as Abi;
  // Our own receipt wait: a short timeout with a diagnosis instead of viem's silent 180 s.
  const mined = async (hash: Hex, label: string) => {
    const started = Date.now();
    let nudged = false;
    for (;;) {
      const receipt = await pub.getTransactionReceipt({ hash }).catch(() => null);
      if (receipt) return receipt;
      if (!nudged && Date.now() - started > 3_000) {
        // Automine should have mined it at once; one manual block is harmless to the benchmark.
        await world.rpc('anvil_mine', ['0x1']);
        nudged = true;
      }
      if (Date.now() - started > 30_000) {
        const [tx, pool, latest, pending] = await Promise.all([
          world.rpc('eth_getTransactionByHash', [hash]),
          world.rpc('txpool_status').catch((e: Error) => e.message),
          world.rpc('eth_getTransactionCount', [account.address, 'latest']),
          world.rpc('eth_getTransactionCount', [account.address, 'pending']),
        ]);
        throw new Error(
          `${label}: not mined after 30 s; tx ${JSON.stringify(tx)}; txpool ${JSON.stringify(pool)}; faucet nonce latest ${latest} pending ${pending}`,
        );
      }
      await sleep(20);
    }
  };
  const deploy = await faucet.deployContract({ abi, bytecode: artifact.bytecode, chain: faucet.chain, account });
  const batch = (await mined(deploy, 'BatchSender deployment')).contractAddress!;
  await mined(await faucet.writeContract({ address: usdc, abi: erc20Abi, functionName: 'approve', args: [batch, maxUint256] }), 'approve');
  const before = await pub.getBlock({ blockTag: 'latest' });
  const cursorBefore = { blockNumber: before.number, blockHash: before.hash };
  const txs = Math.ceil(recipients.length / perTx);
  const gap = Math.max(0, Math.floor(spanBlocks / txs) - 1);
  let firstBlock = 0;
  let lastBlock = 0;
  let gas = 0n;
  for (let i = 0; i < txs; i++) {
    const slice = recipients.slice(i * perTx, (i + 1) * perTx);
    const hash = await faucet.writeContract({
      address: batch,
      abi,
      functionName: 'send',
      args: [usdc, slice.map((r) => r.address as Address), slice.map((r) => r.amount)],
      chain: faucet.chain,
      account,
      // ~27k gas per transfer to a fresh address; explicit, so no estimate runs 250 transfers first.
      gas: BigInt(slice.length) * 35_000n + 100_000n,
    });
    const receipt = await mined(hash, `batch ${i}`);
    if (receipt.status !== 'success' || receipt.logs.length !== slice.length)
      throw new Error(`batch ${i} failed (${receipt.status}, ${receipt.logs.length} logs)`);
    gas += receipt.gasUsed;
    if (i === 0) firstBlock = Number(receipt.blockNumber);
    lastBlock = Number(receipt.blockNumber);
    if (gap > 0 && i < txs - 1) await world.rpc('anvil_mine', [`0x${gap.toString(16)}`]);
  }
  return { cursorBefore, firstBlock, lastBlock, txs, gap, gasPerTransfer: Number(gas) / recipients.length };
}

/** Back to "never indexed": no deposits, events, deliveries or jobs; the cursor before the transfers. */
async function resetIndexing(world: ExtraWorld, wallet: BenchWallet, chainId: string, cursor: { blockNumber: bigint; blockHash: string }) {
  const q = (text: string, values: unknown[] = []) => world.database.pool.query(`${BENCH_SQL}${text}`, values);
  await q('DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE wallet_id = $1)', [wallet.id]);
  await q('DELETE FROM webhook_deliveries WHERE wallet_id = $1', [wallet.id]);
  await q('DELETE FROM events WHERE wallet_id = $1', [wallet.id]);
  await q("DELETE FROM transactions WHERE wallet_id = $1 AND type = 'DEPOSIT'", [wallet.id]);
  await q('DELETE FROM graphile_worker._private_jobs');
  await q('DELETE FROM chain_blocks WHERE chain_id = $1', [chainId]);
  await q(
    `INSERT INTO chain_cursors (chain_id, block_number, block_hash) VALUES ($1, $2, $3)
     ON CONFLICT (chain_id) DO UPDATE SET block_number = excluded.block_number, block_hash = excluded.block_hash`,
    [chainId, cursor.blockNumber.toString(), cursor.blockHash],
  );
  await q('VACUUM ANALYZE transactions, events, webhook_deliveries, webhook_attempts, chain_blocks, graphile_worker._private_jobs');
}

const INDEXER_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'backfill-indexer.ts');
const BARE_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'backfill-bare.ts');

export interface BareRun {
  ms: number;
  rows: number;
  rate: number;
  load1: number;
}

/** The bare baseline (bench/backfill-bare.ts) from `from` to the head, in its own process. */
async function bareRun(world: ExtraWorld, from: bigint, batchBlocks: number, transfers: number): Promise<BareRun> {
  const head = BigInt(await world.rpc<string>('eth_blockNumber'));
  const proc = spawn(process.execPath, ['--import', 'tsx', BARE_SCRIPT], {
    env: {
      ...process.env,
      DATABASE_URL: world.databaseUrl,
      CHAINS: JSON.stringify([world.chain.config]),
      FROM_BLOCK: from.toString(),
      TO_BLOCK: head.toString(),
      BATCH_BLOCKS: String(batchBlocks),
    },
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-10_000)));
  const run = await new Promise<{ ms: number; rows: number }>((resolve, reject) => {
    proc.on('message', (m: { type: string; run?: { ms: number; rows: number } }) => m.type === 'done' && resolve(m.run!));
    proc.once('exit', (code, signal) => reject(new Error(`bare process exited (${code ?? signal}) before reporting: ${stderr}`)));
  });
  if (proc.exitCode === null && proc.signalCode === null) await new Promise((resolve) => proc.once('exit', resolve));
  if (run.rows !== transfers) throw new Error(`the bare baseline wrote ${run.rows} transfers, not ${transfers}`);
  return { ...run, rate: (run.rows * 1000) / run.ms, load1: load1() };
}

/**
 * One run: a fresh indexer process (bench/backfill-indexer.ts) indexes from the stored
 * cursor until idle; then the rows are checked here. CPU shares cover exactly its stepping
 * (between its 'start' and 'done' messages).
 */
/** PostgreSQL's CPU time over a run (bench/cpu.ts: percent of one core over the wall time), µs per transfer. */
function pgCpuUsPerTransfer(r: BackfillRun): number {
  return (r.cpu.postgres * 10 * r.ms) / r.transfers;
}

async function backfillRun(
  world: ExtraWorld,
  wallet: BenchWallet,
  kek: Buffer,
  batchBlocks: number,
  expectedLower: string[],
  expectedTotal: bigint,
  profiles: { cpu: boolean; heap: boolean; tsx?: boolean },
): Promise<BackfillRun> {
  const probeMs = cpuProbeMs();
  // As deployed (plain node on dist/, see built-child.ts), or as `npm start` runs (tsx).
  const args = profiles.tsx ? ['--import', 'tsx', INDEXER_SCRIPT] : [builtChild(INDEXER_SCRIPT)];
  const proc = spawn(process.execPath, args, {
    env: {
      ...process.env,
      DATABASE_URL: world.databaseUrl,
      KEK: kek.toString('hex'),
      CHAINS: JSON.stringify([world.chain.config]),
      BATCH_BLOCKS: String(batchBlocks),
      TRANSFERS: String(expectedLower.length),
      BENCH_CPU_PROF: profiles.cpu ? '1' : '0',
      BENCH_HEAP_PROF: profiles.heap ? '1' : '0',
    },
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()).length > 20_000 && (stderr = stderr.slice(-10_000)));
  let before: CpuSnapshot | null = null;
  let startedAt = 0;
  const sessions = sampleSessions(world);
  const { run, cpu } = await new Promise<{ run: IndexerRunReport; cpu: CpuShare }>((resolve, reject) => {
    proc.on('message', (m: { type: string; run?: IndexerRunReport }) => {
      if (m.type === 'start') {
        before = cpuSnapshot();
        startedAt = performance.now();
        sessions.start();
      } else if (m.type === 'done' && before) {
        sessions.stop();
        resolve({ run: m.run!, cpu: cpuShare(before, cpuSnapshot(), performance.now() - startedAt) });
      }
    });
    proc.once('exit', (code, signal) => reject(new Error(`indexer process exited (${code ?? signal}) before reporting: ${stderr}`)));
  });
  if (proc.exitCode === null && proc.signalCode === null) await new Promise((resolve) => proc.once('exit', resolve));
  const check = await checkBackfill(world, wallet, expectedLower, expectedTotal);
  return {
    batchBlocks,
    rate: (expectedLower.length * 1000) / run.ms,
    ...run,
    check,
    cpu,
    load1: load1(),
    cpuProbeMs: probeMs,
    recordingSession: await sessions.result(),
  };
}

/**
 * What the indexer's recording session was doing, sampled every 5 ms from pg_stat_activity
 * (the session in a transaction): share of samples per state and wait event. "idle in
 * transaction / ClientRead" is the database waiting for the indexer process; "active" with
 * no wait event is the database working; IO and WAL waits are the disk.
 */
function sampleSessions(world: ExtraWorld) {
  const counts = new Map<string, number>();
  let total = 0;
  let running = false;
  let loop: Promise<void> = Promise.resolve();
  return {
    start() {
      running = true;
      loop = (async () => {
        const client = await world.database.pool.connect();
        try {
          while (running) {
            const { rows } = await client.query<{ what: string }>(
              `${BENCH_SQL}SELECT state || coalesce(' / ' || wait_event_type || ':' || wait_event, '') || CASE WHEN state = 'idle in transaction' OR wait_event_type = 'Lock' THEN ' at: ' || left(regexp_replace(query, '\\s+', ' ', 'g'), 50) ELSE '' END AS what FROM pg_stat_activity
                WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND xact_start IS NOT NULL
                  AND query NOT LIKE '/*bench*/%' AND query NOT LIKE '%graphile_worker%LISTEN%'`,
            );
            for (const r of rows) counts.set(r.what, (counts.get(r.what) ?? 0) + 1);
            total++;
            await sleep(5);
          }
        } finally {
          client.release();
        }
      })();
    },
    stop() {
      running = false;
    },
    async result(): Promise<Record<string, number>> {
      await loop;
      const out: Record<string, number> = {};
      for (const [k, v] of [...counts].sort((a, b) => b[1] - a[1])) out[k] = Math.round((v / Math.max(1, total)) * 1000) / 10;
      return out;
    },
  };
}

async function probeWatchSet(world: ExtraWorld, chain: ChainHandle, gc: () => void) {
  const ix = new ChainIndexer(world.services.db, chain, world.services.webhooks, world.services.events, world.logger);
  gc();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 10);
  const t = performance.now();
  await ix.watch.refresh();
  const ms = performance.now() - t;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  gc();
  const live = process.memoryUsage().heapUsed - before;
  const size = ix.watch.size; // keeps `ix` alive until here
  return { size, ms, liveMb: live / MB, peakMb: (peak - before) / MB };
}

async function checkBackfill(
  world: ExtraWorld,
  wallet: BenchWallet,
  expectedLower: string[],
  expectedTotal: bigint,
): Promise<BackfillCheck> {
  const { rows } = await world.database.pool.query<{ n: string; uniq: string; expected: string; success: string; total: string | null }>(
    `${BENCH_SQL}SELECT count(*) AS n, count(DISTINCT (hash, log_index)) AS uniq,
            count(DISTINCT lower(recipient_address)) FILTER (WHERE lower(recipient_address) = ANY($2::text[])) AS expected,
            count(*) FILTER (WHERE status = 'SUCCESS') AS success, sum(amount) AS total
       FROM transactions WHERE wallet_id = $1 AND type = 'DEPOSIT'`,
    [wallet.id, expectedLower],
  );
  const { rows: ev } = await world.database.pool.query<{ name: string; n: string; distinct_tx: string }>(
    `${BENCH_SQL}SELECT name, count(*) AS n, count(DISTINCT transaction_id) AS distinct_tx FROM events WHERE wallet_id = $1 GROUP BY name`,
    [wallet.id],
  );
  const r = rows[0]!;
  const n = expectedLower.length;
  const events = (name: string) => ev.find((e) => e.name === name);
  const processing = Number(events('deposit.processing')?.n ?? 0);
  const success = Number(events('deposit.success')?.n ?? 0);
  const c: BackfillCheck = {
    rows: Number(r.n),
    distinctTransfers: Number(r.uniq),
    expectedRecipients: Number(r.expected),
    success: Number(r.success),
    amountOk: r.total !== null && BigInt(r.total) === expectedTotal,
    processingEvents: processing,
    successEvents: success,
    ok: false,
  };
  c.ok =
    c.rows === n &&
    c.distinctTransfers === n &&
    c.expectedRecipients === n &&
    c.success === n &&
    c.amountOk &&
    processing === n &&
    success === n &&
    Number(events('deposit.processing')?.distinct_tx ?? 0) === n &&
    Number(events('deposit.success')?.distinct_tx ?? 0) === n;
  return c;
}

/** The detection-latency figures alone (for bench/run.ts): `benchDetection(opts).figures`. */
export async function detectionFigures(opts: DetectionOptions): Promise<ExtraFigure[]> {
  return (await benchDetection(opts)).figures;
}

/** The backfill figures alone (for bench/run.ts): `benchBackfill(opts).figures`. */
export async function backfillFigures(opts: BackfillOptions): Promise<ExtraFigure[]> {
  return (await benchBackfill(opts)).figures;
}
