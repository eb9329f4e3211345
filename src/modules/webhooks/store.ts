import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';

export interface NewEvent {
  id: string;
  walletId: string;
  transactionId: string | null;
  name: string;
  reference: string;
  payload: unknown;
  createdAt: Date;
}

export async function insertEvent(db: DbConn, e: NewEvent): Promise<void> {
  await sql`INSERT INTO events (id, wallet_id, transaction_id, name, reference, payload, created_at)
            VALUES (${e.id}, ${e.walletId}, ${e.transactionId}, ${e.name}, ${e.reference}, ${JSON.stringify(e.payload)}::jsonb, ${e.createdAt})`.execute(
    db,
  );
}

export interface EventRow {
  id: string;
  wallet_id: string;
  transaction_id: string | null;
  name: string;
  reference: string;
  payload: unknown;
}

export async function latestEventOfTransaction(db: DbConn, transactionId: string): Promise<EventRow | undefined> {
  const { rows } = await sql<EventRow>`SELECT id, wallet_id, transaction_id, name, reference, payload FROM events
                                       WHERE transaction_id = ${transactionId} ORDER BY created_at DESC, id DESC LIMIT 1`.execute(db);
  return rows[0];
}

export async function walletWebhookUrl(db: DbConn, walletId: string): Promise<string | null> {
  const { rows } = await sql<{ webhook_url: string | null }>`SELECT webhook_url FROM wallets WHERE id = ${walletId}`.execute(db);
  return rows[0]?.webhook_url ?? null;
}

export interface NewDelivery {
  id: string;
  eventId: string;
  walletId: string;
  transactionId: string | null;
  event: string;
  reference: string;
  url: string;
  body: string;
  maxAttempts: number;
  now: Date;
}

export async function insertDelivery(db: DbConn, d: NewDelivery): Promise<void> {
  await sql`INSERT INTO webhook_deliveries
              (id, event_id, wallet_id, transaction_id, event, reference, url, body, status, attempts, max_attempts, next_attempt_at, created_at, updated_at)
            VALUES (${d.id}, ${d.eventId}, ${d.walletId}, ${d.transactionId}, ${d.event}, ${d.reference}, ${d.url}, ${d.body},
                    'pending', 0, ${d.maxAttempts}, ${d.now}, ${d.now}, ${d.now})`.execute(db);
}

/** Queues a graphile-worker job in the caller's transaction (the outbox guarantee). */
export async function enqueueDeliveryJob(db: DbConn, deliveryId: string, runAt: Date): Promise<void> {
  await sql`SELECT graphile_worker.add_job('deliver_webhook', json_build_object('deliveryId', ${deliveryId}::text),
                                           run_at := ${runAt}, job_key := ${`webhook:${deliveryId}`}, max_attempts := 10)`.execute(db);
}

export interface ClaimableDelivery {
  id: string;
  wallet_id: string;
  url: string;
  body: string;
  attempts: number;
  max_attempts: number;
  network: string;
}

/** Locks a due, pending delivery (skipping one another worker holds). */
export async function lockDueDelivery(db: DbConn, id: string, now: Date): Promise<ClaimableDelivery | undefined> {
  const { rows } = await sql<ClaimableDelivery>`
    SELECT d.id, d.wallet_id, d.url, d.body, d.attempts, d.max_attempts, c.network
      FROM webhook_deliveries d
      JOIN wallets w ON w.id = d.wallet_id
      JOIN chains c ON c.id = w.chain_id
     WHERE d.id = ${id} AND d.status = 'pending' AND d.next_attempt_at <= ${now} AND d.attempts < d.max_attempts
       FOR UPDATE OF d SKIP LOCKED`.execute(db);
  return rows[0];
}

export async function markAttemptClaimed(db: DbConn, id: string, attempt: number, startedAt: Date, nextAttemptAt: Date): Promise<void> {
  await sql`UPDATE webhook_deliveries SET attempts = ${attempt}, last_attempt_at = ${startedAt}, next_attempt_at = ${nextAttemptAt}, updated_at = ${startedAt}
             WHERE id = ${id}`.execute(db);
}

export async function insertAttempt(db: DbConn, a: { id: string; deliveryId: string; attempt: number; attemptedAt: Date }): Promise<void> {
  await sql`INSERT INTO webhook_attempts (id, delivery_id, attempt, attempted_at) VALUES (${a.id}, ${a.deliveryId}, ${a.attempt}, ${a.attemptedAt})`.execute(
    db,
  );
}

export interface AttemptOutcome {
  statusCode: number | null;
  response: string | null;
  error: string | null;
  durationMs: number;
  finishedAt: Date;
}

export async function recordAttempt(db: DbConn, deliveryId: string, attempt: number, o: AttemptOutcome): Promise<void> {
  await sql`UPDATE webhook_attempts SET status_code = ${o.statusCode}, response = ${o.response}, error = ${o.error},
                   duration_ms = ${o.durationMs}, finished_at = ${o.finishedAt}
             WHERE delivery_id = ${deliveryId} AND attempt = ${attempt}`.execute(db);
}

