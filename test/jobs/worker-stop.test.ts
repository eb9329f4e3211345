/**
 * The worker's job-queue connections are ours, and stop() has closed every one of them
 * when it returns, so PostgreSQL stopping right after (npm start's Ctrl-C) finds nothing
 * to terminate (graphile-worker's own pool ended unawaited; a lost race crashed the process).
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

it('stop() has closed every connection of the worker when it returns', async () => {
  const ran: string[] = [];
  const worker = await startWorker({
    connectionString: databaseUrl,
    logger: createLogger('silent'),
    taskList: { probe: async (payload) => void ran.push((payload as { n: string }).n) },
  });
  await admin.query(`SELECT graphile_worker.add_job('probe', json_build_object('n', 'one'))`);
  await eventually(
    async () => ran,
    (r) => r.includes('one'),
    20_000,
  );
  expect(await workerSessions()).toBeGreaterThan(0);

  await worker.stop();
  expect(worker.pool.totalCount).toBe(0);
  expect(worker.pool.ended).toBe(true);
  await eventually(workerSessions, (n) => n === 0);
});
