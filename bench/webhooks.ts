/**
 * Issue-3 benchmark: the webhook outbox and delivery pipeline, measured end to end.
 *
 * - Enqueue-to-first-attempt latency: events are emitted through the real outbox
 *   (`services.webhooks.emit(tx, ...)` in a DB transaction of their own, open loop at a
 *   steady rate), a real graphile worker (src/roles/worker.ts with src/jobs/tasks.ts)
 *   delivers them, and the latency is the time from the commit returning to the receiver
 *   getting the request (both clocks are `performance.timeOrigin + performance.now()`).
 * - Sustained deliveries per second: N events written in a few big transactions that are
 *   built in parallel and committed together (a barrier), so the whole backlog appears at
 *   once and the figure is the drain rate of the delivery pipeline, not the speed of our
 *   own enqueueing; measured until every delivery is `success` in the database. (Big
 *   transactions are also the real shape of a burst: the deposit indexer commits a whole
 *   block range of events in one transaction.)
 * - Ceiling, in the same run: a bare loop of `fetch` POSTs with the same body size and the
 *   same concurrency as the worker, to the same receiver; ratio = deliveries / ceiling.
 *
 * Every measured throughput run also records where the time goes: the claim and record
 * statements of the delivery runner (each covers a group of attempts), key reveals, HTTP
 * time, SQL statements and commits per delivery, and the CPU split.
 *
 * This module also holds the world assembly shared with bench/deposits.ts
 * (`startExtraWorld`), built like bench/world.ts: embedded PostgreSQL in a temp dir with
 * fsync on, the migrations, an anvil devnet, the real service graph and Fastify app.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';
import { createDatabase, type Database$ } from '../src/db/pool.js';
import { LocalKeyVault } from '../src/keys/vault.js';
import { createServices, type ServiceOptions, type Services } from '../src/services.js';
import { buildServer } from '../src/server.js';
import { startDevnet, type Devnet, type DevnetChain, type DevnetChainSpec } from '../src/devnet/devnet.js';
import { createLogger, type Logger } from '../src/lib/logger.js';
import { shortReference, uuidv7 } from '../src/lib/ids.js';
import { signatureHeaders } from '../src/lib/webhook-signature.js';
import { startWorker, type WorkerHandle } from '../src/roles/worker.js';
import { taskList } from '../src/jobs/tasks.js';
import type { AuthContext } from '../src/modules/apikeys/service.js';
import type { ChainConfig } from '../src/config/index.js';
import type { WebhookSender } from '../src/modules/webhooks/sender.js';
import { fmt, load1, rateOf, sleep, summarize } from './stats.js';
import { withCpu, type CpuShare } from './cpu.js';
import { nowMs, startBenchReceiver, type BenchReceiver } from './receiver.js';
import { BENCH_SQL, countQueries, logProfile, profiled, topStatements, type ProfileSummary } from './probes.js';

// Imported from here by the other benchmarks.
export {
  BENCH_SQL,
  countQueries,
  logProfile,
  profiled,
  summarizeProfile,
  topStatements,
  type ProfileSummary,
  type QueryCounts,
} from './probes.js';

// ---------------------------------------------------------------------------------------
// Shared pieces (also used by bench/deposits.ts and bench/run-extra.ts)
// ---------------------------------------------------------------------------------------

/** Same shape as the `Figure` of bench/run.ts, so these can be printed by it later. */
export interface ExtraFigure {
  name: string;
  unit: string;
  median: number;
  runs: number[];
  spreadPct: number | null;
  target: string;
  pass: boolean | null;
  /** Decimals when printed. */
  digits?: number;
}

export function figure(
  name: string,
  unit: string,
  values: number[],
  target = '-',
  passes?: (median: number) => boolean,
  digits?: number,
): ExtraFigure {
  const s = summarize(values);
  return {
    name,
    unit,
    median: s.median,
    runs: s.runs,
    spreadPct: values.length > 1 ? s.spreadPct : null,
    target,
    pass: passes ? passes(s.median) : null,
    ...(digits !== undefined ? { digits } : {}),
  };
}

/** A single count or check (no spread). */
export function check(name: string, unit: string, n: number, target: string, pass: boolean): ExtraFigure {
  return { name, unit, median: n, runs: [n], spreadPct: null, target, pass, digits: 0 };
}

