/**
 * The sender's side of webhook deliveries: claiming due attempts, recording their outcomes
 * (and queuing retries), and the sweep's reads of deliveries whose job was lost. What is
 * written when an event is emitted is store.ts; what the log shows is log-store.ts.
 */
import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import { jobs } from '../../jobs/store.js';

/** An attempt that was just claimed: everything needed to sign and send it. */
export interface ClaimedAttempt {
  id: string;
  wallet_id: string;
  business_id: string;
  url: string;
  body: string;
  attempt: number;
  max_attempts: number;
  network: string;
  /** The wallet's live API key row (the signing secret), null when it has none. */
  key_id: string | null;
  /** The wallet's webhook signing secrets that sign now, newest first (migration 015). */
  secret_ids: string[];
  /** Whether the API key also keys webhook-signature (no secret yet, or the first overlap). */
  api_key_signs: boolean;
}

/** A job's deliveries (given by id or by batch, as `d`) with an attempt due by `now`: what a claim takes. */
function dueOfJob(c: { ids?: string[]; batch?: string; now: Date }) {
  const which = c.batch !== undefined ? sql`d.batch_id = ${c.batch}::uuid` : sql`d.id = ANY(${c.ids ?? []}::uuid[])`;
  return sql`${which} AND ${isDue(c.now)}`;
}

/** A delivery (as `d`) with an attempt due by `now`. */
function isDue(now: Date) {
  return sql`d.status = 'pending' AND d.next_attempt_at <= ${now} AND d.attempts < d.max_attempts`;
}

/**
 * Claims the next attempt of up to `limit` due, pending deliveries (given by id or by
 * batch) in ONE statement: locks them (skipping any another worker holds), counts the
 * attempt, moves the schedule to the following slot (so a worker dying mid-attempt leaves
 * the schedule intact) and logs the attempt. Only one caller can ever claim an attempt.
 *
 * Each attempt goes to the wallet's webhook URL as it is now, not as it was when the event
 * was written: a merchant who moves or removes the URL (a host lost or compromised) must
 * not keep receiving signed events there for the hours retries last. A delivery whose
 * wallet has no URL any more is closed, failed, without an attempt. Closed deliveries take
 * room in the claim like the others, so their number comes back too (`closed`): a claim
 * that came back short only for them is not the end of its batch.
 *
 * Each business's deliveries are taken in turn (the first of each, then the second, ...,
 * each business's in id order): one transaction may write events of many businesses (an
 * indexer range), and in plain id order one with many deliveries and a hanging receiver
 * would fill the claim while the others' waited for its timeouts.
 *
 * The order goes from `turns` to `due` as one array, whose ids `due` takes one at a time
 * (the lateral lookup by key locks each if it is still due and free), in the array's order,
 * until it has `limit`: no join the planner could turn around and no sort of the whole batch,
 * so only the rows taken are locked. Joining `turns` to the deliveries on id instead, on a
 * batch the planner had no statistics for yet, it estimated one row each side and joined
 * them in a nested loop, n x n comparisons (a claim of 2 from a batch of 500 took 110 ms,
 * and the webhook throughput fell to a seventh).
 */
export async function claimAttempts(
  db: DbConn,
  c: {
    ids?: string[];
    batch?: string;
    now: Date;
    limit: number;
    retryDelaysMs: number[];
    finalGraceMs: number;
    /** Businesses whose deliveries wait this time (their attempts in flight here are at their share). */
    skipBusinesses?: string[];
  },
): Promise<{ attempts: ClaimedAttempt[]; closed: number }> {
  const { rows } = await sql<ClaimedAttempt & { closed: boolean }>`
    WITH turns AS (
      SELECT array_agg(id ORDER BY turn, id) AS ids FROM (
        SELECT d.id, row_number() OVER (PARTITION BY w.business_id ORDER BY d.id) AS turn
          FROM webhook_deliveries d JOIN wallets w ON w.id = d.wallet_id
         WHERE ${dueOfJob(c)}
           AND w.business_id <> ALL(${c.skipBusinesses ?? []}::uuid[])
      ) t
    ), due AS (
      SELECT x.id, x.webhook_url
        FROM turns
        CROSS JOIN LATERAL unnest(turns.ids) AS u(id)
        CROSS JOIN LATERAL (
          SELECT d.id, (SELECT w.webhook_url FROM wallets w WHERE w.id = d.wallet_id) AS webhook_url
            FROM webhook_deliveries d
           WHERE d.id = u.id AND ${isDue(c.now)}
             FOR UPDATE SKIP LOCKED
        ) x
       LIMIT ${c.limit}
    ), closed AS (
      UPDATE webhook_deliveries d
         SET status = 'failed', next_attempt_at = NULL, updated_at = ${c.now},
             response = 'not sent: the wallet has no webhook URL any more'
        FROM due WHERE d.id = due.id AND due.webhook_url IS NULL
      RETURNING d.id
    ), claimed AS (
      UPDATE webhook_deliveries d
         SET attempts = d.attempts + 1, last_attempt_at = ${c.now}, updated_at = ${c.now}, url = due.webhook_url,
             next_attempt_at = ${c.now}::timestamptz + interval '1 millisecond' *
               CASE WHEN d.attempts + 1 < d.max_attempts THEN coalesce((${c.retryDelaysMs}::bigint[])[d.attempts + 1], ${c.finalGraceMs})
                    ELSE ${c.finalGraceMs} END
        FROM due WHERE d.id = due.id AND due.webhook_url IS NOT NULL
      RETURNING d.id, d.wallet_id, d.event_id, d.url, d.body, d.attempts AS attempt, d.max_attempts
    ), logged AS (
      INSERT INTO webhook_attempts (id, delivery_id, attempt, attempted_at)
      SELECT gen_random_uuid(), id, attempt, ${c.now} FROM claimed
    )
    SELECT c.id, c.wallet_id, w.business_id, c.url, coalesce(c.body, e.body) AS body, c.attempt, c.max_attempts, ch.network, k.id AS key_id,
           ws.secret_ids, ws.api_key_signs, false AS closed
      FROM claimed c
      JOIN events e ON e.id = c.event_id
      JOIN wallets w ON w.id = c.wallet_id
      JOIN chains ch ON ch.id = w.chain_id
      LEFT JOIN api_keys k ON k.wallet_id = c.wallet_id AND k.revoked_at IS NULL
      CROSS JOIN LATERAL (
        SELECT coalesce(array_agg(s.id::text ORDER BY s.created_at DESC, s.id DESC)
                          FILTER (WHERE s.retires_at IS NULL OR s.retires_at > ${c.now}), '{}') AS secret_ids,
               (count(*) = 0 OR coalesce(bool_or(s.api_key_signs_until > ${c.now}), false)) AS api_key_signs
          FROM webhook_secrets s WHERE s.wallet_id = c.wallet_id
      ) ws
    UNION ALL
    SELECT id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, true FROM closed`.execute(db);
  const attempts: ClaimedAttempt[] = [];
  let closed = 0;
  for (const { closed: isClosed, ...row } of rows) {
    if (isClosed) closed++;
    else attempts.push(row);
  }
  return { attempts, closed };
}

