/**
 * Where the load generator runs. The service and autocannon share this one Node process
 * and the machine's 2 cores, so the choice matters:
 *
 * - `inline`: autocannon on the server's own event loop. Every response autocannon parses
 *   and every request it writes is JavaScript time taken from the server's loop, so the
 *   figure is the server's throughput *minus* the load generator's share of one thread.
 * - `worker` (default): autocannon's own `workers: 1` mode, i.e. a worker_thread with its
 *   own event loop and V8 heap. It still uses CPU (the 2 cores are shared with PostgreSQL,
 *   anvil and the libuv pool either way), but it no longer stalls the server's loop, which
 *   is what a separate client machine would give. Its latencies are measured on a loop
 *   that is not busy serving requests, so p50/p99 are not inflated by the server's work.
 * - `child`: autocannon in a forked Node process; the same isolation as `worker` plus a
 *   separate process (for a cross-check; it measured the same as `worker`).
 *
 * `npx tsx bench/run.ts --compare-loadgen` measures all three briefly on both endpoints and
 * prints them; the measured figures are in run.ts's header.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon, { type Options, type Result } from 'autocannon';

export type LoadgenMode = 'inline' | 'worker' | 'child';
export const LOADGEN_MODES: LoadgenMode[] = ['inline', 'worker', 'child'];

export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  /** Seconds. */
  duration: number;
}

export interface LoadResult {
  mode: LoadgenMode;
  /** Wall-clock seconds autocannon measured. */
  durationS: number;
  ok200: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Requests written and responses read: the difference was in flight at the stop. */
  sent: number;
  completed: number;
  statusCodes: Record<string, number>;
  /** 200 responses per second of wall-clock time. */
  rate200: number;
  /** Latency of 2xx responses, milliseconds (autocannon's 1 ms resolution). */
  p50: number;
  p99: number;
  mean: number;
}

export async function runLoad(spec: LoadSpec, mode: LoadgenMode): Promise<LoadResult> {
  const opts: Options = {
    url: spec.url,
    method: spec.method,
    headers: spec.headers ?? {},
    ...(spec.body !== undefined ? { body: spec.body } : {}),
    connections: spec.connections,
    duration: spec.duration,
    timeout: 10,
  };
  let result: Result;
  if (mode === 'inline') result = await autocannon(opts);
  else if (mode === 'worker') result = await autocannon({ ...opts, workers: 1 });
  else result = await runInChild(opts);
  return toLoadResult(result, mode);
}

function toLoadResult(r: Result, mode: LoadgenMode): LoadResult {
  const statusCodes = Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count]));
  const ok200 = statusCodes['200'] ?? 0;
  return {
    mode,
    durationS: r.duration,
    ok200,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    sent: r.requests.sent,
    completed: r.requests.total,
    statusCodes,
    rate200: ok200 / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    mean: r.latency.mean,
  };
}

const CHILD = fileURLToPath(new URL('./loadgen-child.ts', import.meta.url));

function runInChild(opts: Options): Promise<Result> {
  return new Promise((resolve, reject) => {
    // process.execArgv carries tsx's loader flags, so the child runs TypeScript too.
    const child = fork(CHILD, [], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let reply: { result?: Result; error?: string } | null = null;
    child.once('message', (msg: { result?: Result; error?: string }) => (reply = msg));
    child.once('error', reject);
    // Settle on exit, once the child is reaped, so its CPU time is in our accounting.
    child.once('exit', (code) => {
      if (reply?.result) resolve(reply.result);
      else reject(new Error(`load generator child failed (exit code ${code}): ${reply?.error ?? 'no result'}`));
    });
    child.send(opts);
  });
}