/** Nearest-rank percentile (p in 0..100) of unsorted values. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))]!;
}

export type Log = (line: string) => void;

/** Average latency of a trivial statement sent serially (`SELECT 1`), in ms: the unit cost of a round trip. */
export async function sqlRoundTripMs(pool: pg.Pool, n = 300): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query(`${BENCH_SQL}SELECT 1`);
    const t = performance.now();
    for (let i = 0; i < n; i++) await client.query(`${BENCH_SQL}SELECT 1`);
    return (performance.now() - t) / n;
  } finally {
    client.release();
  }
}

/** "n/a" for a CPU share that came out negative (a process exited during the interval). */
export const cpuPct = (v: number) => (v < 0 ? 'n/a' : fmt(v, 0));

/** Transactions committed in the database so far (pg_stat_database; flushed about every second). */
export async function xactCommits(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    `${BENCH_SQL}SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()`,
  );
  return Number(rows[0]?.n ?? 0);
}

/** One devnet chain shaped like devnet-eth (6-decimal USDC and USDT) with its own confirmations. */
export function benchChainSpec(confirmations: number): DevnetChainSpec {
  return {
    slug: 'devnet-eth',
    name: 'Ethereum Devnet (anvil)',
    symbol: 'ETH',
    tokenStandard: 'ERC20',
    chainId: 31337,
    confirmations,
    tokens: [
      { symbol: 'USDC', name: 'USD Coin (devnet)', decimals: 6 },
      { symbol: 'USDT', name: 'Tether USD (devnet)', decimals: 6 },
    ],
  };
}

export interface BenchWallet {
  id: string;
  apiKey: string;
  address: string;
  auth: AuthContext;
}

