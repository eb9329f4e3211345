/**
 * A worker process killed mid-job (kill -9) leaves its job locked; graphile-worker alone
 * would hand it out again only after four hours. Our workers hold a presence lock per worker
 * id, so another worker sees the dead one's session is gone and releases its job, which then
 * runs there. A live worker's long job is never taken from it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger.js';
import { startWorker, type WorkerHandle } from '../../src/roles/worker.js';
import { createDatabaseFromTemplate, dropDatabase } from '../support/harness.js';
import { eventually } from '../support/fixtures.js';

let databaseUrl: string;
let admin: pg.Client;
let child: ChildProcess | undefined;
let other: WorkerHandle | undefined;

beforeAll(async () => {
  databaseUrl = await createDatabaseFromTemplate();
  admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await other?.stop();
  await admin?.end();
  if (databaseUrl) await dropDatabase(databaseUrl);
});

const lockedBy = async (id: string) =>
  (await admin.query<{ locked_by: string | null }>('SELECT locked_by FROM graphile_worker._private_jobs WHERE id = $1', [id])).rows[0]
    ?.locked_by;

it(
  'the job of a worker killed mid-job runs on another worker within seconds; a live worker keeps its job',
  { timeout: 90_000 },
  async () => {
    child = spawn(process.execPath, ['--import', 'tsx', path.resolve('test/support/job-worker-process.ts')], {
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await eventually(
      async () => out,
      (o) => o.includes('worker ready'),
      30_000,
    );
    const { rows } = await admin.query<{ id: string }>("SELECT id::text FROM graphile_worker.add_job('hold', '{}'::json)");
    const id = rows[0]!.id;
    await eventually(
      async () => out,
      (o) => o.includes(`holding ${id}`),
      20_000,
    );
    const deadWorker = await lockedBy(id);
    expect(deadWorker).toBeTruthy();

    // Another worker that scans every 200 ms and treats a job as orphaned after 1 s.
    const ran: string[] = [];
    other = await startWorker({
      connectionString: databaseUrl,
      logger: createLogger('silent'),
      rescue: { intervalMs: 200, graceSeconds: 1 },
      taskList: { hold: async (_payload, helpers) => void ran.push(helpers.job.id) },
    });
    // While its worker lives, the job stays where it runs, however long it takes.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await lockedBy(id)).toBe(deadWorker);
    expect(ran).toEqual([]);

    child.kill('SIGKILL');
    await eventually(
      async () => ran,
      (r) => r.includes(id),
      20_000,
    );
    expect(ran).toEqual([id]);
    await eventually(
      () => lockedBy(id),
      (l) => l === undefined, // completed jobs are deleted
    );
  },
);
