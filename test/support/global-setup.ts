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

let server: EmbeddedPostgres | undefined;
let dir: string | undefined;

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
  }
}

export async function setup(project: TestProject): Promise<void> {
  const logger = createLogger('warn');
  dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-test-pg-'));
  await compileContracts();
  server = await startEmbeddedPostgres({ dir, port: 0, durable: false, logger });
  const admin = new pg.Client({ connectionString: server.url() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  await admin.end();
  await migrate(server.url(TEMPLATE_DB));
  project.provide('pgAdminUrl', server.url());
  project.provide('pgTemplate', TEMPLATE_DB);
}

export async function teardown(): Promise<void> {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}
