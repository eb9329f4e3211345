import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';

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

export async function insertAudit(db: DbConn, e: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      id: e.id,
      business_id: e.businessId,
      wallet_id: e.walletId,
      actor: e.actor,
      action: e.action,
      target_type: e.targetType ?? null,
      target_id: e.targetId ?? null,
      details: e.details ? JSON.stringify(e.details) : null,
      request_id: e.requestId ?? null,
    })
    .execute();
}

export function listAudit(db: DbConn, walletId: string, limit = 100) {
  return db.selectFrom('audit_log').selectAll().where('wallet_id', '=', walletId).orderBy('created_at', 'desc').limit(limit).execute();
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
       AND created_at > coalesce(
             (SELECT max(created_at) FROM audit_log WHERE target_id = ${targetId} AND action = ${marker}), '-infinity')
     ORDER BY created_at DESC LIMIT ${limit}`.execute(db);
  return { total: Number(rows[0]?.total ?? 0), entries: rows.map(({ details, created_at }) => ({ details, created_at })) };
}
