/**
 * The backfill benchmark's indexer, in its own process as production runs the `indexer`
 * role (`node dist/main.js start indexer`: deposits.ts runs this file transpiled beside the
 * build, see built-child.ts; or under tsx, as `npm start -- indexer` runs it): a fresh
 * process opens the benchmark world's database and chain, builds the real service graph and
 * one ChainIndexer (as DepositService.indexer() builds it, with this run's range size), and
 * steps it from the stored cursor until idle.
 * Its memory is the indexer's alone: the benchmark's own data (100,000 derived addresses,
 * clients, the API server) lives in the parent.
 *
 * Environment: DATABASE_URL, KEK (hex, the world's), CHAINS (JSON of ChainConfig[]),
 * BATCH_BLOCKS, and BENCH_CPU_PROF / BENCH_HEAP_PROF = 1 for a profile of the run.
 * Talks to the parent over IPC: sends { type: 'start' } just before the first step, then
 * { type: 'done', run } (an IndexerRunReport) and exits.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createLogger } from '../src/lib/logger.js';
import { ChainIndexer } from '../src/modules/deposits/indexer.js';
import { countQueries, profiled, topStatements, type ProfileSummary } from './probes.js';
import { heapSampled } from './heap-sampled.js';
import { env, servicesFromEnv } from './child-services.js';

const MB = 1024 * 1024;

export interface MemoryMb {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/** What one run of the child reports (the parent adds the row check, CPU shares and load). */
export interface IndexerRunReport {
  ms: number;
  steps: number;
  transfers: number;
  /** RSS when the services were up, before the first step, MB. */
  baselineRssMb: number;
  /** Sampled every 50 ms over the run, MB. */
  peakRssMb: number;
  /** The kernel's peak RSS of the whole process life (VmHWM), MB; null when unavailable. */
  hwmRssMb: number | null;
  heapUsedPeakMb: number;
  /** process.memoryUsage() at the sample of the RSS peak, MB: how the peak splits (V8 heap committed, external). */
  atPeak: MemoryMb;
  afterGc: { rss: number; heapUsed: number };
  baseline: MemoryMb;
  phasesMs: Record<string, number>;
  calls: Record<string, number>;
  queriesPerTransfer: number;
  jobQueueQueriesPerTransfer: number;
  statements: ReturnType<typeof topStatements>;
  profile?: ProfileSummary;
  heapSites?: string[];
  /** CPU time of this process over the run (all its threads: process.cpuUsage), ms: robust to other work on the machine, unlike the rate. */
  cpuMs: number;
  /** BENCH_TRACE=1: time the recording transaction's connection had nothing to run, by the statement that ended the wait. */
  idleGaps?: { before: string; ms: number; n: number }[];
}

/**
 * BENCH_TRACE=1: per connection inside a transaction, the moments it had no statement
 * queued, summed by the statement that came next (what this process was preparing).
 */
function traceIdleGaps(): () => { before: string; ms: number; n: number }[] {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const state = new WeakMap<object, { inTx: boolean; outstanding: number; idleSince: number | null }>();
  const gaps = new Map<string, { ms: number; n: number }>();
  proto.query = function (this: object, ...args: unknown[]) {
    const q = args[0];
    const text = (typeof q === 'string' ? q : ((q as { text?: string } | null)?.text ?? '')).replace(/\s+/g, ' ').trim();
    let st = state.get(this);
    if (!st) state.set(this, (st = { inTx: false, outstanding: 0, idleSince: null }));
    const now = performance.now();
    if (st.inTx && st.outstanding === 0 && st.idleSince !== null) {
      const key = text.slice(0, 70);
      const g = gaps.get(key) ?? { ms: 0, n: 0 };
      g.ms += now - st.idleSince;
      g.n++;
      gaps.set(key, g);
    }
    if (/^begin/i.test(text)) st.inTx = true;
    if (/^(commit|rollback)/i.test(text)) st.inTx = false;
    st.outstanding++;
    const s = st;
    const result = original.apply(this, args) as Promise<unknown>;
    void result
      .finally(() => {
        s.outstanding--;
        if (s.outstanding === 0) s.idleSince = performance.now();
      })
      .catch(() => undefined);
    return result;
  };
  return () => {
    proto.query = original;
    return [...gaps]
      .map(([before, g]) => ({ before, ...g }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 12);
  };
}

function exposeGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** process.memoryUsage()'s figures in MB (the report's unit). */
function inMb(m: NodeJS.MemoryUsage): MemoryMb {
  return {
    rss: m.rss / MB,
    heapTotal: m.heapTotal / MB,
    heapUsed: m.heapUsed / MB,
    external: m.external / MB,
    arrayBuffers: m.arrayBuffers / MB,
  };
}

