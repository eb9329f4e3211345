import { sql, type RawBuilder } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import type { Position } from './cursor.js';

/** Whose events: one wallet's, or every wallet's of a business (wallets created later too). */
export type Scope = { walletId: string } | { businessId: string };

export interface FeedRow {
  id: string;
  txid: string;
  wallet_id: string;
  transaction_id: string | null;
  name: string;
  reference: string;
  /** The webhook body, `{"event":…,"data":…}` (a test event adds `"test":true`). */
  body: string;
  created_at: Date;
  delivery_id: string | null;
  delivery_status: string | null;
  delivery_attempts: number | null;
  last_status_code: number | null;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
}

const inScope = (scope: Scope): RawBuilder<unknown> =>
  'walletId' in scope
    ? sql`e.wallet_id = ${scope.walletId}::uuid`
    : sql`e.wallet_id IN (SELECT id FROM wallets WHERE business_id = ${scope.businessId}::uuid)`;

const ofTypes = (types: readonly string[] | null): RawBuilder<unknown> => (types ? sql`e.name = ANY(${types}::text[])` : sql`true`);

/** An event's columns (`e`) and its latest delivery's (`d`): join `latestDelivery` as `d`. */
const feedColumns = (e: string) =>
  sql.raw(`${e}.id, ${e}.txid::text AS txid, ${e}.wallet_id, ${e}.transaction_id, ${e}.name, ${e}.reference, ${e}.body, ${e}.created_at,
           d.id AS delivery_id, d.status AS delivery_status, d.attempts AS delivery_attempts, d.last_status_code,
           d.last_attempt_at, d.next_attempt_at`);
const latestDelivery = (e: string) =>
  sql.raw(`LEFT JOIN LATERAL (
        SELECT id, status, attempts, last_status_code, last_attempt_at, next_attempt_at FROM webhook_deliveries
         WHERE event_id = ${e}.id ORDER BY created_at DESC, id DESC LIMIT 1
      ) d ON true`);
/** The columns of `events e` a feed row needs; events written before migration 006 keep their payload only: their body is rebuilt from it. */
const eventColumns = sql`e.id, e.txid, e.wallet_id, e.transaction_id, e.name, e.reference, e.created_at,
  coalesce(e.body, json_build_object('event', e.name, 'data', e.payload)::text) AS body`;

/** Every transaction older than this one has ended: its events (if any) are all visible. */
const horizon = sql`pg_snapshot_xmin(pg_current_snapshot())`;

/**
 * The events after `after`, oldest first, that no transaction still running can come
 * before (migration 031): each with its latest delivery.
 */
export async function eventsAfter(
  db: DbConn,
  q: { scope: Scope; after: Position; types: readonly string[] | null; limit: number },
): Promise<FeedRow[]> {
  const { rows } = await sql<FeedRow>`
    WITH page AS (
      SELECT ${eventColumns}
        FROM events e
       WHERE ${inScope(q.scope)} AND ${ofTypes(q.types)}
         AND (e.txid, e.id) > (${q.after.txid}::xid8, ${q.after.id}::uuid)
         AND e.txid < ${horizon}
       ORDER BY e.txid, e.id
       LIMIT ${q.limit}
    )
    SELECT ${feedColumns('p')} FROM page p ${latestDelivery('p')}
     ORDER BY p.txid, p.id`.execute(db);
  return rows;
}

/**
 * Whether events after `after` have committed but wait behind a transaction still running
 * (which may write no event, so nothing would wake a stream when it ends): the stream then
 * looks again shortly.
 */
export async function eventsHeld(db: DbConn, q: { scope: Scope; after: Position; types: readonly string[] | null }): Promise<boolean> {
  const { rows } = await sql<{ held: boolean }>`
    SELECT EXISTS (
      SELECT 1 FROM events e
       WHERE ${inScope(q.scope)} AND ${ofTypes(q.types)}
         AND (e.txid, e.id) > (${q.after.txid}::xid8, ${q.after.id}::uuid)
         AND e.txid >= ${horizon}
    ) AS held`.execute(db);
  return rows[0]?.held ?? false;
}

/** The txid from which events are still to come: a stream without a cursor starts there. */
export async function currentHorizon(db: DbConn): Promise<string> {
  const { rows } = await sql<{ txid: string }>`SELECT ${horizon}::text AS txid`.execute(db);
  return rows[0]!.txid;
}

/** One event of the scope (with its latest delivery), whatever its position. */
export async function eventById(db: DbConn, scope: Scope, id: string): Promise<FeedRow | undefined> {
  const { rows } = await sql<FeedRow>`
    SELECT ${feedColumns('f')} FROM (SELECT ${eventColumns} FROM events e WHERE e.id = ${id}::uuid AND ${inScope(scope)}) f
      ${latestDelivery('f')}`.execute(db);
  return rows[0];
}

/** Whether an API key is still live (a stream ends when its key is revoked or regenerated). */
export async function keyIsLive(db: DbConn, keyId: string): Promise<boolean> {
  const { rows } = await sql<{ live: boolean }>`
    SELECT EXISTS (SELECT 1 FROM api_keys WHERE id = ${keyId}::uuid AND revoked_at IS NULL) AS live`.execute(db);
  return rows[0]?.live ?? false;
}
