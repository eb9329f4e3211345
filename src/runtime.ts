/**
 * Starts the service from a configuration: the embedded database and devnet when the
 * configuration asks for them, migrations, the catalogue, the demo data, then the roles.
 * `stop()` tears everything down in reverse order (HTTP drains before the database goes).
 */
import path from 'node:path';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from './config/index.js';
import type { Logger } from './lib/logger.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './db/embedded.js';
import { migrate } from './db/migrate.js';
import { createDatabase, type Database$ } from './db/pool.js';
import { openCustody } from './modules/custody/service.js';
import { createServices, type Services } from './services.js';
import { startDevnet, type Devnet } from './devnet/devnet.js';
import { seedDemo, type Credentials } from './devnet/seed.js';
import { buildServer } from './server.js';
import { startWorker, type WorkerHandle } from './roles/worker.js';
import { taskList } from './jobs/tasks.js';
import { startIndexer, type IndexerHandle } from './roles/indexer.js';

export type Role = 'api' | 'worker' | 'indexer';
export const ALL_ROLES: Role[] = ['api', 'worker', 'indexer'];

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
  devnet: Devnet | null;
  credentials: Credentials | null;
  stop(): Promise<void>;
}

export const EMBEDDED_DATABASE = 'wallet';

export async function startRuntime(opts: RuntimeOptions): Promise<Runtime> {
  const { config, logger } = opts;
  const cleanups: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((err) => logger.warn({ err: (err as Error).message }, 'error during shutdown'));
    }
  };
  try {
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
    cleanups.push(() => database.close());
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
      devnet = await startDevnet({
        dir: path.join(config.dataDir, 'devnet'),
        portBase: config.devnetPortBase,
        blockTime: config.devnetBlockTime,
        logger,
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

    const baseUrl = config.publicUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
    let app: FastifyInstance | null = null;
    let listeningUrl: string | null = null;
    if (opts.roles.includes('api')) {
      app = await buildServer({ services, logger, trustProxy: config.trustProxy });
      const started = app;
      cleanups.push(() => started.close());
      await app.listen({ host: config.host, port: config.port });
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : config.port;
      listeningUrl = config.publicUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
    }

    let credentials: Credentials | null = null;
    if (devnet) credentials = await seedDemo(services, devnet.chains, { baseUrl: listeningUrl ?? baseUrl, dataDir: config.dataDir });

    if (opts.roles.includes('worker')) {
      const worker: WorkerHandle = await startWorker({
        connectionString: databaseUrl,
        logger,
        taskList: taskList(services),
        // Re-queues due webhook attempts after a restart or a lost job.
        periodic: [
          { name: 'webhooks_sweep', everyMs: 30_000, run: () => services.webhooks.sweep() },
          { name: 'outbound_sweep', everyMs: 15_000, run: () => services.outbound.sweepStuck() },
        ],
      });
      cleanups.push(() => worker.stop());
    }
    if (opts.roles.includes('indexer')) {
      const indexer: IndexerHandle = await startIndexer({
        connectionString: databaseUrl,
        indexers: services.catalogue.chains().map((chain) => services.deposits.indexer(chain)),
        logger,
        pollMs: config.indexerPollMs,
      });
      cleanups.push(() => indexer.stop());
    }

    return { config, services, databaseUrl, app, baseUrl: listeningUrl, devnet, credentials, stop };
  } catch (err) {
    await stop();
    throw err;
  }
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
