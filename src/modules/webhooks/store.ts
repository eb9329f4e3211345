import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import { jobs } from '../../jobs/store.js';

/**
 * How the job that makes a new delivery is queued, in the caller's transaction (the outbox
 * guarantee): one job per batch (every delivery a transaction writes, up to a cap), or one
 * job per delivery when the caller is not in a transaction.
 */
export interface JobPlan {
  /** Deliveries carry this batch id; null = a job per delivery. */
  batch: string | null;
  /** Queue the batch's job with this statement (the first delivery of the batch). */
  addBatchJob: boolean;
}

export interface NewEventWithDelivery {
  eventId: string;
  deliveryId: string;
  walletId: string;
  transactionId: string | null;
  name: string;
  reference: string;
  /** The exact webhook body, `{"event":...,"data":...}`. */
  body: string;
  maxAttempts: number;
  now: Date;
  job: JobPlan;
}

// The job of a delivery batch, or of one delivery (`dl` is the inserted deliveries).
const jobOf = (job: JobPlan) =>
  job.batch === null
    ? sql`SELECT count(${jobs.deliver_webhook.addSql({ deliveryId: sql`dl.id::text` }, { key: sql`'webhook:' || dl.id::text`, maxAttempts: 10 })}) FROM dl`
    : sql`SELECT count(${jobs.deliver_webhook.addSql({ batch: sql`${job.batch}::text` }, { maxAttempts: 10 })})
            FROM (SELECT 1 FROM dl LIMIT 1) one WHERE ${job.addBatchJob}`;

/**
 * Writes an event and, when the wallet has a webhook URL, its delivery and job, in one
 * statement. Returns the delivery id, or null when the wallet has no URL.
 */
export async function insertEventWithDelivery(db: DbConn, e: NewEventWithDelivery): Promise<string | null> {
  const { rows } = await sql<{ delivery_id: string | null }>`
    WITH ev AS (
      INSERT INTO events (id, wallet_id, transaction_id, name, reference, body, created_at)
      VALUES (${e.eventId}, ${e.walletId}, ${e.transactionId}, ${e.name}, ${e.reference}, ${e.body}, ${e.now})
      RETURNING id
    ), dl AS (
      INSERT INTO webhook_deliveries (id, event_id, wallet_id, transaction_id, event, reference, url, body, batch_id, status, attempts,
                                      max_attempts, next_attempt_at, created_at, updated_at)
      SELECT ${e.deliveryId}::uuid, ev.id, w.id, ${e.transactionId}::uuid, ${e.name}, ${e.reference}, w.webhook_url, NULL, ${e.job.batch}::uuid,
             'pending', 0, ${e.maxAttempts}, ${e.now}, ${e.now}, ${e.now}
        FROM ev JOIN wallets w ON w.id = ${e.walletId} WHERE w.webhook_url IS NOT NULL
      RETURNING id
    )
    SELECT (SELECT id FROM dl) AS delivery_id, (${jobOf(e.job)}) AS jobs`.execute(db);
  return rows[0]?.delivery_id ?? null;
}

export interface NewEventRow {
  event_id: string;
  delivery_id: string;
  wallet_id: string;
  transaction_id: string | null;
  reference: string;
  /** The event's `data`; stored verbatim as JSON.stringify wrote it. */
  data: unknown;
  /** JSON.stringify(data), when the caller has it already (the body is then not written twice). */
  json?: string;
}

/**
 * Many events of one name (the indexer's ranges) in one statement. The webhook bodies,
 * built here byte for byte as JSON.stringify({ event, data }), travel as ONE text parameter
 * split by PostgreSQL with `string_to_table`; the small per-row fields as one JSON
 * parameter. Parsing 100 bodies of ~4.3 KB as JSON (a json parameter, then each `data`
 * value again as json) took ~45% of the statement; splitting text is a scan for one byte.
 * Returns the number of deliveries written.
 */
