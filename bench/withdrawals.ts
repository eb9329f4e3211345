/**
 * Issue-5 benchmark: N withdrawals (default 500) posted concurrently to one master wallet.
 *
 * Per run, on a fresh wallet (so a fresh master address, nonces from 0):
 * - acceptance: N POST /v1/wallets/{id}/withdraw (USDC, distinct destinations and
 *   references), all in flight at once over HTTP from a worker thread (the client has its
 *   own event loop, as on another machine); accepted/s = accepted / (last answer -
 *   first send), and the p50 / p99 latency of each answer;
 * - mining: the time from the first send until every withdrawal is SUCCESS in the database
 *   (the real worker, in its own process as in production, signs, broadcasts and tracks;
 *   production OutboundOptions);
 * - checks, from the database AND from the chain: the master's outbound nonces are
 *   contiguous from 0, each withdrawal has exactly one mined row and one on-chain
 *   transaction (the hashes the database holds are exactly the master's transactions in
 *   the blocks), and every destination holds exactly its amount;
 * - baseline, in the same run: a bare loop of viem `sendTransaction` (the same USDC
 *   transfer) from one funded local account, one after the other; tx/s = N / elapsed; the
 *   ratio printed is accepted/s / baseline tx/s.
 *
 * - AML screening (issue 26), in the same run: each run is measured twice on fresh wallets,
 *   without screening and with it (every destination is new, so each one is screened: the
 *   devnet's on-chain lists through Multicall3 and the OFAC sample list), in alternating
 *   order; the cost printed is 1 - (accepted/s with) / (accepted/s without), medians.
 *
 * Chain: anvil with 1 s blocks (BENCH_WD_BLOCK_TIME). Acceptance must not depend on
 * mining, and a block time is what a real chain has; automine would mine one block per
 * broadcast and measure anvil's block building instead.
 */
import { createPublicClient, createWalletClient, encodeFunctionData, erc20Abi, http, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Worker } from 'node:worker_threads';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { devnetChain } from '../src/devnet/chain.js';
import { importList, parseListFile } from '../src/modules/aml/service.js';
import { fmt, load1, sleep } from './stats.js';
import { withCpu } from './cpu.js';
import {
  benchChainSpec,
  check,
  countQueries,
  figure,
  logProfile,
  percentile,
  profiled,
  startExtraWorld,
  topStatements,
  type ExtraFigure,
  type ExtraWorld,
  type Log,
  type ProfileSummary,
} from './webhooks.js';

export interface WithdrawalBenchOptions {
  runs: number;
  /** Withdrawals per run, all posted at once. */
  count: number;
  /** Seconds between blocks (0 = automine). */
  blockTime: number;
  /** How long to wait for all to be mined before the run counts as failed. */
  minedTimeoutMs?: number;
  cpuProfile?: boolean;
  log: Log;
}

export interface WithdrawalRun {
  accepted: number;
  refused: Record<string, number>;
  acceptedPerSecond: number;
  acceptMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  minedMs: number | null;
  notSuccess: number;
  dbNonceGaps: number;
  chainNonceGaps: number;
  /** Withdrawals without exactly one mined outbound row / one on-chain transaction. */
  dbNotExactlyOnce: number;
  chainNotExactlyOnce: number;
  /** The master's transactions on chain that no withdrawal accounts for. */
  chainExtra: number;
  wrongBalances: number;
  baselineTxPerSecond: number;
  baselineMinedMs: number;
  ratio: number;
  /** Database transactions that created the accepted withdrawals (group commit), and their mean size. */
  batches: number;
  /** Each creating transaction: its size and when it wrote (ms after the first send). */
  timeline: { n: number; atMs: number }[];
  meanBatch: number;
  queriesPerWithdrawal: number;
  commitsPerWithdrawal: number;
  statements: ReturnType<typeof topStatements>;
  /** Percent of one core: node = the API process (and the client thread), worker = the worker process. */
  cpu: { node: number; worker: number; postgres: number; anvil: number; foreign: number; serverLoopBusy: number };
  load1: number;
  profile?: ProfileSummary;
}

export interface WithdrawalBenchReport {
  figures: ExtraFigure[];
  details: { settings: Record<string, unknown>; runs: WithdrawalRun[]; withoutAml: WithdrawalRun[]; pgSettings: Record<string, string> };
}

