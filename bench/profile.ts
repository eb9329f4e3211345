/**
 * Where the time goes, for one endpoint under the benchmark's load (not part of
 * `npm run bench`; run it when a target is missed):
 *
 *   npx tsx bench/profile.ts addresses|balances|ceiling [seconds] [--cpu-prof=/tmp/x.cpuprofile] [--heap-prof] [--what-if=a,b]
 *
 * With --cpu-prof, the server thread's V8 CPU profile of the measured window only (not the
 * start-up) is written to the file (open it in Chrome DevTools or speedscope).
 *
 * With --heap-prof, the top allocation sites of the measured window (V8's sampling heap
 * profiler, objects the GC already freed included): where the garbage collector's work comes from.
 *
 * --what-if patches the running service graph (never src/) to estimate what a change in
 * src/ would buy. These are measurement aids, not proposals to ship as written:
 *   rpc-batch     chain clients use viem's JSON-RPC batching (http(url, { batch: true }))
 *   rpc-nodehttp  chain clients use a node:http keep-alive transport instead of fetch
 *   cache-auth    API key -> auth context memoised for 5 s (saves 1 query per request)
 *   cache-wallet  wallet row memoised for 5 s (saves 1 query per request)
 *   cache-assets  a wallet's enabled assets memoised for 5 s (saves 1 query per balance read)
 *
 * The load generator runs in a child process here, so the CPU split is clean: per process
 * group (this Node server, PostgreSQL backends, anvil, the load generator, everything
 * else on the machine) from /proc, the server loop's utilisation, every SQL statement
 * (count, mean latency as the caller sees it), the chain RPC calls, the service stages,
 * and how many queries waited for one of the pool's connections.
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import http from 'node:http';
import { createPublicClient, custom, http as viemHttp, type Transport } from 'viem';
import { startWorld } from './world.js';
import { runLoad, type LoadSpec } from './loadgen.js';
import { startCeiling, balanceSpecs } from './balances.js';
import { fmt } from './stats.js';
import { cpuShare, cpuSnapshot } from './cpu.js';
import { heapSampled } from './heap-sampled.js';

const endpoint = process.argv[2] ?? 'balances';
const seconds = Number(process.argv.slice(3).find((a) => /^\d+(\.\d+)?$/.test(a)) ?? 10);
const cpuProf = process.argv.find((a) => a.startsWith('--cpu-prof='))?.slice('--cpu-prof='.length);
const heapProf = process.argv.includes('--heap-prof');
const whatIf = new Set((process.argv.find((a) => a.startsWith('--what-if='))?.slice('--what-if='.length) ?? '').split(',').filter(Boolean));
const WHAT_IFS = ['rpc-batch', 'rpc-nodehttp', 'cache-auth', 'cache-wallet', 'cache-assets'];
for (const w of whatIf) if (!WHAT_IFS.includes(w)) throw new Error(`unknown --what-if ${w}; one of ${WHAT_IFS.join(', ')}`);

/** Memoises an async method's result by a key for `ttlMs`. */
function memoise<T extends object>(obj: T, name: keyof T & string, key: (...args: any[]) => string, ttlMs = 5_000): void {
  const original = (obj[name] as (...a: unknown[]) => Promise<unknown>).bind(obj);
  const cache = new Map<string, { at: number; value: Promise<unknown> }>();
  (obj as Record<string, unknown>)[name] = (...args: unknown[]) => {
    const k = key(...args);
    const hit = cache.get(k);
    if (hit && Date.now() - hit.at < ttlMs) return hit.value;
    const value = original(...args);
    cache.set(k, { at: Date.now(), value });
    value.catch(() => cache.delete(k));
    return value;
  };
}

