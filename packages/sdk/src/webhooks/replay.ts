/**
 * Replay guard of the receiver kit: a verified delivery attempt is accepted once. Stores are
 * pluggable (one shared by every replica of a receiver, e.g. Redis `SET key 1 PXAT t NX`);
 * the default keeps entries in memory, bounded, for as long as the timestamp window would
 * still accept them (after that the timestamp check refuses the attempt anyway).
 */

/** Records attempts seen. Must be atomic: two concurrent claims of one key, one true. */
export interface ReplayStore {
  /**
   * True when `key` was not seen (it is then remembered until `expiresAtMs`), false when it
   * was: a replay. `nowMs` is the verifier's clock (the same one the timestamp check used).
   */
  claim(key: string, expiresAtMs: number, nowMs: number): boolean | Promise<boolean>;
}

/** A store `verifyWebhook` can use without awaiting. */
export interface SyncReplayStore extends ReplayStore {
  claim(key: string, expiresAtMs: number, nowMs: number): boolean;
}

/**
 * In-memory store, least recently added first out. Keep `maxEntries` above the deliveries
 * one receiver process gets within the timestamp window (5 minutes by default): past the
 * bound the oldest entries are dropped early, and a replay of those would pass.
 */
export class MemoryReplayStore implements SyncReplayStore {
  /** key -> expiry (ms); insertion order is roughly expiry order. */
  readonly #entries = new Map<string, number>();

  constructor(readonly maxEntries = 100_000) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
  }

  get size(): number {
    return this.#entries.size;
  }

  claim(key: string, expiresAtMs: number, nowMs: number): boolean {
    // Expired entries at the front go first; a few behind a live one wait for their turn.
    for (const [k, until] of this.#entries) {
      if (until > nowMs) break;
      this.#entries.delete(k);
    }
    const until = this.#entries.get(key);
    if (until !== undefined && until > nowMs) return false;
    this.#entries.delete(key);
    this.#entries.set(key, expiresAtMs);
    while (this.#entries.size > this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    return true;
  }
}
