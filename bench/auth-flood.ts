/**
 * Issue 11, item 7 and issue 24, item 2: a legitimate client's throughput alone, then while
 * the same instance is flooded with random API keys, in one process; the ratio is what the
 * legitimate client keeps (target >= 80%). Two floods, each measured in a world of its own:
 *
 * - `single`: from one other client address (the per-address failure limit's case);
 * - `distributed`: from a new source address per request (127.10.0.1, 127.10.0.2, …; a
 *   botnet's case, where no per-address limit ever applies), open loop at
 *   BENCH_AUTH_FLOOD_RATE requests per second (default 810, the rate of the issue's probe),
 *   a new connection and a fresh well-formed random key per request
 *   (flood-distributed-child.ts). The flood's status codes and how many of its requests
 *   were answered are reported per run.
 *
 * - The instance is the benchmark world (world.ts: embedded PostgreSQL with fsync on,
 *   anvil, the real service graph and app) with the default limits on failed
 *   authentications (20 per address per 60 s, refusals held 1 s); the per-key rate is
 *   raised so it never refuses the legitimate client, which is measured at full speed.
 *   `--diagnose` measures a second world whose refusals are sent at once
 *   (AUTH_FAILURE_DELAY_MS=0), reported but not in the target.
 * - Legitimate client: autocannon in a worker thread (loadgen.ts), 50 connections,
 *   `GET /v1/wallets/{walletId}` with the wallet's key from 127.0.0.1 (key lookup and a
 *   wallet read in PostgreSQL per request).
 * - Flood: autocannon in a child process whose sockets leave from 127.0.0.2 (a second
 *   client address, flood-child.ts), 50 connections, a fresh random key on every request
 *   (`x-api-key: sk_test_[<id>]`), for the whole of the legitimate client's run plus a
 *   second before it. Every run's flood status codes are reported.
 * Runs alternate (alone, flooded, alone, flooded, ...) and the ratio is taken per pair.
 * Both load generators share the 2 cores with the server: the flood's own CPU counts
 * against the legitimate client here, as it would not with an attacker elsewhere.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Options, Result } from 'autocannon';
import { runLoad, type LoadResult, type LoadSpec } from './loadgen.js';
import { fmt, sleep, summarize } from './stats.js';
import { fmtCpu, withCpu } from './cpu.js';
import { figure, type ExtraFigure } from './webhooks.js';
import { startWorld, type World } from './world.js';
import type { DistributedFloodResult } from './flood-distributed-child.js';

const CONNECTIONS = 50;
const FLOOD_ADDRESS = '127.0.0.2';
const FLOOD_LEAD_S = 1;
const CHILD = fileURLToPath(new URL('./flood-child.ts', import.meta.url));
const DISTRIBUTED_CHILD = fileURLToPath(new URL('./flood-distributed-child.ts', import.meta.url));

export type FloodKind = 'single' | 'distributed';

export interface AuthFloodOptions {
  runs: number;
  /** Seconds per measured run. */
  duration: number;
  /** Which floods to measure (default both). */
  floods?: FloodKind[];
  /** Requests per second of the distributed flood (default 810). */
  distributedRate?: number;
  diagnose?: boolean;
  log: (line: string) => void;
}

export interface AuthFloodReport {
  figures: ExtraFigure[];
  details: Record<string, unknown>;
}

/** Worlds being used, so run-extra.ts can tear them down on a signal. */
export const floodWorlds = new Set<World>();

interface Flood {
  stop(): Promise<FloodOutcome>;
}

/** What a flood did, for either kind. */
interface FloodOutcome {
  rate: number;
  statusCodes: Record<string, number>;
  errors: number;
  durationS: number;
  /** Distributed only: requests offered but not sent (too many in flight) and sent but not answered. */
  skipped?: number;
  unanswered?: number;
}