/** Records the outcome on the delivery; `status` stays pending while retries remain. */
export async function settleDelivery(
  db: DbConn,
  id: string,
  s: { status: 'pending' | 'success' | 'failed'; statusCode: number | null; response: string | null; at: Date; clearNext: boolean },
): Promise<void> {
  await sql`UPDATE webhook_deliveries SET status = ${s.status}, last_status_code = ${s.statusCode}, response = ${s.response}, updated_at = ${s.at},
                   next_attempt_at = CASE WHEN ${s.clearNext} THEN NULL ELSE next_attempt_at END
             WHERE id = ${id}`.execute(db);
}

export async function dueDeliveries(db: DbConn, now: Date, limit: number) {
  const { rows } = await sql<{ id: string; attempts: number; max_attempts: number }>`
    SELECT id, attempts, max_attempts FROM webhook_deliveries
     WHERE status = 'pending' AND next_attempt_at <= ${now}
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

const deliveryColumns = sql`id, transaction_id, event, reference, url, body, status, attempts, next_attempt_at, last_attempt_at, last_status_code, response, created_at, updated_at`;

export async function deliveriesOfTransaction(db: DbConn, walletId: string, transactionId: string): Promise<DeliveryRow[]> {
  const { rows } = await sql<DeliveryRow>`SELECT ${deliveryColumns} FROM webhook_deliveries
     WHERE wallet_id = ${walletId} AND transaction_id = ${transactionId} ORDER BY created_at DESC, id DESC`.execute(db);
  return rows;
}

export async function deliveriesOfWallet(db: DbConn, walletId: string, offset: number, limit: number): Promise<DeliveryRow[]> {
  const { rows } = await sql<DeliveryRow>`SELECT ${deliveryColumns} FROM webhook_deliveries
     WHERE wallet_id = ${walletId} ORDER BY created_at DESC, id DESC OFFSET ${offset} LIMIT ${limit}`.execute(db);
  return rows;
}

export async function countDeliveriesOfWallet(db: DbConn, walletId: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM webhook_deliveries WHERE wallet_id = ${walletId}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

export async function findDelivery(db: DbConn, walletId: string, id: string): Promise<DeliveryRow | undefined> {
  const { rows } =
    await sql<DeliveryRow>`SELECT ${deliveryColumns} FROM webhook_deliveries WHERE wallet_id = ${walletId} AND id = ${id}`.execute(db);
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

/** Bulk forms of the outbox writes, for the indexer recording many deposits at once. */
export async function insertEvents(db: DbConn, events: NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  await sql`INSERT INTO events (id, wallet_id, transaction_id, name, reference, payload, created_at)
            SELECT * FROM unnest(${events.map((e) => e.id)}::uuid[], ${events.map((e) => e.walletId)}::uuid[],
                                 ${events.map((e) => e.transactionId)}::uuid[], ${events.map((e) => e.name)}::text[],
                                 ${events.map((e) => e.reference)}::text[], ${events.map((e) => JSON.stringify(e.payload))}::jsonb[],
                                 ${events.map((e) => e.createdAt)}::timestamptz[])`.execute(db);
}

export async function webhookUrls(db: DbConn, walletIds: string[]): Promise<Map<string, string>> {
  const { rows } = await sql<{ id: string; webhook_url: string }>`
    SELECT id, webhook_url FROM wallets WHERE id = ANY(${walletIds}::uuid[]) AND webhook_url IS NOT NULL`.execute(db);
  return new Map(rows.map((r) => [r.id, r.webhook_url]));
}

export async function insertDeliveries(db: DbConn, ds: NewDelivery[]): Promise<void> {
  if (ds.length === 0) return;
  await sql`INSERT INTO webhook_deliveries
              (id, event_id, wallet_id, transaction_id, event, reference, url, body, status, attempts, max_attempts, next_attempt_at, created_at, updated_at)
            SELECT id, event_id, wallet_id, transaction_id, event, reference, url, body, 'pending', 0, max_attempts, now_at, now_at, now_at
              FROM unnest(${ds.map((d) => d.id)}::uuid[], ${ds.map((d) => d.eventId)}::uuid[], ${ds.map((d) => d.walletId)}::uuid[],
                          ${ds.map((d) => d.transactionId)}::uuid[], ${ds.map((d) => d.event)}::text[], ${ds.map((d) => d.reference)}::text[],
                          ${ds.map((d) => d.url)}::text[], ${ds.map((d) => d.body)}::text[], ${ds.map((d) => d.maxAttempts)}::int[],
                          ${ds.map((d) => d.now)}::timestamptz[])
                AS t(id, event_id, wallet_id, transaction_id, event, reference, url, body, max_attempts, now_at)`.execute(db);
}

export async function enqueueDeliveryJobsNow(db: DbConn, deliveryIds: string[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  await sql`SELECT graphile_worker.add_jobs(array_agg(ROW('deliver_webhook', json_build_object('deliveryId', id::text), NULL, now(), 10,
                                                          'webhook:' || id::text, NULL, NULL)::graphile_worker.job_spec))
              FROM unnest(${deliveryIds}::uuid[]) AS id`.execute(db);
}
