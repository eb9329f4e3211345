/**
 * The roles' own SQL: the job-queue workers' presence locks and the release of jobs held by
 * workers that are gone (roles/job-rescue.ts).
 *
 * graphile-worker marks a job it runs with its worker id (`locked_by`) and only considers it
 * abandoned after four hours. Each of our worker processes holds a session advisory lock
 * per worker id it runs, so a worker that died (kill -9, OOM, a lost machine) is seen at
 * once: its session ended and its locks with it.
 */
import type pg from 'pg';

/** First half of the presence locks' key ("worker"; the indexer uses 0x1d3). */
export const WORKER_LOCK_NAMESPACE = 0x1d4;

type Queryable = Pick<pg.ClientBase, 'query'>;

export async function lockWorkerIds(db: Queryable, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query('SELECT pg_advisory_lock($1, hashtext(id)) FROM unnest($2::text[]) AS id', [WORKER_LOCK_NAMESPACE, ids]);
}

export async function unlockWorkerIds(db: Queryable, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query('SELECT pg_advisory_unlock($1, hashtext(id)) FROM unnest($2::text[]) AS id', [WORKER_LOCK_NAMESPACE, ids]);
}

/**
 * Worker ids holding jobs (or named queues) for longer than `graceSeconds` whose presence
 * lock nobody holds. The grace covers a worker that took a job before its process took the
 * presence lock (a few milliseconds after start).
 */
export async function orphanedWorkerIds(db: Queryable, graceSeconds: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `WITH holders AS (
       SELECT locked_by, locked_at FROM graphile_worker._private_jobs WHERE locked_by IS NOT NULL
       UNION ALL
       SELECT locked_by, locked_at FROM graphile_worker._private_job_queues WHERE locked_by IS NOT NULL
     )
     SELECT DISTINCT h.locked_by AS id FROM holders h
      WHERE h.locked_at < now() - make_interval(secs => $2)
        AND NOT EXISTS (
          SELECT 1 FROM pg_locks l
           WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1
             AND l.objid = hashtext(h.locked_by)::oid AND l.objsubid = 2
             AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))
      ORDER BY 1`,
    [WORKER_LOCK_NAMESPACE, graceSeconds],
  );
  return rows.map((r) => r.id);
}

/** Makes the jobs these workers hold available to every worker again; returns their ids. */
export async function releaseJobsOf(db: Queryable, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(
    'SELECT id::text FROM graphile_worker._private_jobs WHERE locked_by = ANY($1::text[]) ORDER BY id',
    [ids],
  );
  await db.query('SELECT graphile_worker.force_unlock_workers($1::text[])', [ids]);
  return rows.map((r) => r.id);
}