function startFlood(url: string, seconds: number): Flood {
  const child = fork(CHILD, [], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const opts: Options = {
    url,
    method: 'GET',
    headers: { 'x-api-key': 'sk_test_flood_[<id>]' },
    idReplacement: true,
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 10,
  };
  const done = new Promise<Result>((resolve, reject) => {
    let reply: { result?: Result; error?: string } | null = null;
    child.once('message', (msg: { result?: Result; error?: string }) => (reply = msg));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (reply?.result) resolve(reply.result);
      else reject(new Error(`flood child failed (exit code ${code}): ${reply?.error ?? 'no result'}`));
    });
  });
  child.send({ opts, localAddress: FLOOD_ADDRESS });
  return {
    async stop() {
      if (child.connected) child.send('stop');
      const r = await done;
      return { rate: r.requests.total / r.duration, statusCodes: codes(r), errors: r.errors, durationS: r.duration };
    },
  };
}

/** A new source address per request, open loop at `rate` per second (flood-distributed-child.ts). */
function startDistributedFlood(url: string, rate: number): Flood {
  const child = fork(DISTRIBUTED_CHILD, [], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const done = new Promise<DistributedFloodResult>((resolve, reject) => {
    let reply: { result?: DistributedFloodResult } | null = null;
    child.once('message', (msg: { result?: DistributedFloodResult }) => (reply = msg));
    child.once('error', reject);
    child.once('exit', (code) =>
      reply?.result ? resolve(reply.result) : reject(new Error(`distributed flood child failed (exit code ${code})`)),
    );
  });
  child.send({ url, rate, maxOutstanding: 4_000 });
  return {
    async stop() {
      if (child.connected) child.send('stop');
      const r = await done;
      return {
        rate: r.answered / r.durationS,
        statusCodes: r.statusCodes,
        errors: r.errors,
        durationS: r.durationS,
        skipped: r.skipped,
        unanswered: r.sent - r.answered - r.errors,
      };
    },
  };
}

const codes = (r: Result) => Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count]));

// The installation's defaults for failed authentications (docs/configuration.md); the per-key rate out of the way.
const LIMITS = { keyRate: 1_000_000, authFailures: 20, authFailureWindowS: 60, authFailureBudget: 100 };

export async function benchAuthFlood(opts: AuthFloodOptions): Promise<AuthFloodReport> {
  const figures: ExtraFigure[] = [];
  const details: Record<string, unknown> = {};
  for (const kind of opts.floods ?? (['single', 'distributed'] as const)) {
    const label = kind === 'single' ? '' : ' (distributed flood)';
    if (kind === 'distributed')
      opts.log(`\n  distributed flood: a new source address per request, ${opts.distributedRate ?? DISTRIBUTED_RATE} req/s open loop`);
    const main = await measure(opts, LIMITS, label, kind);
    figures.push(...main.figures);
    details[kind] = main.details;
    if (!opts.diagnose) continue;
    opts.log('\n  diagnostic: the same with refusals sent at once (AUTH_FAILURE_DELAY_MS=0)');
    const at = await measure(opts, { ...LIMITS, authFailureDelayMs: 0 }, `${label} (refusals not held, diagnostic)`, kind);
    figures.push(...at.figures.map((f) => ({ ...f, target: '-', pass: null })));
    details[`${kind}RefusalsNotHeld`] = at.details;
  }
  return { figures, details };
}

const DISTRIBUTED_RATE = 810;

