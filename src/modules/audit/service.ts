/** The audit trail of sensitive operations (key exports, key rotation, dashboard sign-ins). Append-only. */
import type { Db, DbConn } from '../../db/pool.js';
import { uuidv7 } from '../../lib/ids.js';
import * as store from './store.js';

export type AuditRecord = Omit<store.AuditEntry, 'id'>;

export class AuditService {
  constructor(private readonly db: Db) {}

  async record(entry: AuditRecord, db: DbConn = this.db): Promise<void> {
    await store.insertAudit(db, { id: uuidv7(), ...entry });
  }

  /**
   * The newest `limit` `action` entries of a target since its latest `marker` entry, and
   * their total: e.g. a dashboard user's failed sign-ins since the last successful one.
   */
  sinceLast(target: { id: string; action: string; marker: string; limit: number }, db: DbConn = this.db) {
    return store.listSinceMarker(db, target.id, target.action, target.marker, target.limit);
  }

  list(walletId: string, limit?: number) {
    return store.listAudit(this.db, walletId, limit);
  }
}
