/**
 * PostgreSQL restarts (fast shutdown: every session is terminated) while a worker runs jobs.
 * graphile-worker 0.16 then loses workers ("committing seppuku" when a job's outcome cannot
 * be recorded) and leaves their jobs locked. The worker must recover by itself: every job
 * queued before, during and after the restart runs, and no job stays locked.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded.js';
import { migrate } from '../../src/db/migrate.js';
import { createLogger } from '../../src/lib/logger.js';
import { startWorker, type WorkerHandle } from '../../src/roles/worker.js';
import { eventually } from '../support/fixtures.js';

const logger = createLogger('silent');
let dir: string;
let server: EmbeddedPostgres;
let url: string;
let worker: WorkerHandle | undefined;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-pg-restart-'));
  server = await startEmbeddedPostgres({ dir, port: 0, durable: false, logger });
  const admin = new pg.Client({ connectionString: server.url() });
  await admin.connect();
  await admin.query('CREATE DATABASE jobs');
  await admin.end();
  url = server.url('jobs');
  await migrate(url);
});
afterAll(async () => {
  await worker?.stop();
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

it('runs every job queued before, during and after a PostgreSQL restart', { timeout: 120_000 }, async () => {
  const ran = new Set<number>();
  worker = await startWorker({
    connectionString: url,
    logger,
    concurrency: 4,
    rescue: { intervalMs: 500, graceSeconds: 1 },
    taskList: {
      probe: async (payload) => {
        await new Promise((r) => setTimeout(r, 150)); // long enough to be cut short by the restart
        ran.add((payload as { n: number }).n);
      },
    },
  });
  let n = 0;
  const add = async (count: number) => {
    for (let i = 0; i < count; i++) await query("SELECT graphile_worker.add_job('probe', json_build_object('n', $1::int))", [n++]);
  };
  await add(20);
  await new Promise((r) => setTimeout(r, 300)); // jobs are running
  const port = server.port;
  await server.stop();
  await new Promise((r) => setTimeout(r, 2_000));
  server = await startEmbeddedPostgres({ dir, port, durable: false, logger });
  expect(server.port).toBe(port);
  await add(20);
  await eventually(
    async () => (await query<{ n: number }>('SELECT count(*)::int AS n FROM graphile_worker._private_jobs'))[0]!.n,
    (left) => left === 0,
    60_000,
  );
  expect([...ran].sort((a, b) => a - b)).toEqual([...Array(n).keys()]);
  expect(worker.healthy()).toBe(true);
});