export async function insertEventsWithDeliveries(
  db: DbConn,
  e: { name: string; rows: EncodedEventRows; maxAttempts: number; now: Date; job: JobPlan },
): Promise<number> {
  const { rows } = await sql<{ events: number; deliveries: number }>`
    WITH m AS (
      SELECT * FROM json_to_recordset(${e.rows.meta}::json)
        AS m(i int, event_id uuid, delivery_id uuid, wallet_id uuid, transaction_id uuid, reference text)
    ), t AS (
      SELECT m.*, b.body FROM string_to_table(${e.rows.bodies}::text, ${BODY_SEPARATOR}) WITH ORDINALITY AS b(body, n)
        JOIN m ON m.i = b.n
    ), ev AS (
      INSERT INTO events (id, wallet_id, transaction_id, name, reference, body, created_at)
      SELECT event_id, wallet_id, transaction_id, ${e.name}, reference, body, ${e.now} FROM t
      RETURNING id
    ), dl AS (
      INSERT INTO webhook_deliveries (id, event_id, wallet_id, transaction_id, event, reference, url, body, batch_id, status, attempts,
                                      max_attempts, next_attempt_at, created_at, updated_at)
      SELECT m.delivery_id, m.event_id, m.wallet_id, m.transaction_id, ${e.name}, m.reference, w.webhook_url, NULL, ${e.job.batch}::uuid,
             'pending', 0, ${e.maxAttempts}, ${e.now}, ${e.now}, ${e.now}
        FROM m JOIN wallets w ON w.id = m.wallet_id WHERE w.webhook_url IS NOT NULL
      RETURNING id
    )
    SELECT (SELECT count(*) FROM ev)::int AS events, (SELECT count(*) FROM dl)::int AS deliveries, (${jobOf(e.job)}) AS jobs`.execute(db);
  // Every body found its row (a miscount would be a bug in the encoding): nothing half-written.
  if (rows[0]?.events !== e.rows.count) throw new Error('event rows and bodies do not line up');
  return rows[0]?.deliveries ?? 0;
}

/**
 * Separates the bodies in the text parameter: ASCII RS, which JSON.stringify never writes
 * raw (control characters inside strings come out as \u001e escapes).
 */
const BODY_SEPARATOR = '\x1e';

/**
 * The rows of `insertEventsWithDeliveries`, encoded. The bodies are bytes built row by row:
 * no megabyte-sized string is ever made (V8 puts those straight into the old generation,
 * where a backfill's garbage piled up until a full GC); the buffer lives outside the JS heap.
 * PostgreSQL reads the binary text parameter as its UTF-8 text.
 */
export interface EncodedEventRows {
  meta: string;
  bodies: Buffer;
  count: number;
}

export function encodeEventRows(name: string, rows: NewEventRow[]): EncodedEventRows {
  // Each body as parts written one after the other: exactly JSON.stringify({ event, data })
  // (one call per body: no concatenation to flatten), or, with `json` (JSON.stringify(data))
  // given, the same bytes around it, as `data` is a plain object.
  const head = `{"event":${JSON.stringify(name)},"data":`;
  const parts = rows.map((row) => (row.json !== undefined ? [head, row.json, '}'] : [JSON.stringify({ event: name, data: row.data })]));
  // One buffer, each body written straight into it: no buffer per body, no second copy.
  let size = Math.max(0, parts.length - 1) * BODY_SEPARATOR.length;
  for (const body of parts) for (const p of body) size += Buffer.byteLength(p);
  const bodies = Buffer.allocUnsafe(size);
  let at = 0;
  parts.forEach((body, i) => {
    if (i > 0) at += bodies.write(BODY_SEPARATOR, at, 'latin1');
    for (const p of body) at += bodies.write(p, at);
  });
  const meta = rows.map((row, i) => ({
    i: i + 1,
    event_id: row.event_id,
    delivery_id: row.delivery_id,
    wallet_id: row.wallet_id,
    transaction_id: row.transaction_id,
    reference: row.reference,
  }));
  return { meta: JSON.stringify(meta), bodies, count: rows.length };
}

