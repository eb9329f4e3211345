/**
 * Benchmark 2: balance reads through GET /v1/wallets/{walletId}/balances (wallet with 2
 * enabled assets; every request authenticates and finds the wallet and its assets, from
 * the in-memory caches kept coherent by LISTEN/NOTIFY (docs/architecture.md, "Caching"),
 * and reads both balances on chain with one Multicall3 eth_call, shared by the requests
 * in flight together), against a bare Fastify GET route in the same process as the
 * ceiling. Runs are interleaved (balances, ceiling, balances, ceiling, ...) and the ratio
 * is taken per pair.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { runLoad, type LoadgenMode, type LoadResult, type LoadSpec } from './loadgen.js';
import { load1, summarize, type Summary } from './stats.js';
import { fmtCpu, withCpu, type CpuShare } from './cpu.js';
import type { World } from './world.js';

export interface BalancesOptions {
  runs: number;
  duration: number;
  connections: number;
  mode: LoadgenMode;
  log: (line: string) => void;
}

export interface BalancesReport {
  balances: LoadResult[];
  ceiling: LoadResult[];
  rate: Summary;
  p50: Summary;
  p99: Summary;
  non2xx: number;
  ceilingRate: Summary;
  ceilingP99: Summary;
  ratio: Summary;
  sample: unknown;
  loadDuring: number[];
  cpu: { balances: CpuShare; ceiling: CpuShare }[];
}

/** The ceiling: a minimal Fastify instance, one GET route, a small JSON object. */
export async function startCeiling(): Promise<{ url: string; app: FastifyInstance }> {
  const app = Fastify({ logger: false });
  app.get('/ping', async () => ({ ok: true, statusCode: 200, message: 'pong' }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/ping`, app };
}

export function balanceSpecs(
  world: World,
  ceilingUrl: string,
  opts: { connections: number; duration: number },
): { balances: LoadSpec; ceiling: LoadSpec } {
  return {
    balances: {
      url: `${world.baseUrl}/v1/wallets/${world.walletId}/balances`,
      method: 'GET',
      headers: { 'x-api-key': world.apiKey },
      connections: opts.connections,
      duration: opts.duration,
    },
    ceiling: { url: ceilingUrl, method: 'GET', connections: opts.connections, duration: opts.duration },
  };
}

export async function benchBalances(world: World, opts: BalancesOptions): Promise<BalancesReport> {
  const { log } = opts;
  const ceiling = await startCeiling();
  try {
    const specs = balanceSpecs(world, ceiling.url, opts);

    // One real request first: the route must answer 200 with both assets.
    const res = await fetch(specs.balances.url, { headers: specs.balances.headers! });
    const body = (await res.json()) as { data?: { asset: { asset: { symbol: string } }; balance: string }[] };
    if (res.status !== 200 || body.data?.length !== 2)
      throw new Error(`balances sanity request failed: ${res.status} ${JSON.stringify(body)}`);
    const sample = body.data.map((b) => `${b.asset.asset.symbol}=${b.balance}`).join(', ');
    log(`  sanity: GET .../balances -> 200, ${body.data.length} assets (${sample})`);
    // Production runs with the caches on; a world without its listener would measure the
    // uncached path and say nothing about what ships.
    if (!world.services.changes.live) throw new Error('the cache invalidation listener is not connected: caches are off');
    log(`  caches: on (invalidation listener connected; entries ${JSON.stringify(world.services.changes.sizes())})`);

    const warm = [
      await runLoad({ ...specs.balances, duration: Math.min(2, opts.duration) }, opts.mode),
      await world.quiesce().then(() => runLoad({ ...specs.ceiling, duration: Math.min(2, opts.duration) }, opts.mode)),
    ];
    log(`  warm-up: balances ${warm[0]!.rate200.toFixed(0)} req/s, ceiling ${warm[1]!.rate200.toFixed(0)} req/s`);

    const balances: LoadResult[] = [];
    const ceilings: LoadResult[] = [];
    const loadDuring: number[] = [];
    const cpu: { balances: CpuShare; ceiling: CpuShare }[] = [];
    for (let run = 1; run <= opts.runs; run++) {
      const { result: b, cpu: bc } = await withCpu(() => runLoad(specs.balances, opts.mode));
      loadDuring.push(load1());
      await world.quiesce(); // cut-off balance reads must not overlap the ceiling run
      const { result: c, cpu: cc } = await withCpu(() => runLoad(specs.ceiling, opts.mode));
      cpu.push({ balances: bc, ceiling: cc });
      balances.push(b);
      ceilings.push(c);
      log(
        `  run ${run}/${opts.runs}: balances ${b.rate200.toFixed(0)} req/s (p50 ${b.p50} ms, p99 ${b.p99} ms, non-2xx ${b.non2xx}, errors ${b.errors}; ${fmtCpu(bc)})` +
          `\n             ceiling ${c.rate200.toFixed(0)} req/s (p50 ${c.p50} ms, p99 ${c.p99} ms; ${fmtCpu(cc)}) | ratio ${(b.rate200 / c.rate200).toFixed(3)}`,
      );
    }
    return {
      balances,
      ceiling: ceilings,
      rate: summarize(balances.map((r) => r.rate200)),
      p50: summarize(balances.map((r) => r.p50)),
      p99: summarize(balances.map((r) => r.p99)),
      non2xx: [warm[0]!, ...balances].reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0),
      ceilingRate: summarize(ceilings.map((r) => r.rate200)),
      ceilingP99: summarize(ceilings.map((r) => r.p99)),
      ratio: summarize(balances.map((r, i) => r.rate200 / ceilings[i]!.rate200)),
      sample,
      loadDuring,
      cpu,
    };
  } finally {
    await ceiling.app.close();
  }
}
