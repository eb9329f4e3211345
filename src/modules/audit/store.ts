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
