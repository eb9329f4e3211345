/**
 * Starts the service from a configuration: the embedded database and devnet when the
 * configuration asks for them, migrations, the catalogue, the demo data, then the roles.
 * `stop()` stops the roles together (the API drains its requests, workers finish or release
 * their jobs, indexers settle their range and release their locks, each bounded by
 * SHUTDOWN_TIMEOUT_MS), then tears down the rest in reverse order.
 */
import path from 'node:path';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from './config/index.js';
import type { Logger } from './lib/logger.js';
import { lockDataDir } from './lib/data-dir-lock.js';
import { checkKeyFilePermissions } from './keys/key-file-modes.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './db/embedded.js';
import { migrate } from './db/migrate.js';
import { createDatabase, type Database$ } from './db/pool.js';
import { openCustody } from './modules/custody/service.js';
import { createServices, type Services } from './services.js';
import type { Devnet } from './devnet/devnet.js';
import type { Credentials } from './devnet/seed.js';
import { buildServer } from './server.js';
import { startHealthServer } from './http/health-server.js';
import type { Checks } from './http/ops.js';
import { startWorker, type WorkerHandle } from './roles/worker.js';
import { taskList } from './jobs/tasks.js';
import { JOB } from './jobs/catalogue.js';
import { startIndexer, type IndexerHandle } from './roles/indexer.js';

import type { Role } from './roles/names.js';

export interface RuntimeOptions {
  config: AppConfig;
  roles: Role[];
  logger: Logger;
}

export interface Runtime {
  config: AppConfig;
  services: Services;
  databaseUrl: string;
  app: FastifyInstance | null;
  baseUrl: string | null;
  /** The probe server's base URL (HEALTH_PORT), when one runs. */
  healthUrl: string | null;
  devnet: Devnet | null;
  credentials: Credentials | null;
  stop(): Promise<void>;
}

export const EMBEDDED_DATABASE = 'wallet';