/** Whether deliveries of the job (by ids or batch) are due but were skipped for their business's share. */
export async function heldBack(db: DbConn, c: { ids?: string[]; batch?: string; now: Date; skipBusinesses: string[] }): Promise<boolean> {
  const { rows } = await sql`
    SELECT 1 FROM webhook_deliveries d JOIN wallets w ON w.id = d.wallet_id
     WHERE ${dueOfJob(c)}
       AND w.business_id = ANY(${c.skipBusinesses}::uuid[])
     LIMIT 1`.execute(db);
  return rows.length > 0;
}

export interface AttemptOutcome {
  deliveryId: string;
  attempt: number;
  status: 'pending' | 'success' | 'failed';
  statusCode: number | null;
  /** The receiver's body (truncated). */
  response: string | null;
  error: string | null;
  durationMs: number;
  finishedAt: Date;
  /** When a retry follows: the real time its job should run. */
  retryJobAt: Date | null;
}

/**
 * Records many attempts' outcomes in ONE statement: the attempt rows, the deliveries
 * (`status` stays pending while retries remain) and the jobs of the retries. A delivery is
 * only updated by the outcome of its latest claimed attempt.
 */
export async function recordOutcomes(db: DbConn, outcomes: AttemptOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  const rows = outcomes.map((o) => ({
    delivery_id: o.deliveryId,
    attempt: o.attempt,
    status: o.status,
    status_code: o.statusCode,
    response: o.response,
    error: o.error,
    duration_ms: o.durationMs,
    finished_at: o.finishedAt.toISOString(),
    retry_job_at: o.retryJobAt?.toISOString() ?? null,
  }));
  await sql`
    WITH o AS (
      SELECT * FROM json_to_recordset(${JSON.stringify(rows)}::json)
        AS t(delivery_id uuid, attempt int, status text, status_code int, response text, error text, duration_ms int,
             finished_at timestamptz, retry_job_at timestamptz)
    ), a AS (
      UPDATE webhook_attempts wa SET status_code = o.status_code, response = o.response, error = o.error, duration_ms = o.duration_ms,
                                     finished_at = o.finished_at
        FROM o WHERE wa.delivery_id = o.delivery_id AND wa.attempt = o.attempt
    ), d AS (
      UPDATE webhook_deliveries wd SET status = o.status, last_status_code = o.status_code, response = coalesce(o.response, o.error),
                                       updated_at = o.finished_at,
                                       next_attempt_at = CASE WHEN o.status = 'pending' THEN wd.next_attempt_at END
        FROM o WHERE wd.id = o.delivery_id AND wd.attempts = o.attempt
      RETURNING wd.id, o.retry_job_at
    )
    SELECT count(${jobs.deliver_webhook.addSql({ deliveryId: sql`d.id::text` }, { runAt: sql`d.retry_job_at`, key: sql`'webhook:' || d.id::text`, maxAttempts: 10 })})
      FROM d WHERE d.retry_job_at IS NOT NULL`.execute(db);
}

/**
 * Pending deliveries due by `now`, except first attempts of batches younger than
 * `batchGraceMs`: their batch job is still working through them (a backlog of thousands
 * drains in seconds); re-queuing them one job each would only add no-op claims.
 */
export async function dueDeliveries(db: DbConn, now: Date, limit: number, batchGraceMs: number) {
  const { rows } = await sql<{ id: string; attempts: number; max_attempts: number }>`
    SELECT id, attempts, max_attempts FROM webhook_deliveries
     WHERE status = 'pending' AND next_attempt_at <= ${now}
       AND NOT (batch_id IS NOT NULL AND attempts = 0 AND created_at > ${now}::timestamptz - interval '1 millisecond' * ${batchGraceMs})
     ORDER BY next_attempt_at LIMIT ${limit}`.execute(db);
  return rows;
}

/** A delivery whose final attempt was claimed but never recorded (the worker died). */
export async function failAbandoned(db: DbConn, id: string, now: Date): Promise<void> {
  await sql`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = ${now},
                   response = coalesce(response, 'no outcome recorded for the final attempt')
             WHERE id = ${id} AND status = 'pending' AND attempts >= max_attempts`.execute(db);
}
