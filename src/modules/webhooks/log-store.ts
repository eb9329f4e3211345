/**
 * The delivery log as the API and the dashboard read it: a transaction's, a wallet's and a
 * business's deliveries, each with its attempts, and the event a resend delivers again.
 */
import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import type { EventRow } from './store.js';

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