export async function startRuntime(opts: RuntimeOptions): Promise<Runtime> {
  const { config, logger } = opts;
  /** Shared parts (database, devnet, lock), stopped in reverse order after the roles. */
  const cleanups: (() => Promise<void>)[] = [];
  /** The roles, stopped together first. */
  const roleStops: (() => Promise<void>)[] = [];
  let stopping = false;
  let stopped: Promise<void> | null = null;
  const report = (err: unknown) => logger.warn({ err: (err as Error).message }, 'error during shutdown');
  const stop = () =>
    (stopped ??= (async () => {
      stopping = true;
      await Promise.all(roleStops.splice(0).map((s) => s().catch(report)));
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(report);
    })());
  try {
    // The data directory belongs to one running instance: a second start must neither stop
    // the first one's PostgreSQL and anvil as "left over" nor touch their files.
    if (config.embeddedDatabase || config.devnet) {
      const lock = await lockDataDir(config.dataDir);
      cleanups.push(() => lock.release());
      // Before anything starts: the key file is read by custody below, the directory holds credentials.
      await checkKeyFilePermissions(config.dataDir, {
        keyFile: usesKeyFile(config),
        allowInsecure: config.keys.allowInsecureKeyFilePermissions ?? false,
        logger,
      });
    }
    let databaseUrl = config.databaseUrl;
    if (config.embeddedDatabase) {
      const pgServer: EmbeddedPostgres = await startEmbeddedPostgres({ dir: config.dataDir, logger });
      cleanups.push(() => pgServer.stop());
      await ensureDatabase(pgServer.url(), EMBEDDED_DATABASE);
      databaseUrl = pgServer.url(EMBEDDED_DATABASE);
    }
    if (!databaseUrl) throw new Error('no database configured');
    await migrate(databaseUrl, logger);

    const database: Database$ = createDatabase(databaseUrl, logger);
    // A job released at the shutdown timeout may still hold a connection: do not wait for it.
    cleanups.push(async () => {
      if (!(await settlesWithin(database.close(), 5_000))) logger.warn('database connections still busy at exit; closing anyway');
    });
    // The master key(s) against the database's record, before anything is written: a wrong
    // or lost key stops the start (MasterKeyError, exit code 2). See modules/custody.
    const custody = await openCustody({
      db: database.db,
      keys: config.keys,
      keyFileDir: config.embeddedDatabase ? config.dataDir : null,
      logger,
    });
    cleanups.push(() => custody.close());

    let chains = config.chains;
    let devnet: Devnet | null = null;
    if (config.devnet) {
      // Loaded only here: production never loads the devnet (solc, contract artifacts).
      const { startDevnet } = await import('./devnet/devnet.js');
      devnet = await startDevnet({
        dir: path.join(config.dataDir, 'devnet'),
        portBase: config.devnetPortBase,
        blockTime: config.devnetBlockTime,
        logger,
        standIns: true,
      });
      const started = devnet;
      cleanups.push(() => started.stop());
      chains = devnet.chains.map((c) => c.config);
    }

    const services = await createServices(
      database.db,
      custody.vault,
      { ...config, chains },
      {
        logger,
        databaseUrl,
        indexer: { batchBlocks: config.indexerBatchBlocks, extraWindow: 64 },
      },
    );
    cleanups.push(async () => services.close());

    // What /readyz adds to the database, migration and chain checks for this process's roles.
    let worker: WorkerHandle | null = null;
    let indexer: IndexerHandle | null = null;
    // Not ready until every role of the process runs (the API listens before the worker and
    // the indexer start, and before the embedded default's demo data and credentials exist).
    let starting = true;
    const roleChecks = (): { checks: Checks; info: Record<string, unknown> } => ({
      checks: {
        ...(starting ? { startup: 'starting' } : {}),
        ...(stopping ? { shutdown: 'stopping' } : {}),
        ...(worker ? { worker: worker.healthy() ? 'ok' : 'no job-queue worker is running' } : {}),
      },
      info: indexer ? { indexer: indexer.states() } : {},
    });

    const baseUrl = config.publicUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
    let app: FastifyInstance | null = null;
    let listeningUrl: string | null = null;
    // Payment links' and sessions' `url` (webhooks of a worker-only process name them too).
    services.checkouts.useBaseUrl(baseUrl);
    if (opts.roles.includes('api')) {
      app = await buildServer({ services, logger, roleChecks, trustProxy: config.trustProxy });
      const started = app;
      roleStops.push(() => drain(started, config.shutdownTimeoutMs));
      await app.listen({ host: config.host, port: config.port });
      listeningUrl = config.publicUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${portOf(app)}`;
      services.checkouts.useBaseUrl(listeningUrl);
    }

    let credentials: Credentials | null = null;
    if (devnet) {
      const { seedDemo } = await import('./devnet/seed.js');
      credentials = await seedDemo(services, devnet.chains, { baseUrl: listeningUrl ?? baseUrl, dataDir: config.dataDir });
    }

    if (opts.roles.includes('worker')) {
      const started: WorkerHandle = await startWorker({
        connectionString: databaseUrl,
        logger,
        taskList: taskList(services),
        shutdownTimeoutMs: config.shutdownTimeoutMs,
        // Re-queues due webhook attempts after a restart or a lost job.
        periodic: [
          { name: JOB.webhooks_sweep, everyMs: 30_000, run: () => services.webhooks.sweep() },
          { name: 'outbound_sweep', everyMs: 15_000, run: () => services.outbound.sweepStuck() },
        ],
      });
      worker = started;
      roleStops.push(() => started.stop());
    }
    if (opts.roles.includes('indexer')) {
      const started: IndexerHandle = await startIndexer({
        connectionString: databaseUrl,
        indexers: services.catalogue.chains().map((chain) => services.deposits.indexer(chain)),
        logger,
        pollMs: config.indexerPollMs,
      });
      indexer = started;
      roleStops.push(() => started.stop());
    }

    // Probes for processes without the API (a worker or indexer pod), or on their own port.
    let healthUrl: string | null = null;
    if (config.healthPort !== null) {
      const probes = await startHealthServer({ services, logger, roleChecks, host: config.host, port: config.healthPort });
      // Closed after the roles: while they drain, the probes answer (live, not ready).
      cleanups.push(() => probes.close());
      healthUrl = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${portOf(probes)}`;
    }

    starting = false;
    return { config, services, databaseUrl, app, baseUrl: listeningUrl, healthUrl, devnet, credentials, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Stops the API: no new connections; requests in flight finish (up to `ms`, then their
 * connections are closed); keep-alive connections are closed as soon as they fall idle
 * (Node closes the idle ones only once, when the server starts closing).
 */
async function drain(app: FastifyInstance, ms: number): Promise<void> {
  const closing = app.close();
  const idle = setInterval(() => app.server.closeIdleConnections(), 100);
  const deadline = setTimeout(() => app.server.closeAllConnections(), ms);
  try {
    await closing;
  } finally {
    clearInterval(idle);
    clearTimeout(deadline);
  }
}

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function portOf(app: FastifyInstance): number {
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

/** Whether the master key is the embedded default's key file (no MASTER_KEY, no HSM; custody's choice). */
function usesKeyFile(config: AppConfig): boolean {
  return config.embeddedDatabase && config.keys.vault === 'local' && !config.keys.masterKey;
}