function vmHwmMb(): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const gc = exposeGc();
  const logger = createLogger('silent');
  const { database, services } = await servicesFromEnv(logger);
  const chain = services.catalogue.chains()[0]!;
  const batchBlocks = Number(env('BATCH_BLOCKS'));
  const transfers = Number(env('TRANSFERS'));

  const phases = { refresh: 0, rpc: 0, scan: 0, vanished: 0, record: 0, emit: 0, hooks: 0 };
  const calls = { emit: 0, hooks: 0 };
  const timed = <A extends unknown[], R>(
    fn: (...a: A) => Promise<R>,
    self: unknown,
    key: keyof typeof phases,
    count?: keyof typeof calls,
  ) =>
    async function (...args: A): Promise<R> {
      const t = performance.now();
      try {
        return await fn.apply(self, args);
      } finally {
        phases[key] += performance.now() - t;
        if (count) calls[count]++;
      }
    };
  // The deposit.confirmed subscribers (they queue the treasury jobs), timed as one call per range.
  const { events } = services;
  events.emit = timed(events.emit, events, 'hooks', 'hooks') as typeof events.emit;
  const ix = new ChainIndexer(services.db, chain, services.webhooks, events, logger, { batchBlocks, extraWindow: 64 });
  const priv = ix as unknown as Record<'record' | 'vanishedDeposits', (...a: unknown[]) => Promise<unknown>>;
  priv.record = timed(priv.record, ix, 'record');
  priv.vanishedDeposits = timed(priv.vanishedDeposits, ix, 'vanished');
  ix.watch.refresh = timed(ix.watch.refresh, ix.watch, 'refresh');
  const adapter = chain.adapter as unknown as Record<'getBlockNumber' | 'getBlock' | 'scan', (...a: unknown[]) => Promise<unknown>>;
  adapter.getBlockNumber = timed(adapter.getBlockNumber, chain.adapter, 'rpc');
  adapter.getBlock = timed(adapter.getBlock, chain.adapter, 'rpc');
  const scanTimed = timed(adapter.scan, chain.adapter, 'scan');
  adapter.scan = async (...a: unknown[]) => {
    const t = performance.now();
    try {
      return await scanTimed(...a);
    } finally {
      phases.rpc += performance.now() - t;
    }
  };
  // None of these calls another of the list: no time is counted twice.
  const wrap = (obj: object, names: string[], key: keyof typeof phases, count?: keyof typeof calls) => {
    const o = obj as Record<string, unknown>;
    for (const name of names.filter((n) => typeof o[n] === 'function')) {
      o[name] = timed(o[name] as (...a: unknown[]) => Promise<unknown>, obj, key, count);
    }
  };
  // Events of confirmations and reorgs (the events of new deposits are written inside
  // insertNew, overlapping its inserts: counted in the record phase).
  wrap(services.webhooks, ['emitForTransactions'], 'emit', 'emit');

  gc();
  await new Promise((r) => setTimeout(r, 200));
  gc();
  const mem = process.memoryUsage();
  let peak = mem.rss;
  let heapPeak = mem.heapUsed;
  let atPeak = mem;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    if (m.rss > peak) [peak, atPeak] = [m.rss, m];
    if (m.heapUsed > heapPeak) heapPeak = m.heapUsed;
  }, 50);
  const counter = countQueries();
  const trace = process.env.BENCH_TRACE === '1' ? traceIdleGaps() : null;
  const heapSites: string[] = [];
  process.send!({ type: 'start' });
  const cpu0 = process.cpuUsage();
  const { result, profile } = await profiled(process.env.BENCH_CPU_PROF === '1', 'backfill', () =>
    heapSampled(
      process.env.BENCH_HEAP_PROF === '1',
      (line) => heapSites.push(line),
      async () => {
        let steps = 0;
        const t0 = performance.now();
        while ((await ix.step()) === 'progress') steps++;
        return { ms: performance.now() - t0, steps };
      },
    ),
  );
  const cpuUsed = process.cpuUsage(cpu0);
  const counts = counter.stop();
  const idleGaps = trace?.();
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  const hwm = vmHwmMb();
  gc();
  const after = process.memoryUsage();
  const accounted = phases.refresh + phases.rpc + phases.vanished + phases.record;
  const run: IndexerRunReport = {
    ms: result.ms,
    steps: result.steps,
    transfers,
    cpuMs: (cpuUsed.user + cpuUsed.system) / 1000,
    baselineRssMb: mem.rss / MB,
    peakRssMb: peak / MB,
    hwmRssMb: hwm,
    heapUsedPeakMb: heapPeak / MB,
    atPeak: inMb(atPeak),
    afterGc: { rss: after.rss / MB, heapUsed: after.heapUsed / MB },
    baseline: inMb(mem),
    phasesMs: { ...phases, recordRest: phases.record - phases.emit - phases.hooks, other: result.ms - accounted },
    calls,
    queriesPerTransfer: counts.total / transfers,
    jobQueueQueriesPerTransfer: counts.jobQueue / transfers,
    statements: topStatements(counts, transfers, 10),
    ...(profile ? { profile } : {}),
    ...(heapSites.length ? { heapSites } : {}),
    ...(idleGaps ? { idleGaps } : {}),
  };
  await new Promise<void>((resolve, reject) =>
    process.send!({ type: 'done', run }, (err: Error | null) => (err ? reject(err) : resolve())),
  );
  await services.close();
  await database.close();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error((err as Error).stack ?? String(err));
    process.exit(1);
  },
);