const AMOUNT = '0.01';
const AMOUNT_UNITS = 10_000n; // 0.01 USDC at 6 decimals

export async function benchWithdrawals(opts: WithdrawalBenchOptions): Promise<WithdrawalBenchReport> {
  const { log, count } = opts;
  const kek = randomBytes(32);
  const world = await startExtraWorld({ spec: benchChainSpec(1), blockTime: opts.blockTime, kek });
  let worker: ChildProcess | null = null;
  try {
    const { services } = world;
    // The worker in its own process, as production runs it: signing, broadcasting and
    // tracking do not share the API's event loop (its CPU shows as "worker" below).
    worker = await startWorkerProcess(world, kek);
    const usdc = services.catalogue
      .findChain(world.chain.config.blockchain.slug, world.chain.config.network)!
      .assets.find((a) => a.symbol === 'USDC')!;
    const viemChain = devnetChain(world.chain.config.chainId, world.chain.config.rpcUrl);
    const pub = createPublicClient({ chain: viemChain, transport: http(world.chain.config.rpcUrl) });
    const faucet = createWalletClient({
      chain: viemChain,
      transport: http(world.chain.config.rpcUrl),
      account: privateKeyToAccount(world.chain.faucet.privateKey as Hex),
    });
    const fund = async (to: string) => {
      await world.rpc('anvil_setBalance', [to, '0x56BC75E2D63100000']); // 100 ETH of gas
      const hash = await faucet.writeContract({
        address: usdc.address as Address,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [to as Address, AMOUNT_UNITS * BigInt(count) * 2n],
      });
      await pub.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    };
    log(
      `  ${count} USDC withdrawals per run, all posted at once; anvil ${opts.blockTime > 0 ? `${opts.blockTime} s blocks` : 'automine'}; PostgreSQL fsync=${world.pgSettings.fsync}, synchronous_commit=${world.pgSettings.synchronous_commit}; worker in its own process, concurrency 20`,
    );

    // Warm-up: connections, JIT, plans, the worker. Not measured.
    {
      const w = await world.newWallet('Bench withdrawals (warm-up)');
      await fund(w.address);
      const r = await postAll(world, w, bodiesFor(usdc.id, Math.min(100, count), 'warm'));
      if (r.accepted === 0) throw new Error(`warm-up withdrawals refused: ${JSON.stringify(r.refused)}`);
      await waitSettled(world, w.id, r.accepted, 120_000);
    }

    // The OFAC sample list in force, as an operator would have imported one.
    await importList(
      services.db,
      services.changes,
      'ofac',
      await parseListFile(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test/aml/fixtures/sdn.xml')),
    );
    await services.aml.lists.refresh();
    const runs: WithdrawalRun[] = [];
    /** The same runs with AML screening switched off (the withdrawals' `aml` dependency unset). */
    const plain: WithdrawalRun[] = [];
    const deps = services.withdrawals.deps as { aml?: unknown };
    const screening = deps.aml;
    for (let run = 1; run <= opts.runs; run++) {
      const measure = async (on: boolean) => {
        deps.aml = on ? screening : undefined;
        try {
          return await oneRun(world, opts, run, usdc.id, usdc.address as Address, fund, pub, worker!.pid!);
        } finally {
          deps.aml = screening;
        }
      };
      // Alternating order, so a drift of the machine's load over the run weighs on both alike.
      let r: WithdrawalRun;
      let off: WithdrawalRun;
      if (run % 2 === 1) {
        off = await measure(false);
        r = await measure(true);
      } else {
        r = await measure(true);
        off = await measure(false);
      }
      plain.push(off);
      runs.push(r);
      log(
        `  run ${run} without AML screening: accepted ${off.accepted}/${count} at ${fmt(off.acceptedPerSecond, 0)}/s (p50 ${fmt(off.p50Ms, 0)} ms, p99 ${fmt(off.p99Ms, 0)} ms); with: ${fmt(r.acceptedPerSecond, 0)}/s; cost ${fmt(100 * (1 - r.acceptedPerSecond / off.acceptedPerSecond), 1)}%`,
      );
      log(
        `  run ${run}: accepted ${r.accepted}/${count} at ${fmt(r.acceptedPerSecond, 0)}/s (${fmt(r.acceptMs, 0)} ms; p50 ${fmt(r.p50Ms, 0)} ms, p99 ${fmt(r.p99Ms, 0)} ms) | all mined ${r.minedMs === null ? 'NOT within the timeout' : `${fmt(r.minedMs / 1000, 2)} s`} | baseline viem loop ${fmt(r.baselineTxPerSecond, 0)} tx/s (mined ${fmt(r.baselineMinedMs / 1000, 2)} s) | ratio ${fmt(r.ratio, 2)} | load ${r.load1.toFixed(2)}`,
      );
      log(
        `         checks: not SUCCESS ${r.notSuccess}; nonce gaps db ${r.dbNonceGaps} chain ${r.chainNonceGaps}; not exactly once db ${r.dbNotExactlyOnce} chain ${r.chainNotExactlyOnce}; extra chain txs ${r.chainExtra}; wrong balances ${r.wrongBalances}${Object.keys(r.refused).length ? `; refused ${JSON.stringify(r.refused)}` : ''}`,
      );
      log(
        `         acceptance: ${r.batches} creating transactions (mean ${fmt(r.meanBatch, 1)} withdrawals each); ${fmt(r.queriesPerWithdrawal, 1)} SQL statements and ${fmt(r.commitsPerWithdrawal, 2)} COMMITs per withdrawal; cpu% (of one core) api ${fmt(r.cpu.node, 0)} (server loop busy ${fmt(r.cpu.serverLoopBusy, 0)}%) worker ${fmt(r.cpu.worker, 0)} pg ${fmt(r.cpu.postgres, 0)} anvil ${fmt(r.cpu.anvil, 0)} foreign ${fmt(r.cpu.foreign, 0)}`,
      );
      log(`         batches (size @ ms after the first send): ${r.timeline.map((b) => `${b.n} @ ${fmt(b.atMs, 0)}`).join(', ')}`);
      if (run === 1) {
        log('         statements during acceptance by client-side time (per withdrawal: count x avg ms = ms):');
        for (const st of r.statements)
          log(`           ${fmt(st.perUnit, 2)} x ${fmt(st.avgMs, 2)} = ${fmt(st.msPerUnit, 2)} ms  ${st.statement}`);
      }
      if (r.profile) logProfile(log, 'CPU profile of the acceptance burst (main thread)', r.profile);
    }

    const okRuns = runs.every(
      (r) =>
        r.accepted === count &&
        r.minedMs !== null &&
        r.notSuccess === 0 &&
        r.dbNotExactlyOnce === 0 &&
        r.chainNotExactlyOnce === 0 &&
        r.chainExtra === 0 &&
        r.wrongBalances === 0,
    );
    const gaps = runs.reduce((a, r) => a + r.dbNonceGaps + r.chainNonceGaps, 0);
    const figures: ExtraFigure[] = [
      figure(
        `withdrawals: accepted per second (${count} concurrent, one master)`,
        'withdrawals/s',
        runs.map((r) => r.acceptedPerSecond),
        '>= 300',
        (m) => m >= 300,
        0,
      ),
      figure(
        'withdrawals: accept latency p50',
        'ms',
        runs.map((r) => r.p50Ms),
        '-',
        undefined,
        0,
      ),
      figure(
        'withdrawals: accept latency p99',
        'ms',
        runs.map((r) => r.p99Ms),
        '-',
        undefined,
        0,
      ),
      figure(
        `withdrawals: time until all ${count} are mined (from the first POST)`,
        's',
        runs.map((r) => (r.minedMs ?? NaN) / 1000),
        '-',
        undefined,
        2,
      ),
      figure(
        'withdrawals: baseline bare viem sendTransaction loop, one account',
        'tx/s',
        runs.map((r) => r.baselineTxPerSecond),
        '-',
        undefined,
        0,
      ),
      figure(
        'withdrawals: ratio accepted/s / baseline tx/s',
        '',
        runs.map((r) => r.ratio),
        '-',
        undefined,
        2,
      ),
      figure(
        'withdrawals: accepted per second without AML screening (same run, alternating)',
        'withdrawals/s',
        plain.map((r) => r.acceptedPerSecond),
        '-',
        undefined,
        0,
      ),
      figure(
        'withdrawals: AML screening cost on acceptance, 1 - with/without (per run pair)',
        '%',
        runs.map((r, i) => 100 * (1 - r.acceptedPerSecond / plain[i]!.acceptedPerSecond)),
        '< 10',
        (m) => m < 10,
        1,
      ),
      check('withdrawals: nonce gaps, database and chain (all runs)', '', gaps, '= 0', gaps === 0),
      check(
        'withdrawals: runs with every withdrawal accepted, SUCCESS, exactly one tx on chain, balances right',
        'runs ok',
        runs.filter((r) => r.accepted === count && r.notSuccess === 0 && r.chainNotExactlyOnce === 0 && r.wrongBalances === 0).length,
        `= ${opts.runs}`,
        okRuns,
      ),
    ];
    return {
      figures,
      details: {
        settings: {
          count,
          runs: opts.runs,
          blockTime: opts.blockTime,
          amount: `${AMOUNT} USDC`,
          workerConcurrency: 20,
          workerProcess: true,
        },
        runs,
        withoutAml: plain,
        pgSettings: world.pgSettings,
      },
    };
  } finally {
    if (worker) await stopWorkerProcess(worker);
    await world.stop();
  }
}

type Wallet = Awaited<ReturnType<ExtraWorld['newWallet']>>;

async function oneRun(
  world: ExtraWorld,
  opts: WithdrawalBenchOptions,
  run: number,
  assetId: string,
  token: Address,
  fund: (to: string) => Promise<void>,
  pub: ReturnType<typeof createPublicClient>,
  workerPid: number,
): Promise<WithdrawalRun> {
  const { count } = opts;
  const wallet = await world.newWallet(`Bench withdrawals (run ${run})`);
  await fund(wallet.address);
  const startBlock = await pub.getBlockNumber({ cacheTime: 0 });

  // 1. Acceptance. Batches are counted where they write: one enqueueMany per transaction.
  const outbound = world.services.outbound;
  const enqueueMany = outbound.enqueueMany.bind(outbound);
  const sizes: number[] = [];
  const writtenAt: number[] = []; // epoch ms of each batch's writes (inside its transaction)
  outbound.enqueueMany = (tx, reqs) => {
    if (reqs.length > 0 && reqs[0]!.purpose === 'withdraw') {
      sizes.push(reqs.length);
      writtenAt.push(Date.now());
    }
    return enqueueMany(tx, reqs);
  };
  const bodies = bodiesFor(assetId, count, `r${run}`);
  const queries = countQueries();
  let posted!: Awaited<ReturnType<typeof postAll>>;
  let profile: ProfileSummary | undefined;
  const workerBefore = { ticks: ticksOf(workerPid), at: performance.now() };
  const { cpu } = await withCpu(async () => {
    const p = await profiled(opts.cpuProfile === true && run === 1, 'withdrawals-accept', () => postAll(world, wallet, bodies));
    posted = p.result;
    profile = p.profile;
  });
  const q = queries.stop();
  const workerCpu = ((ticksOf(workerPid) - workerBefore.ticks) * 10 * 100) / (performance.now() - workerBefore.at);
  outbound.enqueueMany = enqueueMany;

  // 2. Mining, as the database sees it.
  const minedMs = await waitSettled(world, wallet.id, posted.accepted, opts.minedTimeoutMs ?? 300_000).then((at) =>
    at === null ? null : at - posted.startedAt,
  );

  // 3. Checks.
  const db = world.services.db;
  const { rows: txs } = await sql<{ id: string; status: string; hash: string | null; recipient_address: string }>`
    SELECT id, status, hash, recipient_address FROM transactions WHERE wallet_id = ${wallet.id} AND type = 'WITHDRAW'`.execute(db);
  const notSuccess = txs.filter((t) => t.status !== 'SUCCESS').length + (count - txs.length);
  const { rows: outs } = await sql<{ owner_id: string; nonce: string; stage: string }>`
    SELECT owner_id, nonce, stage FROM outbound_txs WHERE from_address = ${wallet.address}`.execute(db);
  const minedRows = outs.filter((o) => o.stage === 'mined');
  const dbNonceGaps = gapsOf(minedRows.map((o) => BigInt(o.nonce)));
  const minedPerOwner = new Map<string, number>();
  for (const o of minedRows) minedPerOwner.set(o.owner_id, (minedPerOwner.get(o.owner_id) ?? 0) + 1);
  const dbNotExactlyOnce = txs.filter((t) => minedPerOwner.get(t.id) !== 1).length;

  const head = await pub.getBlockNumber({ cacheTime: 0 });
  const onChain: { hash: string; nonce: number }[] = [];
  for (let b = startBlock + 1n; b <= head; b++) {
    const block = await pub.getBlock({ blockNumber: b, includeTransactions: true });
    for (const t of block.transactions) {
      if (t.from.toLowerCase() === wallet.address.toLowerCase()) onChain.push({ hash: t.hash.toLowerCase(), nonce: t.nonce });
    }
  }
  const chainNonceGaps = gapsOf(onChain.map((t) => BigInt(t.nonce)));
  const chainHashes = new Map(onChain.map((t) => [t.hash, 0]));
  let chainNotExactlyOnce = 0;
  for (const t of txs) {
    const h = t.hash?.toLowerCase();
    if (!h || !chainHashes.has(h)) chainNotExactlyOnce++;
    else chainHashes.set(h, chainHashes.get(h)! + 1);
  }
  chainNotExactlyOnce += [...chainHashes.values()].filter((n) => n > 1).length;
  const chainExtra = [...chainHashes.values()].filter((n) => n === 0).length;
  const balances = await mapLimit(txs, 50, (t) =>
    pub.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [t.recipient_address as Address] }),
  );
  const wrongBalances = balances.filter((b) => b !== AMOUNT_UNITS).length;

  // 4. Baseline: a bare loop of viem sendTransaction from one account, the same transfer.
  const baseline = await baselineLoop(world, token, count, fund, pub);
  const acceptedPerSecond = posted.accepted / (posted.acceptMs / 1000);
  return {
    accepted: posted.accepted,
    refused: posted.refused,
    acceptedPerSecond,
    acceptMs: posted.acceptMs,
    p50Ms: percentile(posted.latencies, 50),
    p99Ms: percentile(posted.latencies, 99),
    maxMs: Math.max(...posted.latencies),
    minedMs,
    notSuccess,
    dbNonceGaps,
    chainNonceGaps,
    dbNotExactlyOnce,
    chainNotExactlyOnce,
    chainExtra,
    wrongBalances,
    baselineTxPerSecond: baseline.txPerSecond,
    baselineMinedMs: baseline.minedMs,
    ratio: acceptedPerSecond / baseline.txPerSecond,
    batches: sizes.length,
    timeline: sizes.map((n, i) => ({ n, atMs: writtenAt[i]! - posted.startedAt })),
    meanBatch: sizes.reduce((a, b) => a + b, 0) / Math.max(1, sizes.length),
    queriesPerWithdrawal: q.total / Math.max(1, posted.accepted),
    commitsPerWithdrawal: q.commits / Math.max(1, posted.accepted),
    statements: topStatements(q, Math.max(1, posted.accepted), 10),
    cpu: {
      node: cpu.node,
      worker: workerCpu,
      postgres: cpu.postgres,
      anvil: cpu.anvil,
      foreign: cpu.foreign,
      serverLoopBusy: cpu.elu ?? NaN,
    },
    load1: load1(),
    ...(profile ? { profile } : {}),
  };
}

