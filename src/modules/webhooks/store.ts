/**
 * What emitting an event writes: the event, its delivery when the wallet has a webhook URL,
 * and the delivery's job (the outbox), one event or a range's at a time; a resend's new
 * delivery. The sender's claims and outcomes are attempts-store.ts; the log's reads
 * log-store.ts.
 */
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

/**
 * The job of a delivery batch, or of one delivery (`dl` is the inserted deliveries).
 *
 * A batch's job is queued by the first statement that writes a delivery of the batch: one
 * that wrote some while none of the batch was there before it (a statement's reads do not
 * see its own inserts; a batch belongs to one transaction, whose deliveries stay pending
 * until it commits). Not simply by the batch's first statement: that one may write events
 * only (their wallets have no URL), and the deliveries of the statements after it (another
 * wallet's, in an indexer range) would have had no job and waited for the sweep.
 */
const jobOf = (job: JobPlan) =>
  job.batch === null
    ? sql`SELECT count(${jobs.deliver_webhook.addSql({ deliveryId: sql`dl.id::text` }, { key: sql`'webhook:' || dl.id::text`, maxAttempts: 10 })}) FROM dl`
    : sql`SELECT count(${jobs.deliver_webhook.addSql({ batch: sql`${job.batch}::text` }, { maxAttempts: 10 })})
            FROM (SELECT 1 FROM dl LIMIT 1) one
           WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries b WHERE b.batch_id = ${job.batch}::uuid AND b.status = 'pending')`;

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

/**
 * The bytes an event written before migration 006 (no body of its own) was first delivered
 * with: its oldest delivery's own copy; null when it has none.
 */
export async function firstDeliveryBody(db: DbConn, eventId: string): Promise<string | null> {
  const { rows } = await sql<{ body: string }>`SELECT body FROM webhook_deliveries WHERE event_id = ${eventId} AND body IS NOT NULL
    ORDER BY created_at, id LIMIT 1`.execute(db);
  return rows[0]?.body ?? null;
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

/**
 * The event written last for the transaction: by the database's write order (`seq`,
 * migration 066), not by `created_at`, the writing process's clock. Events from before the
 * migration have no `seq` and come after every numbered one; among themselves, by time.
 */
export async function latestEventOfTransaction(db: DbConn, transactionId: string): Promise<EventRow | undefined> {
  const { rows } = await sql<EventRow>`SELECT id, wallet_id, transaction_id, name, reference, body, payload FROM events
                                       WHERE transaction_id = ${transactionId}
                                       ORDER BY seq DESC NULLS LAST, created_at DESC, id DESC LIMIT 1`.execute(db);
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

/** A batch's job again (held back for its business's share: delivery.ts DEFER_MS). */
export async function enqueueBatchJob(db: DbConn, batch: string, runAt: Date): Promise<void> {
  await jobs.deliver_webhook.add(db, { batch }, { runAt, maxAttempts: 10 });
}
