/**
 * The audit trail of sensitive operations (key exports, key rotation, dashboard sign-ins,
 * policy changes, approvals): append-only (a trigger refuses UPDATE, DELETE and TRUNCATE)
 * and hash-chained (chain.ts), so `audit-verify` finds the first entry changed, removed or
 * inserted after the fact.
 */
import type { Db, DbConn, DbTx } from '../../db/pool.js';
import { uuidv7 } from '../../lib/ids.js';
import { pageMeta, type PageMeta } from '../../lib/schema.js';
import { ChainWalker, type BrokenLink } from './chain.js';
import * as store from './store.js';

export type AuditRecord = Omit<store.AuditEntry, 'id'>;
export type { BrokenLink } from './chain.js';

export interface AuditListEntry {
  seq: string;
  actor: string;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: unknown;
  createdAt: string;
  hash: string | null;
}

/** What `audit-verify` reports. */
export interface ChainReport {
  /** Entries whose link and hash were checked and hold. */
  verified: number;
  /** Entries written before the chain existed and not chained yet (the next append chains them). */
  unchained: number;
  /** The last verified entry's hash: record it elsewhere, and pass it back to prove nothing after it was cut. */
  head: string;
  broken: BrokenLink | null;
  /** With an anchor given: whether that hash is in the chain. */
  anchorFound?: boolean;
}

const PAGE = 1_000;

export class AuditService {
  constructor(private readonly db: Db) {}

  /** Appends one entry, in `db`'s transaction when it is one (so it commits with the change it records). */
  async record(entry: AuditRecord, db: DbConn = this.db): Promise<void> {
    await this.recordMany([entry], db);
  }

  async recordMany(entries: AuditRecord[], db: DbConn = this.db): Promise<void> {
    if (entries.length === 0) return;
    const rows = entries.map((e) => ({ id: uuidv7(), ...e }));
    const append = (tx: DbTx) => store.appendChained(tx, rows, new Date());
    if (db.isTransaction) await append(db as DbTx);
    else await db.transaction().execute(append);
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

  /** A business's entries, newest first. */
  async listBusiness(businessId: string, page: number, limit: number): Promise<{ items: AuditListEntry[]; meta: PageMeta }> {
    const { rows, total } = await store.listBusinessAudit(this.db, businessId, (page - 1) * limit, limit);
    return {
      items: rows.map((r) => ({
        seq: r.seq,
        actor: r.actor,
        action: r.action,
        targetType: r.target_type,
        targetId: r.target_id,
        details: r.details,
        createdAt: r.created_at.toISOString(),
        hash: r.hash,
      })),
      meta: pageMeta(page, limit, rows.length, total),
    };
  }

  /** Recomputes the whole chain from the stored entries; stops at the first broken link. */
  async verify(anchor?: string): Promise<ChainReport> {
    const walker = new ChainWalker(anchor);
    let after: string | null = null;
    for (;;) {
      const page = await store.chainPage(this.db, after, PAGE);
      for (const e of page) {
        const broken = walker.step(e);
        if (broken) return report(walker, broken, anchor);
      }
      if (page.length < PAGE) return report(walker, null, anchor);
      after = page[page.length - 1]!.seq;
    }
  }
}

function report(w: ChainWalker, broken: BrokenLink | null, anchor?: string): ChainReport {
  return {
    verified: w.chained,
    unchained: w.unchained,
    head: w.head,
    broken,
    ...(anchor !== undefined ? { anchorFound: w.anchorSeen } : {}),
  };
}