function nodeHttpTransport(url: string): Transport {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let id = 0;
  return custom({
    request: ({ method, params }: { method: string; params?: unknown }) =>
      new Promise((resolve, reject) => {
        const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params });
        const req = http.request(
          url,
          { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
          (res) => {
            let data = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (data += c));
            res.on('end', () => {
              try {
                const json = JSON.parse(data) as { result?: unknown; error?: { message: string } };
                if (json.error) reject(new Error(json.error.message));
                else resolve(json.result);
              } catch (err) {
                reject(err);
              }
            });
          },
        );
        req.on('error', reject);
        req.end(body);
      }),
  });
}
if (!['addresses', 'balances', 'ceiling'].includes(endpoint)) throw new Error('usage: profile.ts addresses|balances|ceiling [seconds]');

type Stat = { n: number; ms: number };
const stats = new Map<string, Stat>();
const record = (key: string, ms: number) => {
  const s = stats.get(key) ?? { n: 0, ms: 0 };
  s.n++;
  s.ms += ms;
  stats.set(key, s);
};

/** Times an async method in place (own property shadows the prototype's). */
function timeMethod<T extends object>(obj: T, name: keyof T & string, label: string): void {
  const original = (obj[name] as (...a: unknown[]) => Promise<unknown>).bind(obj);
  (obj as Record<string, unknown>)[name] = async (...args: unknown[]) => {
    const t = performance.now();
    try {
      return await original(...args);
    } finally {
      record(label, performance.now() - t);
    }
  };
}

function sqlLabel(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  const m = /^(select|insert into|update|delete from)\b.*?(?:from )?"?([a-z_]+)"?/i.exec(t);
  if (/^(begin|commit|rollback)/i.test(t)) return `sql ${t.split(' ')[0]!.toUpperCase()}`;
  if (!m) return `sql ${t.slice(0, 30)}`;
  const verb = m[1]!.toLowerCase();
  const table = verb === 'select' ? (/ from "?([a-z_]+)"?/i.exec(t)?.[1] ?? '?') : m[2]!;
  return `sql ${verb.split(' ')[0]!.toUpperCase()} ${table}${/for update/i.test(t) ? ' FOR UPDATE' : ''}`;
}

