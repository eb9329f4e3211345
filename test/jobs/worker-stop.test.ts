/**
 * The worker's job-queue connections are ours: their errors are handled while it runs, and
 * stop() has closed every one of them when it returns, so PostgreSQL stopping right after
 * (npm start's Ctrl-C) finds nothing to terminate (a lost race crashed the process before).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { createLogger } from '../../src/lib/logger.js';
import { startWorker, WORKER_APPLICATION_NAME } from '../../src/roles/worker.js';
import { createDatabaseFromTemplate, dropDatabase } from '../support/harness.js';
import { eventually } from '../support/fixtures.js';

let databaseUrl: string;
let admin: pg.Client;
beforeAll(async () => {
  databaseUrl = await createDatabaseFromTemplate();
  admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  if (databaseUrl) await dropDatabase(databaseUrl);
});

const workerSessions = async () =>
  (
    await admin.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
      [WORKER_APPLICATION_NAME],
    )
  ).rows[0]!.n;

it('survives its connections being killed, and stop() leaves none open', async () => {
  const ran: string[] = [];
  const worker = await startWorker({
    connectionString: databaseUrl,
    logger: createLogger('silent'),
    taskList: { probe: async (payload) => void ran.push((payload as { n: string }).n) },
  });
  await eventually(workerSessions, (n) => n > 0);
  // PostgreSQL ending the sessions (a restart, an administrator): logged, not a crash.
  await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [
    WORKER_APPLICATION_NAME,
  ]);
  await admin.query(`SELECT graphile_worker.add_job('probe', json_build_object('n', 'after'))`);
  await eventually(
    async () => ran,
    (r) => r.includes('after'),
    20_000,
  );

  await worker.stop();
  expect(worker.pool.totalCount).toBe(0);
  expect(worker.pool.ended).toBe(true);
  await eventually(workerSessions, (n) => n === 0);
});
