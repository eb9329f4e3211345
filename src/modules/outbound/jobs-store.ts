/**
 * The pipeline's jobs, queued in the caller's database transaction: a row and its job commit
 * together or not at all (the outbox guarantee). Re-exported by store.ts. The queue's SQL is
 * jobs/store.ts's, from the job catalogue.
 */
import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import { jobs } from '../../jobs/store.js';

/**
 * `preserve_run_at` keeps a waiting job's schedule when the safety net re-adds it, so a
 * re-add never delays or doubles a job that is still there; a job that is running or has
 * run out of attempts is replaced by a fresh one.
 */
export async function enqueueSendJob(tx: DbConn, id: string, delayMs = 0): Promise<void> {
  await jobs.outbound_send.add(tx, { id }, { delayMs, key: jobs.outbound_send.key(id), keyMode: 'preserve_run_at' });
}

/** enqueueSendJob (no delay) for many rows in one statement. */
export async function enqueueSendJobs(tx: DbConn, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const add = jobs.outbound_send.addAllSql({ id: sql`i` }, { key: jobs.outbound_send.keySql(sql`i`), preserveRunAt: true });
  await sql`SELECT ${add} FROM unnest(${ids}::text[]) AS t(i)`.execute(tx);
}

export async function enqueueTrackJob(tx: DbConn, id: string, poll: number, delayMs: number): Promise<void> {
  await jobs.outbound_track.add(tx, { id, poll }, { delayMs, key: jobs.outbound_track.key(id), keyMode: 'preserve_run_at' });
}

/**
 * A settled row's next depth check (confirm.ts): the same job as its receipt checks,
 * outbound_track, which goes on counting once the row is settled, so a sent row is followed
 * by one job from its signature to its final depth. 'replace': the check due now wins over
 * a receipt check still waiting.
 */
export async function enqueueConfirmJob(tx: DbConn, id: string, poll: number, delayMs: number): Promise<void> {
  await jobs.outbound_track.add(tx, { id, poll }, { delayMs, key: jobs.outbound_track.key(id), keyMode: 'replace' });
}
