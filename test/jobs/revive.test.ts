/**
 * Jobs whose work must end (catalogue.ts REVIVED: a swap's and a staking operation's outcome
 * read back once final) and that ran out of graphile-worker's attempts while a node was away
 * are given a fresh set by the scheduled jobs_revive, payload and key as they were; other
 * jobs that ran out (a webhook delivery gives up by design) are left as they are, and so is
 * a job a worker is running.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { REVIVED, SCHEDULES } from '../../src/jobs/catalogue.js';
import { jobs, reviveExhausted } from '../../src/jobs/store.js';
import { CRONTAB } from '../../src/jobs/tasks.js';
import { startHarness, type Harness } from '../support/harness.js';
import { eventually } from '../support/fixtures.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ specs: [DEVNET_CHAINS[0]!], worker: false });
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

interface JobRow {
  key: string;
  attempts: number;
  max_attempts: number;
  due: boolean;
  payload: Record<string, unknown>;
}

const jobOf = async (key: string): Promise<JobRow | undefined> => {
  const { rows } = await sql<JobRow>`
    SELECT key, attempts, max_attempts, run_at <= now() AS due, payload FROM graphile_worker._private_jobs WHERE key = ${key}`.execute(
    h.services.db,
  );
  return rows[0];
};

/** What graphile-worker leaves of a job that failed its last attempt: attempts = max_attempts, not locked. */
const exhaust = (key: string) =>
  sql`SELECT graphile_worker.reschedule_jobs(ARRAY(SELECT id FROM graphile_worker.jobs WHERE key = ${key}),
        run_at := now() + interval '1 day', attempts := 25)`.execute(h.services.db);

it('gives exhausted swap_settle and staking_settle jobs new attempts, and nothing else', async () => {
  expect(REVIVED).toEqual(['swap_settle', 'staking_settle', 'sweep_deposits', 'sweep_address', 'aml_rescreen_deposits']);
  expect(SCHEDULES.jobs_revive).toBe('*/5 * * * *');
  expect(CRONTAB.map((c) => c.line)).toContain('*/5 * * * * jobs_revive ?max=1');

  const swap = randomUUID();
  const staking = randomUUID();
  const delivery = randomUUID();
  await jobs.swap_settle.add(h.services.db, { id: swap }, { key: jobs.swap_settle.key(swap) });
  await jobs.staking_settle.add(h.services.db, { id: staking, depth: 3 }, { key: jobs.staking_settle.key(staking) });
  await jobs.deliver_webhook.add(h.services.db, { deliveryId: delivery }, { key: `test-delivery:${delivery}` });
  // A swap_settle job still within its attempts keeps its schedule.
  const waiting = randomUUID();
  await jobs.swap_settle.add(h.services.db, { id: waiting }, { key: jobs.swap_settle.key(waiting), delayMs: 3_600_000 });
  for (const key of [jobs.swap_settle.key(swap), jobs.staking_settle.key(staking), `test-delivery:${delivery}`]) await exhaust(key);

  expect(await reviveExhausted(h.services.db, REVIVED)).toBe(2);
  expect(await jobOf(jobs.swap_settle.key(swap))).toMatchObject({ attempts: 0, max_attempts: 25, due: true, payload: { id: swap } });
  expect(await jobOf(jobs.staking_settle.key(staking))).toMatchObject({ attempts: 0, due: true, payload: { id: staking, depth: 3 } });
  expect(await jobOf(`test-delivery:${delivery}`)).toMatchObject({ attempts: 25, due: false });
  expect(await jobOf(jobs.swap_settle.key(waiting))).toMatchObject({ attempts: 0, due: false });
  // Nothing left to revive: a second run changes nothing.
  expect(await reviveExhausted(h.services.db, REVIVED)).toBe(0);

  // Revived, they run again: a worker picks them up (neither names a row, so each ends at once).
  await h.startWorker();
  await eventually(
    async () => [await jobOf(jobs.swap_settle.key(swap)), await jobOf(jobs.staking_settle.key(staking))],
    (found) => found.every((j) => j === undefined),
    30_000,
  );
  expect(await jobOf(`test-delivery:${delivery}`)).toMatchObject({ attempts: 25 });
});

it('leaves a job a worker is running alone', async () => {
  const swap = randomUUID();
  await jobs.swap_settle.add(h.services.db, { id: swap }, { key: jobs.swap_settle.key(swap), delayMs: 3_600_000 });
  await exhaust(jobs.swap_settle.key(swap));
  // As graphile-worker marks a job it took (a worker that took it just now).
  await sql`UPDATE graphile_worker._private_jobs SET locked_at = now(), locked_by = 'another-worker'
             WHERE key = ${jobs.swap_settle.key(swap)}`.execute(h.services.db);
  expect(await reviveExhausted(h.services.db, REVIVED)).toBe(0);
  expect(await jobOf(jobs.swap_settle.key(swap))).toMatchObject({ attempts: 25 });
});
