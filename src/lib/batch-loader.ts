/**
 * Coalesces lookups by key into batched loads, with no cache.
 *
 * Keys asked for in the same event-loop turn, or while `maxInFlight` loads are already
 * running, are loaded together (each distinct key once). A key is only ever answered by a
 * load that started after it was asked for: a call joins the batch being collected, never
 * one already sent. So whatever a load reads is at least as fresh as the call, and nothing
 * is served from before it (what the API-key lookup relies on: a key revoked before a
 * request arrived is never accepted, in any process).
 */

interface Waiter<V> {
  resolve(value: V | undefined): void;
  reject(err: unknown): void;
}

export interface BatchLoaderOptions {
  /** Most keys per load (default 500). */
  maxBatch?: number;
  /** Loads running at once (default 4); more calls wait for the next batch. */
  maxInFlight?: number;
}

export class BatchLoader<K, V> {
  /** The batch being collected: key -> everyone waiting for it. */
  #pending = new Map<K, Waiter<V>[]>();
  #inFlight = 0;
  #scheduled = false;
  readonly #maxBatch: number;
  readonly #maxInFlight: number;

  constructor(
    /** Loads the given keys; keys it leaves out of the map resolve to undefined. */
    private readonly loadMany: (keys: K[]) => Promise<Map<K, V>>,
    opts: BatchLoaderOptions = {},
  ) {
    this.#maxBatch = opts.maxBatch ?? 500;
    this.#maxInFlight = opts.maxInFlight ?? 4;
  }

  /** Keys waiting for a load that has not started yet (for tests and metrics). */
  get waiting(): number {
    return this.#pending.size;
  }

  load(key: K): Promise<V | undefined> {
    return new Promise<V | undefined>((resolve, reject) => {
      const waiters = this.#pending.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.#pending.set(key, [{ resolve, reject }]);
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= this.#maxInFlight || this.#pending.size === 0) return;
    this.#scheduled = true;
    // After the I/O callbacks of this turn: the requests that arrived together share a load.
    setImmediate(() => {
      this.#scheduled = false;
      void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    if (this.#inFlight >= this.#maxInFlight || this.#pending.size === 0) return;
    const batch = new Map<K, Waiter<V>[]>();
    for (const [key, waiters] of this.#pending) {
      if (batch.size >= this.#maxBatch) break;
      batch.set(key, waiters);
    }
    for (const key of batch.keys()) this.#pending.delete(key);
    this.#inFlight++;
    // More than one batch's worth waiting: start the next one too, up to maxInFlight.
    this.#schedule();
    try {
      const found = await this.loadMany([...batch.keys()]);
      for (const [key, waiters] of batch) {
        const value = found.get(key);
        for (const w of waiters) w.resolve(value);
      }
    } catch (err) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
    } finally {
      this.#inFlight--;
      this.#schedule();
    }
  }
}
