/**
 * Per-test-file world: a fresh database cloned from the migrated template, real anvil
 * devnets (automine, free ports), the real service graph and the real HTTP server on a
 * loopback port. Tests talk to it with fetch, exactly as a client would.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { request as httpRequest } from 'node:http';
import pg from 'pg';
import { inject } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createDatabase, type Database$ } from '../../src/db/pool.js';
import { LocalKeyVault } from '../../src/keys/vault.js';
import { createServices, type ServiceOptions, type Services } from '../../src/services.js';
import { buildServer } from '../../src/server.js';
import {
  startDevnet,
  DEVNET_CHAINS,
  type Devnet,
  type DevnetChainSpec,
  type DevnetTemplates,
  type StartDevnetOptions,
} from '../../src/devnet/devnet.js';
import { createLogger } from '../../src/lib/logger.js';
import type { Clock } from '../../src/lib/clock.js';
import type { AppConfig, ChainConfig } from '../../src/config/index.js';
import type { SenderOptions } from '../../src/modules/webhooks/sender.js';
import { startWorker, type WorkerHandle } from '../../src/roles/worker.js';
import { taskList } from '../../src/jobs/tasks.js';

export interface TestWallet {
  id: string;
  apiKey: string;
  address: string;
  slug: string;
}

export interface Harness {
  baseUrl: string;
  app: FastifyInstance;
  services: Services;
  database: Database$;
  databaseUrl: string;
  devnet: Devnet;
  businessId: string;
  businessKey: string;
  /** One wallet per devnet chain, keyed by slug. */
  wallets: Record<string, TestWallet>;
  api: (
    method: string,
    path: string,
    opts?: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ) => Promise<ApiResponse>;
  logs: () => string;
  /** The key-encryption key, for a second process on the same database. */
  kek: Buffer;
  startWorker: () => Promise<void>;
  stopWorker: () => Promise<void>;
  stop: () => Promise<void>;
}

export interface ApiResponse {
  status: number;
  body: any;
  headers: Headers;
}

function rawRequest(url: string, method: string, headers: Record<string, string>, body: string): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const out = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') out.set(k, v);
        resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers: out }));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function createDatabaseFromTemplate(): Promise<string> {
  const adminUrl = inject('pgAdminUrl');
  const name = `wallet_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('pgTemplate')}`);
  await admin.end();
  return adminUrl.replace(/\/[^/]*$/, `/${name}`);
}

export async function dropDatabase(url: string): Promise<void> {
  const name = url.slice(url.lastIndexOf('/') + 1);
  const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}

/**
 * Devnet chains provisioned in this process, started again from their state (devnet.ts,
 * DevnetTemplates): deploying a chain's tokens, Multicall3, swap pool and price feeds is some
 * twenty transactions, and the test files of a fork start the same chains over and over.
 */
export const DEVNET_TEMPLATES: DevnetTemplates = new Map();

/**
 * A fresh database and the devnets, made side by side (one waits on PostgreSQL, the other on
 * anvil processes); if either fails, the other is undone.
 */
export async function databaseAndDevnet(
  devnetOptions: StartDevnetOptions,
  createDatabase: () => Promise<string>,
): Promise<{ databaseUrl: string; devnet: Devnet }> {
  const [database, devnet] = await Promise.allSettled([createDatabase(), startDevnet(devnetOptions)]);
  if (database.status === 'fulfilled' && devnet.status === 'fulfilled') return { databaseUrl: database.value, devnet: devnet.value };
  if (database.status === 'fulfilled') await dropDatabase(database.value).catch(() => undefined);
  if (devnet.status === 'fulfilled') await devnet.value.stop().catch(() => undefined);
  throw database.status === 'rejected' ? database.reason : (devnet as PromiseRejectedResult).reason;
}

/** Resolves `localhost` and nothing else: tests never reach a real DNS server. */
const localhostOnly: NonNullable<SenderOptions['resolveAll']> = (host, callback) =>
  host === 'localhost'
    ? callback(null, [{ address: '127.0.0.1', family: 4 }])
    : callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);

