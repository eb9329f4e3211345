import { sql } from 'kysely';
import type { DbConn, DbTx } from '../../db/pool.js';
import { entryHash, GENESIS, normaliseDetails, type ChainedContent, type StoredEntry } from './chain.js';

export interface AuditEntry {
  id: string;
  businessId: string | null;
  walletId: string | null;
  actor: string;
  action: string;
  targetType?: string;
  targetId?: string;
  details?: Record<string, unknown>;
  requestId?: string;
}

/** Every append holds this lock until its transaction ends: one chain, one writer at a time. */
const CHAIN_LOCK = sql`hashtextextended('audit-log-chain', 0)`;

/**
 * Appends entries to the chain inside `tx`, under the chain's lock (held to commit, so the
 * next writer reads this one's hash as its head). Entries written before the chain existed
 * are chained first, in their order.
 */
export async function appendChained(tx: DbTx, entries: AuditEntry[], now: Date): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${CHAIN_LOCK})`.execute(tx);
  let prev = await headHash(tx);
  const { rows: legacy } = await sql<StoredEntry>`
    SELECT seq::text AS seq, id, business_id, wallet_id, actor, action, target_type, target_id, details, request_id, created_at,
           prev_hash, hash
      FROM audit_log a WHERE hash IS NULL ORDER BY a.seq`.execute(tx);
  for (const e of legacy) {
    const hash = entryHash(prev, e);
    await sql`UPDATE audit_log SET prev_hash = ${prev}, hash = ${hash} WHERE id = ${e.id} AND hash IS NULL`.execute(tx);
    prev = hash;
  }
  for (const e of entries) {
    const row: ChainedContent = {
      id: e.id,
      business_id: e.businessId,
      wallet_id: e.walletId,
      actor: e.actor,
      action: e.action,
      target_type: e.targetType ?? null,
      target_id: e.targetId ?? null,
      details: normaliseDetails(e.details),
      request_id: e.requestId ?? null,
      created_at: now,
    };
    const hash = entryHash(prev, row);
    await sql`
      INSERT INTO audit_log (id, business_id, wallet_id, actor, action, target_type, target_id, details, request_id, created_at,
                             prev_hash, hash)
      VALUES (${row.id}, ${row.business_id}, ${row.wallet_id}, ${row.actor}, ${row.action}, ${row.target_type}, ${row.target_id},
              ${row.details === null ? null : JSON.stringify(row.details)}::jsonb, ${row.request_id}, ${now}, ${prev}, ${hash})`.execute(
      tx,
    );
    prev = hash;
  }
}

async function headHash(db: DbConn): Promise<string> {
  const { rows } = await sql<{ hash: string }>`
    SELECT hash FROM audit_log WHERE hash IS NOT NULL ORDER BY seq DESC LIMIT 1`.execute(db);
  return rows[0]?.hash ?? GENESIS;
}

/** Entries in chain order after `afterSeq` (keyset pages for the verifier). */
export async function chainPage(db: DbConn, afterSeq: string | null, limit: number): Promise<StoredEntry[]> {
  const { rows } = await sql<StoredEntry>`
    SELECT seq::text AS seq, id, business_id, wallet_id, actor, action, target_type, target_id, details, request_id, created_at,
           prev_hash, hash
      FROM audit_log a WHERE a.seq > ${afterSeq ?? '0'}::bigint ORDER BY a.seq LIMIT ${limit}`.execute(db);
  return rows;
}

export function listAudit(db: DbConn, walletId: string, limit = 100) {
  return db.selectFrom('audit_log').selectAll().where('wallet_id', '=', walletId).orderBy('seq', 'desc').limit(limit).execute();
}

/** A business's entries, newest first (the dashboard's audit page). */
export async function listBusinessAudit(
  db: DbConn,
  businessId: string,
  offset: number,
  limit: number,
): Promise<{
  rows: {
    seq: string;
    actor: string;
    action: string;
    target_type: string | null;
    target_id: string | null;
    details: unknown;
    created_at: Date;
    hash: string | null;
  }[];
  total: number;
}> {
  const [{ rows }, { rows: count }] = await Promise.all([
    sql<{
      seq: string;
      actor: string;
      action: string;
      target_type: string | null;
      target_id: string | null;
      details: unknown;
      created_at: Date;
      hash: string | null;
    }>`
      SELECT seq::text AS seq, actor, action, target_type, target_id, details, created_at, hash FROM audit_log
       WHERE business_id = ${businessId} ORDER BY audit_log.seq DESC OFFSET ${offset} LIMIT ${limit}`.execute(db),
    sql<{ n: string }>`SELECT count(*)::text AS n FROM audit_log WHERE business_id = ${businessId}`.execute(db),
  ]);
  return { rows, total: Number(count[0]!.n) };
}

/**
 * The newest `limit` entries of `action` on a target since its latest `marker` entry (all of
 * them without one), and how many there are in all.
 */
export async function listSinceMarker(
  db: DbConn,
  targetId: string,
  action: string,
  marker: string,
  limit: number,
): Promise<{ total: number; entries: { details: unknown; created_at: Date }[] }> {
  const { rows } = await sql<{ details: unknown; created_at: Date; total: string }>`
    SELECT details, created_at, count(*) OVER () AS total FROM audit_log
     WHERE target_id = ${targetId} AND action = ${action}
       AND seq > coalesce((SELECT max(seq) FROM audit_log WHERE target_id = ${targetId} AND action = ${marker}), 0)
     ORDER BY seq DESC LIMIT ${limit}`.execute(db);
  return { total: Number(rows[0]?.total ?? 0), entries: rows.map(({ details, created_at }) => ({ details, created_at })) };
}