async function main(): Promise<void> {
  const world = await startWorld();
  const ceiling = await startCeiling();
  try {
    const pg = createRequire(import.meta.url)('pg') as typeof import('pg');
    const pool = world.database.pool;
    // Queries waiting for a pool connection, sampled.
    let samples = 0;
    let waitingSum = 0;
    let waitingMax = 0;
    const sampler = setInterval(() => {
      samples++;
      waitingSum += pool.waitingCount;
      waitingMax = Math.max(waitingMax, pool.waitingCount);
    }, 5);
    sampler.unref();

    const s = world.services;
    for (const chain of s.catalogue.chains()) {
      const adapter = chain.adapter as unknown as { client: unknown };
      const { client } = adapter as { client: { chain: Parameters<typeof createPublicClient>[0]['chain'] } };
      if (whatIf.has('rpc-batch'))
        adapter.client = createPublicClient({
          chain: client.chain,
          transport: viemHttp(chain.config.rpcUrl, { batch: true, timeout: 15_000, retryCount: 2 }),
        });
      if (whatIf.has('rpc-nodehttp'))
        adapter.client = createPublicClient({ chain: client.chain, transport: nodeHttpTransport(chain.config.rpcUrl) });
    }
    if (whatIf.has('cache-auth')) memoise(s.apiKeys, 'authenticate', (key: string) => String(key));
    if (whatIf.has('cache-wallet'))
      memoise(s.wallets, 'require', (auth: { keyId: string }, walletId: string, db?: unknown) =>
        db ? `${Math.random()}` : `${auth.keyId}:${walletId}`,
      );
    if (whatIf.has('cache-assets')) memoise(s.walletAssets, 'enabled', (wallet: { id: string }) => wallet.id);
    if (whatIf.size) console.log(`what-if: ${[...whatIf].join(', ')}`);
    let spec: LoadSpec;
    if (endpoint === 'addresses') {
      spec = {
        url: `${world.baseUrl}/v1/wallets/${world.walletId}/addresses`,
        method: 'POST',
        headers: { 'x-api-key': world.apiKey, 'content-type': 'application/json' },
        body: '{}',
        connections: 50,
        duration: seconds,
      };
    } else {
      const specs = balanceSpecs(world, ceiling.url, { connections: 50, duration: seconds });
      spec = endpoint === 'balances' ? specs.balances : specs.ceiling;
    }
    // Warm-up, untimed.
    await runLoad({ ...spec, duration: 2 }, 'child');

    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: unknown, config: unknown, ...rest: unknown[]) {
      const text = typeof config === 'string' ? config : ((config as { text?: string }).text ?? '');
      const t = performance.now();
      const label = sqlLabel(text);
      const result = (query as (...a: unknown[]) => unknown).call(this, config, ...rest);
      if (result && typeof (result as Promise<unknown>).then === 'function') {
        (result as Promise<unknown>).then(
          () => record(label, performance.now() - t),
          () => record(`${label} (failed)`, performance.now() - t),
        );
      }
      return result;
    } as typeof query;
    timeMethod(s.apiKeys, 'authenticate', 'stage apiKeys.authenticate');
    timeMethod(s.wallets, 'require', 'stage wallets.require');
    timeMethod(s.walletAssets, 'enabled', 'stage walletAssets.enabled');
    timeMethod(s.balances, 'ofWallet', 'stage balances.ofWallet (whole)');
    timeMethod(s.addresses, 'create', 'stage addresses.create (whole)');
    for (const chain of s.catalogue.chains()) timeMethod(chain.adapter, 'getBalances', `rpc ${chain.key} getBalances (multicall eth_call)`);

    const session = cpuProf ? new Session() : null;
    if (session) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    const before = cpuSnapshot();
    const elu0 = performance.eventLoopUtilization();
    const t0 = performance.now();
    const r = await heapSampled(
      heapProf,
      (line) => console.log(line),
      () => runLoad(spec, 'child'),
      'the measured window',
    );
    const wall = performance.now() - t0;
    if (session && cpuProf) {
      const { profile } = await session.post('Profiler.stop');
      await writeFile(cpuProf, JSON.stringify(profile));
      session.disconnect();
    }
    const elu = performance.eventLoopUtilization(elu0);
    const cpu = cpuShare(before, cpuSnapshot(), wall);
    clearInterval(sampler);

    console.log(
      `\n${endpoint}${whatIf.size ? ` [what-if ${[...whatIf].join(', ')}]` : ''}: ${fmt(r.rate200, 0)} x 200/s over ${r.durationS}s, non-2xx ${r.non2xx}, p50 ${r.p50} ms, p99 ${r.p99} ms (load generator in a child process)`,
    );
    console.log(`server event loop utilisation: ${(elu.utilization * 100).toFixed(1)}%`);
    console.log(
      `pool (max ${pool.options.max}): mean ${(waitingSum / Math.max(1, samples)).toFixed(1)} queries waiting for a connection, max ${waitingMax}`,
    );
    console.log(`\nCPU during the run (${(wall / 1000).toFixed(1)} s wall; % of one core, the machine has 200%):`);
    const perOk = (pct: number) => (r.ok200 ? `${(((pct / 100) * wall * 1000) / r.ok200).toFixed(0).padStart(6)} us of CPU per 200` : '');
    for (const [k, v] of Object.entries(cpu))
      console.log(`  ${k.padEnd(10)} ${v.toFixed(0).padStart(4)}%  ${k === 'machine' || k === 'foreign' ? '' : perOk(v)}`);

    const per = Math.max(1, r.completed);
    console.log(`\nper request (${r.completed} answered): count per request, mean ms per call, total ms`);
    for (const [k, v] of [...stats].sort((a, b) => a[0].localeCompare(b[0]))) {
      console.log(
        `  ${k.padEnd(52)} ${(v.n / per).toFixed(3).padStart(7)}  ${(v.ms / v.n).toFixed(2).padStart(8)} ms  ${v.ms.toFixed(0).padStart(8)}`,
      );
    }
    pg.Client.prototype.query = query;
  } finally {
    await ceiling.app.close();
    await world.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
