/**
 * One embedded PostgreSQL cluster per test run, with a migrated template database that
 * each test file clones (CREATE DATABASE ... TEMPLATE takes tens of milliseconds), and
 * the contracts compiled once so parallel test files never compile at the same time.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded.js';
import { migrate } from '../../src/db/migrate.js';
import { compileContracts } from '../../src/devnet/compile.js';
import { createLogger } from '../../src/lib/logger.js';

export const TEMPLATE_DB = 'wallet_template';

/**
 * Vitest calls this setup once per project of vitest.config.ts (and for the root), in one
 * process: they share one cluster, started by the first call and stopped by the last teardown.
 */
interface Cluster {
  ready: Promise<{ server: EmbeddedPostgres; dir: string }>;
  users: number;
}
const SHARED = Symbol.for('wallet-test-pg-cluster');
const shared = globalThis as { [SHARED]?: Cluster };

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
  }
}

export async function setup(project: TestProject): Promise<void> {
  const cluster = (shared[SHARED] ??= { ready: startCluster(), users: 0 });
  cluster.users++;
  const { server } = await cluster.ready;
  project.provide('pgAdminUrl', server.url());
  project.provide('pgTemplate', TEMPLATE_DB);
}

async function startCluster(): Promise<{ server: EmbeddedPostgres; dir: string }> {
  const logger = createLogger('warn');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-test-pg-'));
  await compileContracts();
  const server = await startEmbeddedPostgres({ dir, port: 0, durable: false, logger });
  const admin = new pg.Client({ connectionString: server.url() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  await admin.end();
  await migrate(server.url(TEMPLATE_DB));
  return { server, dir };
}

export async function teardown(): Promise<void> {
  const cluster = shared[SHARED];
  if (!cluster || --cluster.users > 0) return;
  delete shared[SHARED];
  const started = await cluster.ready.catch(() => null);
  if (!started) return;
  await started.server.stop();
  await rm(started.dir, { recursive: true, force: true });
}
