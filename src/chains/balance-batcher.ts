/**
 * Coalesces balance reads. Calls made while another read is in flight (or in the same
 * event-loop turn) are sent together as one batch, identical (owner, token) pairs once.
 * Every caller's read still starts after it asked, so nothing is served stale; under load
 * a busy wallet costs the node one multicall per round trip instead of one per request.
 * Two queries are identical when their addresses are (addressKey: hex spellings meet, base58
 * spellings that differ in case are two addresses).
 *
 * A batch holds many callers' queries, often of different wallets and businesses: a query
 * that fails alone (its `read` answers an Error in its place) fails only the callers that
 * asked for it. Only a read that fails as a whole (the node down) fails them all.
 */
import { addressKey } from './address-key.js';
import type { BalanceQuery } from './types.js';

interface Pending {
  key: string;
  query: BalanceQuery;
  resolve(value: bigint): void;
  reject(err: unknown): void;
}

export class BalanceBatcher {
  #queue: Pending[] = [];
  #inFlight = 0;
  #scheduled = false;

  constructor(
    /** Each query's balance, or the Error of that query alone, in order; throws when the read as a whole failed. */
    private readonly read: (queries: BalanceQuery[]) => Promise<(bigint | Error)[]>,
    private readonly opts: { maxBatch: number; maxInFlight: number } = { maxBatch: 300, maxInFlight: 4 },
  ) {}

  load(queries: BalanceQuery[]): Promise<bigint[]> {
    const results = queries.map(
      (query) =>
        new Promise<bigint>((resolve, reject) =>
          this.#queue.push({
            key: `${addressKey(query.owner)}|${query.token === null ? '' : addressKey(query.token)}`,
            query,
            resolve,
            reject,
          }),
        ),
    );
    this.#schedule();
    return Promise.all(results);
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= this.opts.maxInFlight || this.#queue.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#queue.splice(0, this.opts.maxBatch);
    if (batch.length === 0) return;
    const unique = new Map<string, BalanceQuery>();
    for (const p of batch) if (!unique.has(p.key)) unique.set(p.key, p.query);
    this.#inFlight++;
    try {
      const keys = [...unique.keys()];
      const values = await this.read([...unique.values()]);
      const byKey = new Map(keys.map((k, i) => [k, values[i]]));
      for (const p of batch) {
        const value = byKey.get(p.key);
        if (value === undefined) p.reject(new Error('balance read returned fewer results than asked'));
        else if (value instanceof Error) p.reject(value);
        else p.resolve(value);
      }
    } catch (err) {
      for (const p of batch) p.reject(err);
    } finally {
      this.#inFlight--;
      this.#schedule();
    }
  }
}
