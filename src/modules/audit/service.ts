/** The audit trail of sensitive operations (key exports, key rotation). Append-only. */
import type { Db, DbConn } from '../../db/pool.js';
import { uuidv7 } from '../../lib/ids.js';
import * as store from './store.js';

export type AuditRecord = Omit<store.AuditEntry, 'id'>;

export class AuditService {
  constructor(private readonly db: Db) {}

  async record(entry: AuditRecord, db: DbConn = this.db): Promise<void> {
    await store.insertAudit(db, { id: uuidv7(), ...entry });
  }

  list(walletId: string, limit?: number) {
    return store.listAudit(this.db, walletId, limit);
  }
}