/** A new delivery of an existing event (resend); `body` only for events written before bodies were kept on events. */
export async function insertDeliveryOfEvent(
  db: DbConn,
  d: { deliveryId: string; eventId: string; url: string; body: string | null; maxAttempts: number; now: Date; job: JobPlan },
): Promise<void> {
  await sql`
    WITH dl AS (
      INSERT INTO webhook_deliveries (id, event_id, wallet_id, transaction_id, event, reference, url, body, batch_id, status, attempts,
                                      max_attempts, next_attempt_at, created_at, updated_at)
      SELECT ${d.deliveryId}::uuid, e.id, e.wallet_id, e.transaction_id, e.name, e.reference, ${d.url}, ${d.body}, ${d.job.batch}::uuid,
             'pending', 0, ${d.maxAttempts}, ${d.now}, ${d.now}, ${d.now}
        FROM events e WHERE e.id = ${d.eventId}
      RETURNING id
    )
    SELECT (${jobOf(d.job)}) AS jobs`.execute(db);
}

export interface EventRow {
  id: string;
  wallet_id: string;
  transaction_id: string | null;
  name: string;
  reference: string;
  body: string | null;
  /** Only on events written before migration 006. */
  payload: unknown;
}

export async function latestEventOfTransaction(db: DbConn, transactionId: string): Promise<EventRow | undefined> {
  const { rows } = await sql<EventRow>`SELECT id, wallet_id, transaction_id, name, reference, body, payload FROM events
                                       WHERE transaction_id = ${transactionId} ORDER BY created_at DESC, id DESC LIMIT 1`.execute(db);
  return rows[0];
}

export async function walletWebhookUrl(db: DbConn, walletId: string): Promise<string | null> {
  const { rows } = await sql<{ webhook_url: string | null }>`SELECT webhook_url FROM wallets WHERE id = ${walletId}`.execute(db);
  return rows[0]?.webhook_url ?? null;
}

/** Queues a delivery's own job (sweep, retries), in the caller's transaction when there is one. */
export async function enqueueDeliveryJob(db: DbConn, deliveryId: string, runAt: Date): Promise<void> {
  await jobs.deliver_webhook.add(db, { deliveryId }, { runAt, key: `webhook:${deliveryId}`, maxAttempts: 10 });
}