export interface HarnessOptions {
  specs?: DevnetChainSpec[];
  addressLimit?: number;
  keyExport?: { testnet: boolean; mainnet: boolean };
  /** API request limits (default: none, as before they existed; the service's own default is DEFAULT_API_KEY_LIMITS). */
  apiLimits?: { keyRate: number; authFailures: number; authFailureWindowS: number; authFailureDelayMs?: number };
  clock?: Clock;
  /** Run a graphile-worker with the real task list (webhook delivery, ...). */
  worker?: boolean;
  sender?: SenderOptions;
  /**
   * WEBHOOK_ALLOW_PRIVATE_TARGETS for this world. Default true: tests deliver to receivers on
   * loopback, as the embedded devnet allows. Names resolve through `sender.resolveAll`, by
   * default a table knowing only `localhost`, so no test sends a DNS query.
   */
  allowPrivateWebhookTargets?: boolean;
  /** Extra service options (outbound polling, indexer ranges, ...). */
  services?: Omit<ServiceOptions, 'clock' | 'logger' | 'sender'>;
  /** TRUST_PROXY for the HTTP server; default: no proxy trusted. */
  trustProxy?: boolean | number | string[];
  /**
   * Chains configured after the devnets (default none), e.g. a test double family's, whose
   * adapter `services.adapterFor` supplies. The harness makes no wallet on them.
   */
  extraChains?: ChainConfig[];
  /** AML screening settings (timeouts, cache); default the service's (modules/aml). */
  aml?: AppConfig['aml'];
  /** The service's pool: connections and how long a query waits for one (default createDatabase's). */
  pool?: { max: number; waitMs: number };
  /** The node URL the service is given for each chain, devnets' and extra ones (default its own), e.g. a proxy in front of it. */
  rpcUrlOf?: (config: ChainConfig) => string;
  /** The configuration the service is given for each devnet chain (default the devnet's own), e.g. as an operator wrote its chains file. */
  configOf?: (config: ChainConfig) => ChainConfig;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  let captured = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      captured += chunk.toString();
      done();
    },
  });
  const logger = createLogger('debug', sink);
  const { databaseUrl, devnet } = await databaseAndDevnet(
    { portBase: 0, blockTime: 0, logger, specs: opts.specs ?? DEVNET_CHAINS, templates: DEVNET_TEMPLATES },
    createDatabaseFromTemplate,
  );
  const database = opts.pool ? createDatabase(databaseUrl, logger, opts.pool.max, opts.pool.waitMs) : createDatabase(databaseUrl, logger);
  const kek = randomBytes(32);
  const services = await createServices(
    database.db,
    new LocalKeyVault(kek),
    {
      chains: [...devnet.chains.map((c) => opts.configOf?.(c.config) ?? c.config), ...(opts.extraChains ?? [])].map((c) =>
        opts.rpcUrlOf ? { ...c, rpcUrl: opts.rpcUrlOf(c) } : c,
      ),
      addressLimit: opts.addressLimit ?? 100_000,
      keyExport: opts.keyExport ?? { testnet: true, mainnet: false },
      webhookAllowPrivateTargets: opts.allowPrivateWebhookTargets ?? true,
      apiLimits: opts.apiLimits ?? { keyRate: 0, authFailures: 0, authFailureWindowS: 60 },
      ...(opts.aml ? { aml: opts.aml } : {}),
    },
    {
      logger,
      databaseUrl,
      ...opts.services,
      ...(opts.clock ? { clock: opts.clock } : {}),
      sender: { resolveAll: localhostOnly, ...opts.sender },
    },
  );
  let worker: WorkerHandle | null = opts.worker
    ? await startWorker({ connectionString: databaseUrl, logger, taskList: taskList(services) })
    : null;
  // Schemas compiled as routes are used: a world calls a few of the API's routes (lazy-schemas.ts).
  const app = await buildServer({
    services,
    logger,
    lazySchemas: true,
    ...(opts.trustProxy !== undefined ? { trustProxy: opts.trustProxy } : {}),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  services.checkouts.useBaseUrl(baseUrl);

  const { business, apiKey: businessKey } = await services.businesses.create('Test Business');
  const wallets: Record<string, TestWallet> = {};
  for (const chain of devnet.chains) {
    const slug = chain.config.blockchain.slug;
    const { wallet, apiKey } = await services.wallets.createForBusiness(business.id, {
      blockchain: slug,
      network: chain.config.network,
      name: `Test ${slug}`,
    });
    wallets[slug] = { id: wallet.id, apiKey, address: wallet.address, slug };
    // Master wallets pay gas (top-ups, withdrawals): give them native coin, as an operator would.
    await fetch(chain.config.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [wallet.address, '0x56BC75E2D63100000'] }),
    });
  }
  const defaultKey = Object.values(wallets)[0]?.apiKey ?? businessKey;

  const api: Harness['api'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    const key = o.key === undefined ? defaultKey : o.key;
    if (key !== null) headers['x-api-key'] = key;
    let body: string | undefined = o.rawBody;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    // fetch refuses a body on GET, which the spec's balances endpoint reads: use node:http.
    const res =
      method === 'GET' && body !== undefined
        ? await rawRequest(`${baseUrl}${path}`, method, headers, body)
        : await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };

  return {
    baseUrl,
    app,
    services,
    database,
    databaseUrl,
    devnet,
    businessId: business.id,
    businessKey,
    wallets,
    api,
    logs: () => captured,
    kek,
    async startWorker() {
      worker ??= await startWorker({ connectionString: databaseUrl, logger, taskList: taskList(services) });
    },
    async stopWorker() {
      await worker?.stop();
      worker = null;
    },
    async stop() {
      // Diagnosis of a flaky run: TEST_LOG_DIR=/tmp/x npx vitest run <file> keeps every harness's log.
      if (process.env.TEST_LOG_DIR) writeFileSync(join(process.env.TEST_LOG_DIR, `harness-${process.pid}-${Date.now()}.log`), captured);
      await worker?.stop();
      await app.close();
      await services.close();
      await database.close();
      await devnet.stop();
      await dropDatabase(databaseUrl);
    },
  };
}
