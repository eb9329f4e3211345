/**
 * Probes a benchmark process puts on itself: SQL statement counts and latencies (by
 * patching pg's Client), and the V8 CPU profile of a window with its summary. Kept apart
 * from webhooks.ts (whose worlds import the whole service) so that a child process built
 * from dist/ (backfill-indexer.ts, as production runs the indexer) loads nothing of src/
 * through them.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { fmt } from './stats.js';

type Log = (line: string) => void;

/**
 * Counts SQL statements sent by every pg client of this process (the service pool, the
 * graphile-worker pool, the indexer's session) until `stop()`. Statements whose text
 * starts with the BENCH_SQL marker (the benchmark's own polling) are not counted.
 */
export const BENCH_SQL = '/*bench*/ ';
export interface QueryCounts {
  total: number;
  /** Per statement shape (first words of the text): count and summed client-side latency (ms). */
  byStatement: Record<string, { n: number; ms: number }>;
  /** Statements naming the graphile_worker schema (the job queue's own, and add_job). */
  jobQueue: number;
  /** COMMITs of explicit transactions (Kysely `db.transaction()`). */
  commits: number;
}
export function countQueries(): { read(): QueryCounts; stop(): QueryCounts } {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const counts: QueryCounts = { total: 0, jobQueue: 0, commits: 0, byStatement: {} };
  proto.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0];
    const text = typeof q === 'string' ? q : ((q as { text?: unknown } | null)?.text as string | undefined);
    if (typeof text === 'string' && text.startsWith(BENCH_SQL)) return original.apply(this, args);
    counts.total++;
    if (typeof text === 'string') {
      if (text.includes('graphile_worker')) counts.jobQueue++;
      else if (/^\s*commit\b/i.test(text)) counts.commits++;
    }
    const key = typeof text === 'string' ? text.replace(/\s+/g, ' ').trim().slice(0, 90) : '(no text)';
    const stat = (counts.byStatement[key] ??= { n: 0, ms: 0 });
    stat.n++;
    const started = performance.now();
    const result = original.apply(this, args);
    if (result && typeof (result as Promise<unknown>).finally === 'function') {
      void (result as Promise<unknown>).finally(() => (stat.ms += performance.now() - started)).catch(() => undefined);
    }
    return result;
  };
  let stopped = false;
  return {
    read: () => ({ ...counts }),
    stop() {
      if (!stopped) proto.query = original;
      stopped = true;
      return { ...counts };
    },
  };
}

/** The statements with the most summed latency, per `per` (e.g. per delivery). */
export function topStatements(
  c: QueryCounts,
  per: number,
  limit = 8,
): { statement: string; perUnit: number; avgMs: number; msPerUnit: number }[] {
  return Object.entries(c.byStatement)
    .map(([statement, s]) => ({ statement, perUnit: s.n / per, avgMs: s.ms / s.n, msPerUnit: s.ms / per }))
    .sort((a, b) => b.msPerUnit - a.msPerUnit)
    .slice(0, limit);
}

export interface ProfileSummary {
  file: string;
  top: { name: string; selfMs: number; pct: number }[];
  byArea: { area: string; selfMs: number; pct: number }[];
}

/**
 * Runs `fn` under the V8 CPU profiler (this thread only: the receiver thread is not in it)
 * when `enabled`; writes the profile to the temp dir and summarizes its self time.
 */
export async function profiled<T>(enabled: boolean, name: string, fn: () => Promise<T>): Promise<{ result: T; profile?: ProfileSummary }> {
  if (!enabled) return { result: await fn() };
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  let outcome: { ok: true; value: T } | { ok: false; error: unknown };
  try {
    outcome = { ok: true, value: await fn() };
  } catch (error) {
    outcome = { ok: false, error };
  }
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  if (!outcome.ok) throw outcome.error;
  const file = path.join(tmpdir(), `${name}-${Date.now()}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  return { result: outcome.value, profile: { file, ...summarizeProfile(profile as unknown as CpuProfile) } };
}

export function logProfile(log: Log, title: string, p: ProfileSummary): void {
  log(`  ${title}: ${p.file}`);
  log(`    self time by area: ${p.byArea.map((a) => `${a.area} ${fmt(a.pct, 0)}%`).join(', ')}`);
  for (const f of p.top) log(`    ${fmt(f.pct, 1).padStart(5)}%  ${f.name}`);
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Self time by function and by area (our code, pg driver, Kysely, viem, GC, ...). */
export function summarizeProfile(p: CpuProfile): Omit<ProfileSummary, 'file'> {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const totalUs = [...self.values()].reduce((a, b) => a + b, 0);
  const fns = new Map<string, number>();
  const areas = new Map<string, number>();
  for (const [id, us] of self) {
    const f = byId.get(id)!.callFrame;
    const url = f.url.replace(/^file:\/\//, '');
    const short = url.includes('node_modules/')
      ? url.slice(url.lastIndexOf('node_modules/') + 13)
      : url.includes('/work/main/')
        ? url.slice(url.indexOf('/work/main/') + 11)
        : url;
    const name = `${f.functionName || '(anonymous)'} ${short ? `${short}:${f.lineNumber + 1}` : ''}`.trim();
    fns.set(name, (fns.get(name) ?? 0) + us);
    const area =
      f.functionName === '(idle)'
        ? 'idle (waiting on I/O)'
        : f.functionName === '(garbage collector)'
          ? 'GC'
          : f.functionName === '(program)'
            ? 'V8/native'
            : url.includes('node_modules/pg') || url.includes('node_modules/pg-')
              ? 'pg driver'
              : url.includes('node_modules/graphile-worker')
                ? 'graphile-worker'
                : url.includes('node_modules/kysely')
                  ? 'Kysely'
                  : url.includes('node_modules/viem') || url.includes('node_modules/ox') || url.includes('node_modules/@noble')
                    ? 'viem/noble'
                    : url.includes('/src/')
                      ? 'service code (src/)'
                      : url.includes('/bench/')
                        ? 'bench'
                        : url.startsWith('node:') || url === ''
                          ? 'Node core'
                          : 'other';
    areas.set(area, (areas.get(area) ?? 0) + us);
  }
  const toRows = (m: Map<string, number>) =>
    [...m].sort((a, b) => b[1] - a[1]).map(([name, us]) => ({ name, selfMs: us / 1000, pct: (us / totalUs) * 100 }));
  return {
    top: toRows(fns).slice(0, 15),
    byArea: toRows(areas).map((r) => ({ area: r.name, selfMs: r.selfMs, pct: r.pct })),
  };
}