async function measure(
  opts: AuthFloodOptions,
  limits: typeof LIMITS & { authFailureDelayMs?: number },
  label: string,
  kind: FloodKind,
): Promise<AuthFloodReport> {
  const { log } = opts;
  const world = await startWorld({ apiLimits: limits });
  floodWorlds.add(world);
  try {
    const legit: LoadSpec = {
      url: `${world.baseUrl}/v1/wallets/${world.walletId}`,
      method: 'GET',
      headers: { 'x-api-key': world.apiKey },
      connections: CONNECTIONS,
      duration: opts.duration,
    };
    const res = await fetch(legit.url, { headers: legit.headers! });
    if (res.status !== 200) throw new Error(`legitimate client sanity request failed: ${res.status}`);
    const warm = await runLoad({ ...legit, duration: Math.min(2, opts.duration) }, 'worker');
    log(`  sanity: GET /v1/wallets/{id} -> 200; warm-up ${fmt(warm.rate200, 0)} req/s`);
    await world.quiesce();

    const alone: LoadResult[] = [];
    const flooded: LoadResult[] = [];
    const floods: Record<string, unknown>[] = [];
    for (let run = 1; run <= opts.runs; run++) {
      const { result: a, cpu: ac } = await withCpu(() => runLoad(legit, 'worker'));
      await world.quiesce();
      const flood =
        kind === 'single'
          ? startFlood(legit.url, opts.duration + FLOOD_LEAD_S + 30)
          : startDistributedFlood(legit.url, opts.distributedRate ?? DISTRIBUTED_RATE);
      await sleep(FLOOD_LEAD_S * 1000);
      const { result: f, cpu: fc } = await withCpu(() => runLoad(legit, 'worker'));
      const fr = await flood.stop();
      await world.quiesce();
      alone.push(a);
      flooded.push(f);
      const floodRate = fr.rate;
      floods.push({ ...fr });
      log(
        `  run ${run}/${opts.runs}: alone ${fmt(a.rate200, 0)} req/s (p99 ${a.p99} ms, non-2xx ${a.non2xx}; ${fmtCpu(ac)})` +
          `\n             flooded ${fmt(f.rate200, 0)} req/s (p99 ${f.p99} ms, non-2xx ${f.non2xx}; ${fmtCpu(fc)}) | ratio ${(f.rate200 / a.rate200).toFixed(3)}` +
          `\n             flood ${kind === 'single' ? `from ${FLOOD_ADDRESS}` : 'from a new address per request'}: ${fmt(floodRate, 0)} req/s answered, status codes ${JSON.stringify(fr.statusCodes)}, errors ${fr.errors}` +
          (fr.skipped !== undefined ? `, not sent (too many in flight) ${fr.skipped}, unanswered at the stop ${fr.unanswered}` : ''),
      );
    }
    const ratios = alone.map((a, i) => flooded[i]!.rate200 / a.rate200);
    const non2xx = [...alone, ...flooded].reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0);
    const s = summarize(ratios);
    log(`  ratio flooded / alone: median ${fmt(s.median, 3)} (runs ${ratios.map((r) => fmt(r, 3)).join(', ')})`);
    return {
      figures: [
        figure(
          `auth: legitimate client alone${label}`,
          'req/s',
          alone.map((r) => r.rate200),
          '-',
          undefined,
          0,
        ),
        figure(
          `auth: legitimate client under a random-key flood${label}`,
          'req/s',
          flooded.map((r) => r.rate200),
          '-',
          undefined,
          0,
        ),
        figure(
          `auth: flood requests answered${label}`,
          'req/s',
          floods.map((f) => f.rate as number),
          '-',
          undefined,
          0,
        ),
        figure(`auth: ratio flooded / alone${label}`, '', ratios, '>= 0.80', (m) => m >= 0.8, 3),
        {
          name: `auth: legitimate non-2xx + errors (all runs)${label}`,
          unit: '',
          median: non2xx,
          runs: [non2xx],
          spreadPct: null,
          target: '= 0',
          pass: non2xx === 0,
          digits: 0,
        },
      ],
      details: {
        alone,
        flooded,
        floods,
        ratios,
        settings: {
          connections: CONNECTIONS,
          durationS: opts.duration,
          flood:
            kind === 'single'
              ? { address: FLOOD_ADDRESS }
              : { rate: opts.distributedRate ?? DISTRIBUTED_RATE, sources: 'a new one per request' },
          limits,
        },
      },
    };
  } finally {
    floodWorlds.delete(world);
    await world.stop();
  }
}