export interface ExtraWorld {
  databaseUrl: string;
  database: Database$;
  services: Services;
  app: FastifyInstance;
  baseUrl: string;
  devnet: Devnet;
  /** The (only) devnet chain. */
  chain: DevnetChain;
  businessId: string;
  logger: Logger;
  /** PostgreSQL durability settings as the server reports them. */
  pgSettings: Record<string, string>;
  newWallet(name: string, opts?: { webhookUrl?: string; fundMaster?: boolean }): Promise<BenchWallet>;
  /** JSON-RPC call to the devnet. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  stop(): Promise<void>;
}

/** Worlds not yet stopped, so an interrupted run (Ctrl-C) can tear them down. */
export const activeWorlds = new Set<ExtraWorld>();

/**
 * A world like bench/world.ts (fsync on), with one devnet chain of the given spec and block
 * time, and the database URL exposed (the worker and the indexer open their own sessions).
 */
export async function startExtraWorld(opts: {
  spec: DevnetChainSpec;
  /** Seconds between blocks; 0 = automine. */
  blockTime: number;
  services?: Omit<ServiceOptions, 'logger'>;
  /** Size of the service's PostgreSQL pool (src/db/pool.ts default: 20). */
  poolMax?: number;
  /** Per-database settings (ALTER DATABASE ... SET), for diagnostic variants only. */
  databaseSettings?: Record<string, string>;
  /** The key-encryption key (default: random), for a worker process that must open the same wallets. */
  kek?: Buffer;
  /** More chains served beside the devnet's (e.g. a Tron stand-in's, bench/tron-deposits.ts). */
  extraChains?: ChainConfig[];
}): Promise<ExtraWorld> {
  const logger = createLogger('silent');
  const cleanups: (() => Promise<unknown>)[] = [];
  let world: ExtraWorld | null = null;
  const stop = async () => {
    if (world) activeWorlds.delete(world);
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((err) => console.error(`teardown step failed: ${(err as Error).message}`));
    }
  };
  try {
    // Not under /root: the embedded cluster runs as the `postgres` OS user (SETUP-NOTES).
    const dir = await mkdtemp(path.join(tmpdir(), 'wallet-bench-extra-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const pgServer: EmbeddedPostgres = await startEmbeddedPostgres({ dir, port: 0, durable: true, logger });
    cleanups.push(() => pgServer.stop());
    const admin = new pg.Client({ connectionString: pgServer.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE wallet_bench');
    for (const [name, value] of Object.entries(opts.databaseSettings ?? {})) {
      await admin.query(`ALTER DATABASE wallet_bench SET ${admin.escapeIdentifier(name)} = ${admin.escapeLiteral(value)}`);
    }
    await admin.end();
    const databaseUrl = pgServer.url('wallet_bench');
    await migrate(databaseUrl, logger);

    const devnet = await startDevnet({ portBase: 0, blockTime: opts.blockTime, logger, specs: [opts.spec] });
    cleanups.push(() => devnet.stop());
    const chain = devnet.chains[0]!;

    const database = createDatabase(databaseUrl, logger, opts.poolMax);
    cleanups.push(() => database.close());
    const services = await createServices(
      database.db,
      new LocalKeyVault(opts.kek ?? randomBytes(32)),
      {
        chains: [chain.config, ...(opts.extraChains ?? [])],
        addressLimit: 1_000_000,
        keyExport: { testnet: true, mainnet: false },
        webhookAllowPrivateTargets: true,
      },
      // databaseUrl: the in-memory caches (API keys, wallets) are on, as in production.
      { databaseUrl, ...opts.services, logger },
    );
    cleanups.push(async () => services.close());

    const app = await buildServer({ services, logger });
    cleanups.push(() => app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

    const { business } = await services.businesses.create('Bench Business');
    const settings = await database.pool.query<{ name: string; setting: string }>(
      "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method', 'max_connections')",
    );
    const pgSettings = Object.fromEntries(settings.rows.map((r) => [r.name, r.setting]));

    let rpcId = 0;
    const rpc = async <T = unknown>(method: string, params: unknown[] = []): Promise<T> => {
      const res = await fetch(chain.config.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
      });
      const body = (await res.json()) as { result?: T; error?: { message: string } };
      if (body.error) throw new Error(`${method}: ${body.error.message}`);
      return body.result as T;
    };

    const newWallet = async (name: string, o: { webhookUrl?: string; fundMaster?: boolean } = {}): Promise<BenchWallet> => {
      const { wallet, apiKey } = await services.wallets.createForBusiness(business.id, {
        blockchain: opts.spec.slug,
        network: chain.config.network,
        name,
      });
      const auth: AuthContext = { keyId: '', businessId: business.id, walletId: wallet.id };
      if (o.webhookUrl) await services.wallets.update(auth, wallet.id, { webhookUrl: o.webhookUrl });
      // Master wallets pay the gas top-ups of sweeps, as an operator's would.
      if (o.fundMaster) await rpc('anvil_setBalance', [wallet.address, '0x56BC75E2D63100000']);
      return { id: wallet.id, apiKey, address: wallet.address, auth };
    };

    world = {
      databaseUrl,
      database,
      services,
      app,
      baseUrl,
      devnet,
      chain,
      businessId: business.id,
      logger,
      pgSettings,
      newWallet,
      rpc,
      stop,
    };
    activeWorlds.add(world);
    return world;
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * A Transaction as the service sends it (deposit-shaped, with real wallet, blockchain,
 * asset and address views), so bodies have the production size (~3 KB).
 */
export async function realisticTransaction(world: ExtraWorld, wallet: BenchWallet): Promise<Record<string, unknown>> {
  const { services } = world;
  const row = await services.wallets.requireRow(wallet.id);
  const chain = services.wallets.chainOf(row);
  const usdc = chain.assets.find((a) => a.symbol === 'USDC')!;
  const address = await services.addresses.create(wallet.auth, wallet.id, { name: 'customer 42', metadata: { customerId: 'cus_0042' } });
  const now = new Date().toISOString();
  return {
    id: uuidv7(),
    reference: shortReference(),
    type: 'DEPOSIT',
    status: 'SUCCESS',
    confirmed: true,
    confirmations: 2,
    amount: '125.500000',
    amountPaid: '125.500000',
    amountUSD: '125.500000',
    currency: 'USDC',
    rate: '1',
    rateUSD: '1',
    toAmount: null,
    toCurrency: null,
    fee: null,
    feeHash: null,
    feeMetadata: null,
    gasFee: null,
    gasPrice: null,
    gasUsed: null,
    hash: `0x${randomBytes(32).toString('hex')}`,
    blockHash: `0x${randomBytes(32).toString('hex')}`,
    blockNumber: 1234567,
    chainId: chain.config.chainId,
    senderAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    recipientAddress: address.address,
    tokenAddress: usdc.address,
    note: null,
    reason: null,
    metadata: { customerId: 'cus_0042' },
    network: chain.row.network,
    createdChannel: 'BLOCKCHAIN',
    signedTransaction: null,
    amlScreening: {},
    assetSwept: false,
    assetSweptAmount: null,
    assetSweptAt: null,
    assetSweptGasFee: null,
    assetSweptHash: null,
    assetSweptRecipientAddress: null,
    assetSweptSenderAddress: null,
    assetSweptResponse: null,
    asset: services.catalogue.asset(usdc.id)?.view ?? null,
    blockchain: services.catalogue.blockchainView(chain),
    address,
    wallet: services.wallets.present(row),
    response: null,
    createdAt: now,
    updatedAt: now,
  };
}

// ---------------------------------------------------------------------------------------
// The webhook benchmark
// ---------------------------------------------------------------------------------------

export interface WebhookBenchOptions {
  runs: number;
  /** Events per latency run, emitted open loop at `latencyRate` per second. */
  latencyEvents: number;
  latencyRate: number;
  /** Events per throughput run, and the transactions they are written in. */
  throughputEvents: number;
  enqueueTransactions: number;
  throughputRuns: number;
  /** Worker concurrency (src/roles/worker.ts default when omitted: 20). */
  concurrency?: number;
  /** Service DB pool size (src/db/pool.ts default when omitted: 20). */
  poolMax?: number;
  /** Diagnostic variant: synchronous_commit = off for the database (commits do not wait for fsync). */
  asyncCommit?: boolean;
  /** CPU-profile the drain of the first throughput run (main thread). */
  cpuProfile?: boolean;
  log: Log;
}

interface DeliverPhases {
  /** HTTP sends. */
  count: number;
  claimCalls: number;
  /** Sums in ms (statements run concurrently with the sends, so they do not add up to a total). */
  claim: number;
  reveals: number;
  send: number;
  recordCalls: number;
  record: number;
  maxInFlight: number;
}

/**
 * Times the recorder's group statements (the `WITH o AS (SELECT * FROM json_to_recordset`
 * statement) at the pg client; returns the undo.
 */
function countRecordTime(phases: DeliverPhases): () => void {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0];
    const text = typeof q === 'string' ? q : ((q as { text?: unknown } | null)?.text as string | undefined);
    const result = original.apply(this, args);
    if (typeof text === 'string' && text.includes('UPDATE webhook_attempts wa')) {
      phases.recordCalls++;
      const t = performance.now();
      void (result as Promise<unknown>).finally(() => (phases.record += performance.now() - t)).catch(() => undefined);
    }
    return result;
  };
  let undone = false;
  return () => {
    if (!undone) proto.query = original;
    undone = true;
  };
}

export interface ThroughputRun {
  events: number;
  enqueueMs: number;
  /** Events written per second by the outbox (parallel transactions), info only. */
  enqueueRate: number;
  drainMs: number;
  rate: number;
  /** The same from the deliveries' own `updated_at` (cross-check of the polling). */
  rateDbClock: number;
  ceilingRate: number;
  ceilingErrors: number;
  ratio: number;
  notSuccess: number;
  retried: number;
  receiverConnections: number;
  /** Statement and HTTP time per delivery (they overlap: attempts run concurrently). */
  phasesMsPerDelivery: Record<string, number>;
  /** Claim and record statements per delivery (each covers a group of attempts). */
  claimsPerDelivery: number;
  recordsPerDelivery: number;
  /** Signing-key reveals (cache misses) in the run. */
  keyReveals: number;
  maxInFlight: number;
  queriesPerDelivery: number;
  jobQueueQueriesPerDelivery: number;
  commitsPerDelivery: number;
  dbCommitsPerDelivery: number;
  statements: ReturnType<typeof topStatements>;
  profile?: ProfileSummary;
  cpu: CpuShare;
  ceilingCpu: CpuShare;
  load1: number;
}

export interface WebhookBenchReport {
  figures: ExtraFigure[];
  details: {
    settings: Record<string, unknown>;
    bodyBytes: number;
    sqlRoundTripMs: number;
    latency: { p50: number; p99: number; max: number; n: number; load1: number }[];
    latencyPooled: { p50: number; p99: number; n: number };
    throughput: ThroughputRun[];
    signingPerSecond: number;
    pgSettings: Record<string, string>;
  };
}

const DEFAULT_CONCURRENCY = 20; // src/roles/worker.ts

export async function benchWebhooks(opts: WebhookBenchOptions): Promise<WebhookBenchReport> {
  const { log } = opts;
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  const world = await startExtraWorld({
    spec: benchChainSpec(1),
    blockTime: 0,
    ...(opts.poolMax ? { poolMax: opts.poolMax } : {}),
    ...(opts.asyncCommit ? { databaseSettings: { synchronous_commit: 'off' } } : {}),
  });
  let receiver: BenchReceiver | null = null;
  let worker: WorkerHandle | null = null;
  try {
    receiver = await startBenchReceiver();
    const rcv = receiver;
    const { services } = world;
    // The worker as src/runtime.ts starts it (same task list and periodic sweep).
    worker = await startWorker({
      connectionString: world.databaseUrl,
      logger: world.logger,
      taskList: taskList(services),
      ...(opts.concurrency ? { concurrency: opts.concurrency } : {}),
      periodic: [{ name: 'webhooks_sweep', everyMs: 30_000, run: () => services.webhooks.sweep() }],
    });

    const probeWallet = await world.newWallet('Bench webhooks (probe)', { webhookUrl: rcv.url });
    const template = await realisticTransaction(world, probeWallet);
    const sampleBody = JSON.stringify({ event: 'deposit.success', data: { ...template, benchKey: 'x'.repeat(12) } });
    const bodyBytes = Buffer.byteLength(sampleBody);
    const roundTripMs = await sqlRoundTripMs(world.database.pool);
    log(
      `  receiver ${rcv.url} (worker thread); worker concurrency ${concurrency}; body ${bodyBytes} bytes; PostgreSQL fsync=${world.pgSettings.fsync}, synchronous_commit=${world.pgSettings.synchronous_commit}; SQL round trip (SELECT 1, serial) ${fmt(roundTripMs, 3)} ms`,
    );

    const emitOne = (walletId: string, benchKey: string) =>
      world.services.db.transaction().execute((tx) =>
        services.webhooks.emit(tx, {
          walletId,
          transactionId: null,
          name: 'deposit.success',
          reference: shortReference(),
          data: { ...template, benchKey },
        }),
      );

    // Warm-up: connections, JIT, plans. Not measured.
    {
      const w = await world.newWallet('Bench webhooks (warm-up)', { webhookUrl: rcv.url });
      const before = rcv.received();
      await burst(world, w.id, template, 1_000, 4, 'warm-');
      await rcv.waitForCount(before + 1_000, 60_000);
      await waitAllSuccess(world, w.id, 1_000, 30_000);
      await fetchLoop(rcv.url, sampleBody, fetchHeaders(sampleBody), 1_000, concurrency);
    }

    // 1. Latency: open loop, one event per transaction.
    if (opts.latencyEvents > 0)
      log(`\n  latency: ${opts.latencyEvents} events per run, one transaction each, open loop at ${opts.latencyRate}/s, ${opts.runs} runs`);
    const latency: WebhookBenchReport['details']['latency'] = [];
    const pooled: number[] = [];
    const latWallet = await world.newWallet('Bench webhooks (latency)', { webhookUrl: rcv.url });
    const arrivals = new Map<string, number>();
    rcv.onHook = (h) => {
      if (h.key && !arrivals.has(h.key)) arrivals.set(h.key, h.at);
    };
    await rcv.setRecording(true);
    for (let run = 1; run <= (opts.latencyEvents > 0 ? opts.runs : 0); run++) {
      const commits = new Map<string, number>();
      const pending: Promise<unknown>[] = [];
      const start = nowMs();
      for (let i = 0; i < opts.latencyEvents; i++) {
        const wait = start + (i * 1000) / opts.latencyRate - nowMs();
        if (wait > 0) await sleep(wait);
        const key = `lat-${run}-${i}`;
        pending.push(emitOne(latWallet.id, key).then(() => commits.set(key, nowMs())));
      }
      await Promise.all(pending);
      const deadline = Date.now() + 30_000;
      while ([...commits.keys()].some((k) => !arrivals.has(k)) && Date.now() < deadline) await sleep(5);
      const values = [...commits].filter(([k]) => arrivals.has(k)).map(([k, c]) => arrivals.get(k)! - c);
      const missing = commits.size - values.length;
      const r = { p50: percentile(values, 50), p99: percentile(values, 99), max: Math.max(...values), n: values.length, load1: load1() };
      latency.push(r);
      pooled.push(...values);
      log(
        `  run ${run}: p50 ${fmt(r.p50, 1)} ms, p99 ${fmt(r.p99, 1)} ms, max ${fmt(r.max, 1)} ms (n=${r.n}${missing ? `, ${missing} NOT RECEIVED` : ''}; load ${r.load1.toFixed(2)})`,
      );
      await sleep(300);
    }
    await rcv.setRecording(false);
    rcv.onHook = null;

    // 2. Sustained deliveries, each run followed by its ceiling.
    const n = opts.throughputEvents;
    log(
      `\n  throughput: ${n} events per run written in ${opts.enqueueTransactions} parallel transactions committed together, then drained; ceiling: bare fetch loop, ${n} POSTs of ${bodyBytes} bytes, concurrency ${concurrency}`,
    );
    const throughput: ThroughputRun[] = [];
    for (let run = 1; run <= opts.throughputRuns; run++) {
      const wallet = await world.newWallet(`Bench webhooks (throughput ${run})`, { webhookUrl: rcv.url });
      const r = await throughputRun(
        world,
        rcv,
        wallet.id,
        template,
        n,
        opts.enqueueTransactions,
        concurrency,
        sampleBody,
        run,
        opts.cpuProfile === true && run === 1,
      );
      throughput.push(r);
      log(
        `  run ${run}: ${fmt(r.rate, 0)} deliveries/s (drain ${fmt(r.drainMs / 1000, 2)} s; db clock ${fmt(r.rateDbClock, 0)}/s) | ceiling ${fmt(r.ceilingRate, 0)} req/s | ratio ${fmt(r.ratio, 3)} | enqueue ${fmt(r.enqueueRate, 0)} events/s | not success ${r.notSuccess}, retried ${r.retried} | load ${r.load1.toFixed(2)}`,
      );
      const p = r.phasesMsPerDelivery;
      log(
        `         per delivery (ms, avg; overlapping): claim statements ${fmt(p.claim!, 2)} (${fmt(r.claimsPerDelivery, 3)} per delivery), HTTP ${fmt(p.send!, 2)}, record statements ${fmt(p.record!, 2)} (${fmt(r.recordsPerDelivery, 3)} per delivery); key reveals ${r.keyReveals}; in flight max ${r.maxInFlight}`,
      );
      log(
        `         SQL per delivery: ${fmt(r.queriesPerDelivery, 1)} statements (${fmt(r.jobQueueQueriesPerDelivery, 1)} job-queue), ${fmt(r.commitsPerDelivery, 1)} explicit COMMITs, ${fmt(r.dbCommitsPerDelivery, 1)} commits in pg_stat_database | receiver connections so far ${r.receiverConnections}`,
      );
      if (run === 1) {
        log('         statements by client-side time (per delivery: count x avg ms = ms):');
        for (const st of r.statements)
          log(`           ${fmt(st.perUnit, 2)} x ${fmt(st.avgMs, 2)} = ${fmt(st.msPerUnit, 2)} ms  ${st.statement}`);
      }
      if (r.profile) logProfile(log, 'CPU profile of the drain (main thread; the receiver thread is not in it)', r.profile);
      log(
        `         cpu% (of one core) drain: node ${cpuPct(r.cpu.node)} pg ${cpuPct(r.cpu.postgres)} foreign ${cpuPct(r.cpu.foreign)} | ceiling: node ${cpuPct(r.ceilingCpu.node)} foreign ${cpuPct(r.ceilingCpu.foreign)}`,
      );
    }

    // 3. Signing cost alone (both signatures of one body), for the analysis.
    const signing = rateOf(300, (i) => signatureHeaders(sampleBody, { id: `d${i}`, timestamp: 1_700_000_000, apiKey: probeWallet.apiKey }));

    const lat = { p50: latency.map((l) => l.p50), p99: latency.map((l) => l.p99) };
    const figures: ExtraFigure[] = [
      figure('webhooks: enqueue-to-first-attempt p50', 'ms', lat.p50, '-', undefined, 1),
      figure('webhooks: enqueue-to-first-attempt p99', 'ms', lat.p99, '< 100 ms', (m) => m < 100, 1),
      figure(
        'webhooks: sustained deliveries (200, success in DB)',
        'deliveries/s',
        throughput.map((t) => t.rate),
        '>= 1,000',
        (m) => m >= 1000,
        0,
      ),
      figure(
        'webhooks: ceiling bare fetch loop, same receiver',
        'req/s',
        throughput.map((t) => t.ceilingRate),
        '-',
        undefined,
        0,
      ),
      figure(
        'webhooks: ratio deliveries / ceiling',
        '',
        throughput.map((t) => t.ratio),
        '-',
        undefined,
        3,
      ),
      check(
        'webhooks: deliveries not success / retried (all runs)',
        '',
        throughput.reduce((a, t) => a + t.notSuccess + t.retried, 0),
        '= 0',
        throughput.every((t) => t.notSuccess === 0 && t.retried === 0),
      ),
      figure(
        'webhooks: outbox enqueue rate (info)',
        'events/s',
        throughput.map((t) => t.enqueueRate),
        '-',
        undefined,
        0,
      ),
    ];
    return {
      figures,
      details: {
        settings: {
          concurrency,
          poolMax: opts.poolMax ?? 20,
          latencyEvents: opts.latencyEvents,
          latencyRate: opts.latencyRate,
          throughputEvents: n,
          enqueueTransactions: opts.enqueueTransactions,
          runs: opts.runs,
          throughputRuns: opts.throughputRuns,
          synchronousCommit: world.pgSettings.synchronous_commit,
        },
        bodyBytes,
        sqlRoundTripMs: roundTripMs,
        latency,
        latencyPooled: { p50: percentile(pooled, 50), p99: percentile(pooled, 99), n: pooled.length },
        throughput,
        signingPerSecond: signing.perSecond,
        pgSettings: world.pgSettings,
      },
    };
  } finally {
    await worker?.stop().catch((err) => console.error(`worker stop failed: ${(err as Error).message}`));
    await receiver?.close();
    await world.stop();
  }
}

function fetchHeaders(body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'bench-ceiling/1.0',
    ...signatureHeaders(body, { id: uuidv7(), timestamp: Math.floor(Date.now() / 1000), apiKey: 'bench-ceiling-key' }),
  };
}

/** The ceiling: `concurrency` loops of fetch POSTs, `n` in all. */
async function fetchLoop(url: string, body: string, headers: Record<string, string>, n: number, concurrency: number) {
  let next = 0;
  let errors = 0;
  const started = nowMs();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next++;
        try {
          const res = await fetch(url, { method: 'POST', headers, body });
          await res.arrayBuffer();
          if (res.status !== 200) errors++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const ms = nowMs() - started;
  return { ms, rate: (n * 1000) / ms, errors };
}

/**
 * Writes `n` events for `walletId` in `k` transactions built in parallel; all commit
 * together once every one is built. Resolves with the barrier time and when all committed.
 */
async function burst(
  world: ExtraWorld,
  walletId: string,
  template: Record<string, unknown>,
  n: number,
  k: number,
  prefix: string,
  onRelease?: () => void,
) {
  let built = 0;
  let release!: () => void;
  const barrier = new Promise<void>((r) => (release = r));
  let releasedAt = 0;
  const started = nowMs();
  await Promise.all(
    Array.from({ length: k }, (_, j) =>
      world.services.db.transaction().execute(async (tx) => {
        for (let i = j; i < n; i += k) {
          await world.services.webhooks.emit(tx, {
            walletId,
            transactionId: null,
            name: 'deposit.success',
            reference: shortReference(),
            data: { ...template, benchKey: `${prefix}${i}` },
          });
        }
        if (++built === k) {
          onRelease?.();
          releasedAt = nowMs();
          release();
        }
        await barrier;
      }),
    ),
  );
  return { started, releasedAt, committedAt: nowMs() };
}

async function deliveryStatus(world: ExtraWorld, walletId: string) {
  const { rows } = await world.database.pool.query<{ ok: string; failed: string; retried: string; last: Date | null }>(
    `${BENCH_SQL}SELECT count(*) FILTER (WHERE status = 'success') AS ok, count(*) FILTER (WHERE status = 'failed') AS failed,
            count(*) FILTER (WHERE attempts > 1 OR (status = 'pending' AND response IS NOT NULL)) AS retried, max(updated_at) AS last
       FROM webhook_deliveries WHERE wallet_id = $1`,
    [walletId],
  );
  const r = rows[0]!;
  return { ok: Number(r.ok), failed: Number(r.failed), retried: Number(r.retried), last: r.last };
}

async function waitAllSuccess(world: ExtraWorld, walletId: string, n: number, stallMs: number) {
  let best = -1;
  let progressAt = Date.now();
  for (;;) {
    const s = await deliveryStatus(world, walletId);
    if (s.ok >= n || s.ok + s.failed + s.retried >= n) return { ...s, at: nowMs() };
    if (s.ok > best) {
      best = s.ok;
      progressAt = Date.now();
    } else if (Date.now() - progressAt > stallMs) return { ...s, at: nowMs() };
    await sleep(10);
  }
}

async function throughputRun(
  world: ExtraWorld,
  rcv: BenchReceiver,
  walletId: string,
  template: Record<string, unknown>,
  n: number,
  k: number,
  concurrency: number,
  sampleBody: string,
  run: number,
  cpuProfile: boolean,
): Promise<ThroughputRun> {
  const { services } = world;
  // Phase timers around the delivery pipeline (instance wrappers, removed after): the claim
  // statements (groups of attempts), key reveals (cache misses), HTTP sends, recording.
  const phases: DeliverPhases = { count: 0, claimCalls: 0, claim: 0, reveals: 0, send: 0, recordCalls: 0, record: 0, maxInFlight: 0 };
  const runner = services.webhooks.runner as unknown as {
    claim: (...a: unknown[]) => Promise<unknown[]>;
    flush: (...a: unknown[]) => Promise<void>;
    sender: WebhookSender;
  };
  const apiKeys = services.apiKeys as unknown as { revealWalletKey: (...a: unknown[]) => Promise<string | null> };
  const proto = Object.getPrototypeOf(runner) as typeof runner;
  const origSend = runner.sender.send;
  const origReveal = apiKeys.revealWalletKey;
  let inFlight = 0;
  runner.claim = function (this: unknown, ...args: unknown[]) {
    const t = performance.now();
    phases.claimCalls++;
    return proto.claim.apply(runner, args).finally(() => (phases.claim += performance.now() - t));
  };
  apiKeys.revealWalletKey = function (this: unknown, ...args: unknown[]) {
    phases.reveals++;
    return origReveal.apply(services.apiKeys, args);
  };
  runner.sender.send = function (this: WebhookSender, ...args: Parameters<WebhookSender['send']>) {
    const t = performance.now();
    phases.count++;
    inFlight++;
    if (inFlight > phases.maxInFlight) phases.maxInFlight = inFlight;
    return origSend.apply(this, args).finally(() => {
      inFlight--;
      phases.send += performance.now() - t;
    });
  };
  // The recorder's group statements: wrapped through the store call inside flush.
  const origQuery = countRecordTime(phases);

  try {
    const before = rcv.received();
    const commitsBefore = await xactCommits(world.database.pool);
    // Measured from the barrier: the k commits start then (they take a few ms).
    let counter: ReturnType<typeof countQueries> | null = null;
    const enq = await burst(world, walletId, template, n, k, `tp${run}-`, () => (counter = countQueries()));
    const {
      result: { result: done, cpu },
      profile,
    } = await profiled(cpuProfile, 'webhooks-drain', () =>
      withCpu(async () => {
        await rcv.waitForCount(before + n, 600_000).catch(() => undefined);
        return waitAllSuccess(world, walletId, n, 30_000);
      }),
    );
    const counts = (counter as ReturnType<typeof countQueries> | null)?.stop() ?? {
      total: NaN,
      jobQueue: NaN,
      commits: NaN,
      byStatement: {},
    };
    const drainMs = done.at - enq.releasedAt;
    await sleep(1_100); // pg_stat_database is flushed about once a second
    // Less the k transactions of the burst itself.
    const dbCommits = (await xactCommits(world.database.pool)) - commitsBefore - k;
    const lastDb = done.last ? done.last.getTime() : NaN;

    const ceilingBody = sampleBody;
    const { result: ceiling, cpu: ceilingCpu } = await withCpu(() =>
      fetchLoop(rcv.url, ceilingBody, fetchHeaders(ceilingBody), n, concurrency),
    );
    const per = (v: number) => (phases.count ? v / phases.count : NaN);
    origQuery();
    const rate = (n * 1000) / drainMs;
    return {
      events: n,
      enqueueMs: enq.releasedAt - enq.started,
      enqueueRate: (n * 1000) / (enq.releasedAt - enq.started),
      drainMs,
      rate,
      rateDbClock: (n * 1000) / (lastDb - enq.releasedAt),
      ceilingRate: ceiling.rate,
      ceilingErrors: ceiling.errors,
      ratio: rate / ceiling.rate,
      notSuccess: n - done.ok,
      retried: done.retried,
      receiverConnections: rcv.connections(),
      phasesMsPerDelivery: {
        claim: per(phases.claim),
        send: per(phases.send),
        record: per(phases.record),
      },
      claimsPerDelivery: per(phases.claimCalls),
      recordsPerDelivery: per(phases.recordCalls),
      keyReveals: phases.reveals,
      maxInFlight: phases.maxInFlight,
      queriesPerDelivery: counts.total / n,
      jobQueueQueriesPerDelivery: counts.jobQueue / n,
      commitsPerDelivery: counts.commits / n,
      dbCommitsPerDelivery: dbCommits / n,
      statements: topStatements(counts, n, 10),
      ...(profile ? { profile } : {}),
      cpu,
      ceilingCpu,
      load1: load1(),
    };
  } finally {
    origQuery();
    // Instance properties shadowing the prototype: drop them so the class methods apply again.
    delete (runner as { claim?: unknown }).claim;
    delete (runner.sender as { send?: unknown }).send;
    delete (apiKeys as { revealWalletKey?: unknown }).revealWalletKey;
  }
}

/** The webhook figures alone (for bench/run.ts): `benchWebhooks(opts).figures`. */
export async function webhookFigures(opts: WebhookBenchOptions): Promise<ExtraFigure[]> {
  return (await benchWebhooks(opts)).figures;
}
