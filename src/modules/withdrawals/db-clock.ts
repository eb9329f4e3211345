/**
 * The database time and spender lists the funds check reads (funds.ts, "T" and "P"), shared
 * by concurrent requests for a moment instead of read by each.
 */
import { databaseNow, type DbConn } from '../../db/pool.js';
import * as store from './store.js';

type Spenders = Awaited<ReturnType<typeof store.spenders>>;

/**
 * The database's time for snapshots, shared by concurrent requests: one query per
 * `maxAgeMs` instead of one per request. Any time read before a balance read is a valid
 * T (see the header of funds.ts); an earlier one only holds back more, never less. Likewise each
 * sender's list of spenders, with the time it was read (T is never later than that).
 */
export class DbClock {
  #last: { at: number; value: Promise<Date> } | null = null;
  readonly #spenders = new Map<string, { at: number; value: Promise<Spenders> }>();

  constructor(private readonly maxAgeMs = 250) {}

  now(db: DbConn): Promise<Date> {
    const last = this.#last;
    if (last && Date.now() - last.at < this.maxAgeMs) return last.value;
    const entry = { at: Date.now(), value: databaseNow(db) };
    this.#last = entry;
    entry.value.catch(() => this.#last === entry && (this.#last = null));
    return entry.value;
  }

  spenders(db: DbConn, chainId: string, owner: string): Promise<Spenders> {
    const key = `${chainId}:${owner}`;
    const cached = this.#spenders.get(key);
    if (cached && Date.now() - cached.at < this.maxAgeMs) return cached.value;
    if (this.#spenders.size >= 1_000) {
      for (const [k, e] of this.#spenders) if (Date.now() - e.at >= this.maxAgeMs) this.#spenders.delete(k);
    }
    const entry = { at: Date.now(), value: store.spenders(db, chainId, owner) };
    this.#spenders.set(key, entry);
    entry.value.catch(() => this.#spenders.get(key) === entry && this.#spenders.delete(key));
    return entry.value;
  }
}