/**
 * The client: posts every body at once from a worker thread with its own event loop (as a
 * separate client machine would), so parsing responses is not time taken from the
 * server's loop. Latency per answer, in ms.
 */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { url, headers, bodies } = workerData;
  const latencies = [];
  const results = [];
  let last = 0;
  const startedAt = Date.now();
  const t0 = performance.now();
  await Promise.all(bodies.map(async (body) => {
    const sent = performance.now();
    let key;
    try {
      const res = await fetch(url, { method: 'POST', headers, body });
      const json = await res.json();
      key = res.status === 200 && json.data && json.data.status === 'PENDING' ? 'ok' : (res.status + ' ' + (json.message || '')).slice(0, 120);
    } catch (err) {
      key = 'network: ' + err.message;
    }
    const done = performance.now();
    latencies.push(done - sent);
    if (done > last) last = done;
    results.push(key);
  }));
  parentPort.postMessage({ latencies, results, acceptMs: last - t0, startedAt });
})();
`;

const WORKER_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'withdrawals-worker.ts');

/** User + system CPU ticks (10 ms) of a process so far. */
function ticksOf(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return Number(f[11]) + Number(f[12]);
}

/** Starts bench/withdrawals-worker.ts on the world's database and chain; resolves when it takes jobs. */
function startWorkerProcess(world: ExtraWorld, kek: Buffer): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', WORKER_SCRIPT], {
    env: { ...process.env, DATABASE_URL: world.databaseUrl, KEK: kek.toString('hex'), CHAINS: JSON.stringify([world.chain.config]) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()).length > 20_000 && (stderr = stderr.slice(-10_000)));
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => d.toString().includes('worker ready') && resolve(proc));
    proc.once('exit', (code, signal) => reject(new Error(`worker process exited (${code ?? signal}): ${stderr}`)));
  });
}

async function stopWorkerProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** `n` request bodies to distinct fresh addresses (a curve multiplication each: made before anything is measured). */
function bodiesFor(assetId: string, n: number, tag: string): string[] {
  return Array.from({ length: n }, (_, i) =>
    JSON.stringify({ assetId, address: privateKeyToAccount(generatePrivateKey()).address, amount: AMOUNT, reference: `bench-${tag}-${i}` }),
  );
}

/** Posts the bodies at once. */
async function postAll(world: ExtraWorld, wallet: Wallet, bodies: string[]) {
  const url = `${world.baseUrl}/v1/wallets/${wallet.id}/withdraw`;
  const headers = { 'content-type': 'application/json', 'x-api-key': wallet.apiKey };
  const client = new Worker(CLIENT, { eval: true, workerData: { url, headers, bodies } });
  const r = await new Promise<{ latencies: number[]; results: string[]; acceptMs: number; startedAt: number }>((resolve, reject) => {
    client.once('message', resolve);
    client.once('error', reject);
  });
  await client.terminate();
  const refused: Record<string, number> = {};
  for (const key of r.results) if (key !== 'ok') refused[key] = (refused[key] ?? 0) + 1;
  return {
    accepted: r.results.filter((k) => k === 'ok').length,
    refused,
    latencies: r.latencies,
    acceptMs: r.acceptMs,
    startedAt: r.startedAt,
  };
}

/** Epoch ms when all `n` withdrawals of the wallet left PENDING; null on timeout. */
async function waitSettled(world: ExtraWorld, walletId: string, n: number, timeoutMs: number): Promise<number | null> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { rows } = await world.database.pool.query<{ n: string }>(
      "/*bench*/ SELECT count(*) AS n FROM transactions WHERE wallet_id = $1 AND type = 'WITHDRAW' AND status <> 'PENDING'",
      [walletId],
    );
    if (Number(rows[0]!.n) >= n) return Date.now();
    await sleep(50);
  }
  return null;
}

async function baselineLoop(
  world: ExtraWorld,
  token: Address,
  n: number,
  fund: (to: string) => Promise<void>,
  pub: ReturnType<typeof createPublicClient>,
): Promise<{ txPerSecond: number; minedMs: number }> {
  const account = privateKeyToAccount(generatePrivateKey());
  await fund(account.address);
  const viemChain = devnetChain(world.chain.config.chainId, world.chain.config.rpcUrl);
  const client = createWalletClient({ chain: viemChain, transport: http(world.chain.config.rpcUrl), account });
  const data = Array.from({ length: n }, () =>
    encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transfer',
      args: [privateKeyToAccount(generatePrivateKey()).address, AMOUNT_UNITS],
    }),
  );
  const t0 = performance.now();
  const hashes: Hex[] = [];
  for (const d of data) hashes.push(await client.sendTransaction({ to: token, data: d }));
  const sent = performance.now();
  await pub.waitForTransactionReceipt({ hash: hashes[hashes.length - 1]!, pollingInterval: 50, timeout: 120_000 });
  return { txPerSecond: n / ((sent - t0) / 1000), minedMs: performance.now() - t0 };
}

/** Nonces missing from 0 to the highest, plus duplicates: 0 for 0, 1, ..., n-1 (a fresh sender's). */
function gapsOf(nonces: bigint[]): number {
  if (nonces.length === 0) return 0;
  const distinct = new Set(nonces.map(String)).size;
  const highest = nonces.reduce((a, b) => (a > b ? a : b));
  return Number(highest) + 1 - distinct + (nonces.length - distinct);
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}