/** An attempt that was just claimed: everything needed to sign and send it. */
export interface ClaimedAttempt {
  id: string;
  wallet_id: string;
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

/**
 * Claims the next attempt of up to `limit` due, pending deliveries (given by id or by
 * batch) in ONE statement: locks them (skipping any another worker holds), counts the
 * attempt, moves the schedule to the following slot (so a worker dying mid-attempt leaves
 * the schedule intact) and logs the attempt. Only one caller can ever claim an attempt.
 */
export async function claimAttempts(
  db: DbConn,
  c: { ids?: string[]; batch?: string; now: Date; limit: number; retryDelaysMs: number[]; finalGraceMs: number },
): Promise<ClaimedAttempt[]> {
  const which = c.batch !== undefined ? sql`batch_id = ${c.batch}::uuid` : sql`id = ANY(${c.ids ?? []}::uuid[])`;
  const { rows } = await sql<ClaimedAttempt>`
    WITH due AS (
      SELECT id FROM webhook_deliveries
       WHERE ${which} AND status = 'pending' AND next_attempt_at <= ${c.now} AND attempts < max_attempts
       ORDER BY id LIMIT ${c.limit}
         FOR UPDATE SKIP LOCKED
    ), claimed AS (
      UPDATE webhook_deliveries d
         SET attempts = d.attempts + 1, last_attempt_at = ${c.now}, updated_at = ${c.now},
             next_attempt_at = ${c.now}::timestamptz + interval '1 millisecond' *
               CASE WHEN d.attempts + 1 < d.max_attempts THEN coalesce((${c.retryDelaysMs}::bigint[])[d.attempts + 1], ${c.finalGraceMs})
                    ELSE ${c.finalGraceMs} END
        FROM due WHERE d.id = due.id
      RETURNING d.id, d.wallet_id, d.event_id, d.url, d.body, d.attempts AS attempt, d.max_attempts
    ), logged AS (
      INSERT INTO webhook_attempts (id, delivery_id, attempt, attempted_at)
      SELECT gen_random_uuid(), id, attempt, ${c.now} FROM claimed
    )
    SELECT c.id, c.wallet_id, c.url, coalesce(c.body, e.body) AS body, c.attempt, c.max_attempts, ch.network, k.id AS key_id,
           ws.secret_ids, ws.api_key_signs
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
      ) ws`.execute(db);
  return rows;
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

export interface DeliveryRow {
  id: string;
  transaction_id: string | null;
  event: string;
  reference: string;
  url: string;
  body: string;
  status: string;
  attempts: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  response: string | null;
  created_at: Date;
  updated_at: Date;
}

const deliveryColumns = sql`d.id, d.transaction_id, d.event, d.reference, d.url, coalesce(d.body, e.body) AS body, d.status, d.attempts,
  d.next_attempt_at, d.last_attempt_at, d.last_status_code, d.response, d.created_at, d.updated_at`;

export async function deliveriesOfTransaction(db: DbConn, walletId: string, transactionId: string): Promise<DeliveryRow[]> {
  const { rows } = await sql<DeliveryRow>`SELECT ${deliveryColumns} FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
     WHERE d.wallet_id = ${walletId} AND d.transaction_id = ${transactionId} ORDER BY d.created_at DESC, d.id DESC`.execute(db);
  return rows;
}

export async function deliveriesOfWallet(db: DbConn, walletId: string, offset: number, limit: number): Promise<DeliveryRow[]> {
  const { rows } = await sql<DeliveryRow>`SELECT ${deliveryColumns} FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
     WHERE d.wallet_id = ${walletId} ORDER BY d.created_at DESC, d.id DESC OFFSET ${offset} LIMIT ${limit}`.execute(db);
  return rows;
}

export async function countDeliveriesOfWallet(db: DbConn, walletId: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM webhook_deliveries WHERE wallet_id = ${walletId}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

export interface DeliveryFilter {
  businessId: string;
  walletId?: string;
  status?: string;
  event?: string;
}

function businessDeliveries(f: DeliveryFilter) {
  return sql.join(
    [
      sql`d.wallet_id IN (SELECT id FROM wallets WHERE business_id = ${f.businessId})`,
      ...(f.walletId ? [sql`d.wallet_id = ${f.walletId}`] : []),
      ...(f.status ? [sql`d.status = ${f.status}`] : []),
      ...(f.event ? [sql`d.event = ${f.event}`] : []),
    ],
    sql` AND `,
  );
}

/** A business's deliveries across its wallets, newest first (the dashboard's delivery log). */
export async function deliveriesOfBusiness(
  db: DbConn,
  f: DeliveryFilter,
  offset: number,
  limit: number,
): Promise<{ rows: (DeliveryRow & { wallet_id: string })[]; total: number }> {
  const [{ rows }, { rows: count }] = await Promise.all([
    sql<DeliveryRow & { wallet_id: string }>`
      SELECT ${deliveryColumns}, d.wallet_id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
       WHERE ${businessDeliveries(f)} ORDER BY d.created_at DESC, d.id DESC OFFSET ${offset} LIMIT ${limit}`.execute(db),
    sql<{ n: string }>`SELECT count(*)::text AS n FROM webhook_deliveries d WHERE ${businessDeliveries(f)}`.execute(db),
  ]);
  return { rows, total: Number(count[0]!.n) };
}

/** The event a delivery of the business carried (a resend delivers it again). */
export async function eventOfDelivery(db: DbConn, businessId: string, deliveryId: string): Promise<EventRow | undefined> {
  const { rows } = await sql<EventRow>`
    SELECT e.id, e.wallet_id, e.transaction_id, e.name, e.reference, e.body, e.payload FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
     WHERE d.id = ${deliveryId} AND d.wallet_id IN (SELECT id FROM wallets WHERE business_id = ${businessId})`.execute(db);
  return rows[0];
}

export async function findDelivery(db: DbConn, walletId: string, id: string): Promise<DeliveryRow | undefined> {
  const { rows } = await sql<DeliveryRow>`SELECT ${deliveryColumns} FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
     WHERE d.wallet_id = ${walletId} AND d.id = ${id}`.execute(db);
  return rows[0];
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  attempted_at: Date;
  status_code: number | null;
  response: string | null;
  error: string | null;
  duration_ms: number | null;
}

export async function attemptsOf(db: DbConn, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  const { rows } = await sql<AttemptRow>`SELECT delivery_id, attempt, attempted_at, status_code, response, error, duration_ms
       FROM webhook_attempts WHERE delivery_id = ANY(${deliveryIds}::uuid[]) ORDER BY delivery_id, attempt`.execute(db);
  return rows;
}
