/**
 * The pipeline's jobs (graphile-worker), queued in the caller's database transaction: a row
 * and its job commit together or not at all (the outbox guarantee). Re-exported by store.ts.
 */
import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';

/**
 * `preserve_run_at` keeps a waiting job's schedule when the safety net re-adds it, so a
 * re-add never delays or doubles a job that is still there; a job that is running or has
 * run out of attempts is replaced by a fresh one.
 */
export async function enqueueSendJob(db: DbConn, id: string, delayMs = 0): Promise<void> {
  await sql`SELECT graphile_worker.add_job('outbound_send', json_build_object('id', ${id}::text),
                                           run_at := now() + make_interval(secs => ${delayMs / 1000}),
                                           job_key := ${`outbound_send:${id}`}, job_key_mode := 'preserve_run_at')`.execute(db);
}

/** enqueueSendJob (no delay) for many rows in one statement. */
export async function enqueueSendJobs(db: DbConn, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`SELECT graphile_worker.add_jobs(array_agg(ROW('outbound_send', json_build_object('id', i), NULL, now(), 25,
                                                          'outbound_send:' || i, NULL, NULL)::graphile_worker.job_spec), true)
              FROM unnest(${ids}::text[]) AS t(i)`.execute(db);
}

export async function enqueueTrackJob(db: DbConn, id: string, poll: number, delayMs: number): Promise<void> {
  await sql`SELECT graphile_worker.add_job('outbound_track', json_build_object('id', ${id}::text, 'poll', ${poll}::int),
                                           run_at := now() + make_interval(secs => ${delayMs / 1000}),
                                           job_key := ${`outbound_track:${id}`}, job_key_mode := 'preserve_run_at')`.execute(db);
}

export async function enqueueConfirmJob(db: DbConn, id: string, poll: number, delayMs: number): Promise<void> {
  await sql`SELECT graphile_worker.add_job('outbound_confirm', json_build_object('id', ${id}::text, 'poll', ${poll}::int),
                                           run_at := now() + make_interval(secs => ${delayMs / 1000}),
                                           job_key := ${`outbound_confirm:${id}`}, job_key_mode := 'replace')`.execute(db);
}
