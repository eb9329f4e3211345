/**
 * Issue 11, item 7: a legitimate client's throughput alone, then while another client
 * address floods the same instance with random API keys, in one process; the ratio is
 * what the legitimate client keeps (target >= 80%).
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

const CONNECTIONS = 50;
const FLOOD_ADDRESS = '127.0.0.2';
const FLOOD_LEAD_S = 1;
const CHILD = fileURLToPath(new URL('./flood-child.ts', import.meta.url));

export interface AuthFloodOptions {
  runs: number;
  /** Seconds per measured run. */
  duration: number;
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
  stop(): Promise<Result>;
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
    stop() {
      if (child.connected) child.send('stop');
      return done;
    },
  };
}

const codes = (r: Result) => Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count]));

const LIMITS = { keyRate: 1_000_000, authFailures: 20, authFailureWindowS: 60 };

export async function benchAuthFlood(opts: AuthFloodOptions): Promise<AuthFloodReport> {
  const main = await measure(opts, LIMITS, '');
  if (!opts.diagnose) return main;
  opts.log('\n  diagnostic: the same with refusals sent at once (AUTH_FAILURE_DELAY_MS=0)');
  const at = await measure(opts, { ...LIMITS, authFailureDelayMs: 0 }, ' (refusals not held, diagnostic)');
  return {
    figures: [...main.figures, ...at.figures.map((f) => ({ ...f, target: '-', pass: null }))],
    details: { ...main.details, refusalsNotHeld: at.details },
  };
}

async function measure(
  opts: AuthFloodOptions,
  limits: typeof LIMITS & { authFailureDelayMs?: number },
  label: string,
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
      const flood = startFlood(legit.url, opts.duration + FLOOD_LEAD_S + 30);
      await sleep(FLOOD_LEAD_S * 1000);
      const { result: f, cpu: fc } = await withCpu(() => runLoad(legit, 'worker'));
      const fr = await flood.stop();
      await world.quiesce();
      alone.push(a);
      flooded.push(f);
      const floodRate = fr.requests.total / fr.duration;
      floods.push({ rate: floodRate, statusCodes: codes(fr), errors: fr.errors, durationS: fr.duration });
      log(
        `  run ${run}/${opts.runs}: alone ${fmt(a.rate200, 0)} req/s (p99 ${a.p99} ms, non-2xx ${a.non2xx}; ${fmtCpu(ac)})` +
          `\n             flooded ${fmt(f.rate200, 0)} req/s (p99 ${f.p99} ms, non-2xx ${f.non2xx}; ${fmtCpu(fc)}) | ratio ${(f.rate200 / a.rate200).toFixed(3)}` +
          `\n             flood from ${FLOOD_ADDRESS}: ${fmt(floodRate, 0)} req/s, status codes ${JSON.stringify(codes(fr))}, errors ${fr.errors}`,
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
        settings: { connections: CONNECTIONS, durationS: opts.duration, floodAddress: FLOOD_ADDRESS, limits },
      },
    };
  } finally {
    floodWorlds.delete(world);
    await world.stop();
  }
}
