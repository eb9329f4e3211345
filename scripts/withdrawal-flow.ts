/**
 * How many source files a withdrawal's happy path touches, and how many job hand-offs it
 * makes (issue 25's figures). Run: `npx tsx scripts/withdrawal-flow.ts` (about 30 s; it
 * boots its own embedded PostgreSQL and anvil, as the benchmarks do, and removes them).
 *
 * What is counted, precisely:
 * - The world: bench/webhooks.ts's startExtraWorld (the real service graph, the API on
 *   loopback, one anvil devnet with 2 confirmations, automine) and the worker as
 *   src/runtime.ts starts it, in this process; no indexer (a withdrawal does not need one).
 * - One warm-up withdrawal runs first, so that connection set-up and first-use caches are
 *   not counted; then V8's precise coverage is reset and one measured withdrawal runs: a
 *   POST /v1/wallets/{id}/withdraw of 0.01 USDC from the master address to a fresh address,
 *   until its Transaction is SUCCESS with its 2 confirmations counted (blocks are mined every
 *   200 ms), its `withdraw.success` webhook answered 200 by a receiver, and no job is left.
 * - Files touched: the files under src/ (tests excluded) in which at least one function ran
 *   during that window, by V8 function counts (a file first loaded in the window counts:
 *   its module body ran). Reported in all, outside src/lib, src/db and src/http, and the
 *   domain files: src/modules and src/chains.
 * - Job hand-offs: the distinct jobs (task names) the worker ran for the withdrawal in the
 *   window; a job that queues itself again (a poll) is one hand-off. The sequence of runs is
 *   printed too. A scheduled job that happens to fall in the window (the crontab's
 *   minute tick) is left out and named.
 *
 * `--list` prints the domain files, `--all` every file touched.
 */
import { Session } from 'node:inspector/promises';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const srcUrl = pathToFileURL(path.join(root, 'src')).href + '/';

// Coverage starts before any of the service's code is loaded, so every function is counted.
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

const { createPublicClient, createWalletClient, erc20Abi, http } = await import('viem');
const { generatePrivateKey, privateKeyToAccount } = await import('viem/accounts');
const { sql } = await import('kysely');
const { benchChainSpec, startExtraWorld } = await import('../bench/webhooks.js');
const { devnetChain } = await import('../src/devnet/chain.js');
const { startWorker } = await import('../src/roles/worker.js');
const { taskList } = await import('../src/jobs/tasks.js');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SCHEDULED = new Set(['settlements_tick', 'idempotency_prune', 'auto_settle_resume', 'webhooks_sweep']);

/** Files under src/ with a function run since the last call (V8 resets the counts on each take). */
async function touchedFiles(): Promise<string[]> {
  const { result } = await session.post('Profiler.takePreciseCoverage');
  return result
    .filter((s) => s.url.startsWith(srcUrl) && !s.url.endsWith('.test.ts'))
    .filter((s) => s.functions.some((f) => f.ranges.some((r) => r.count > 0)))
    .map((s) => `src/${s.url.slice(srcUrl.length)}`)
    .sort();
}

const received: string[] = [];
const receiver: Server = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    received.push((JSON.parse(body) as { event: string }).event);
    res.writeHead(200).end('ok');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;

const world = await startExtraWorld({ spec: benchChainSpec(2), blockTime: 0 });
const ran: string[] = [];
const tasks = taskList(world.services);
const recorded = Object.fromEntries(
  Object.entries(tasks).map(([name, run]) => [
    name,
    async (payload: unknown, helpers: unknown) => {
      ran.push(name);
      return (run as (p: unknown, h: unknown) => Promise<void>)(payload, helpers);
    },
  ]),
);
const worker = await startWorker({
  connectionString: world.databaseUrl,
  logger: world.logger,
  taskList: recorded as typeof tasks,
  periodic: [
    { name: 'webhooks_sweep', everyMs: 30_000, run: () => world.services.webhooks.sweep() },
    { name: 'outbound_sweep', everyMs: 15_000, run: () => world.services.outbound.sweepStuck() },
  ],
});
let mining = true;
try {
  const wallet = await world.newWallet('Flow', { webhookUrl: receiverUrl, fundMaster: true });
  const chainConfig = world.chain.config;
  const usdc = world.services.catalogue
    .findChain(chainConfig.blockchain.slug, chainConfig.network)!
    .assets.find((a) => a.symbol === 'USDC')!;
  const viemChain = devnetChain(chainConfig.chainId, chainConfig.rpcUrl);
  const pub = createPublicClient({ chain: viemChain, transport: http(chainConfig.rpcUrl) });
  const faucet = createWalletClient({
    chain: viemChain,
    transport: http(chainConfig.rpcUrl),
    account: privateKeyToAccount(world.chain.faucet.privateKey as `0x${string}`),
  });
  const hash = await faucet.writeContract({
    address: usdc.address as `0x${string}`,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [wallet.address as `0x${string}`, 1_000_000n],
  });
  await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  // Confirmations need blocks after the withdrawal's: mined here, a few a second.
  void (async () => {
    while (mining) {
      await world.rpc('anvil_mine', ['0x1']).catch(() => undefined);
      await sleep(200);
    }
  })();

  const withdraw = async (): Promise<void> => {
    const hooks = received.length;
    const res = await fetch(`${world.baseUrl}/v1/wallets/${wallet.id}/withdraw`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': wallet.apiKey },
      body: JSON.stringify({ assetId: usdc.id, address: privateKeyToAccount(generatePrivateKey()).address, amount: '0.01' }),
    });
    if (res.status !== 200) throw new Error(`withdraw answered ${res.status}: ${await res.text()}`);
    const id = ((await res.json()) as { data: { id: string } }).data.id;
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error('the withdrawal did not complete within 60 s');
      const { rows } = await sql<{ status: string; confirmations: number | null; jobs: string }>`
        SELECT t.status, t.confirmations, (SELECT count(*) FROM graphile_worker.jobs) AS jobs
          FROM transactions t WHERE t.id = ${id}`.execute(world.database.db);
      const row = rows[0];
      const hooked = received.slice(hooks).includes('withdraw.success');
      if (row?.status === 'SUCCESS' && (row.confirmations ?? 0) >= 2 && hooked && Number(row.jobs) === 0) return;
      await sleep(100);
    }
  };

  await withdraw(); // warm-up
  await sleep(500);
  await touchedFiles(); // resets the counts
  ran.length = 0;
  await withdraw();
  const files = await touchedFiles();
  const runs = [...ran];
  const scheduled = runs.filter((n) => SCHEDULED.has(n));
  const handOffs = [...new Set(runs.filter((n) => !SCHEDULED.has(n)))];
  const outside = files.filter((f) => !/^src\/(lib|db|http)\//.test(f));
  const domain = files.filter((f) => /^src\/(modules|chains)\//.test(f));
  console.log(`source files touched: ${files.length}; outside lib/db/http: ${outside.length}; domain (modules, chains): ${domain.length}`);
  console.log(`job hand-offs: ${handOffs.length} (${handOffs.join(' -> ')}); runs in order: ${runs.join(', ')}`);
  if (scheduled.length) console.log(`scheduled jobs in the window (not counted, their files are): ${scheduled.join(', ')}`);
  if (process.argv.includes('--list')) for (const f of domain) console.log(`  ${f}`);
  if (process.argv.includes('--all')) for (const f of files) console.log(`  ${f}`);
} finally {
  mining = false;
  await worker.stop();
  await world.stop();
  receiver.close();
  session.disconnect();
}
