/**
 * A small bounded in-process cache for read-mostly rows (wallets, wallet assets) and for
 * unknown API keys, with the guarantees invalidation needs:
 *
 * - Entries expire `ttlMs` after the read that produced them began (not after it ended): a
 *   safety net should an invalidation ever be missed, which then bounds how long a change
 *   committed after that read can go unseen, however slow the read was.
 * - At most `maxEntries` entries (the oldest insertion goes first), so no input can grow
 *   memory without bound. `getOrLoad` stores only values its loader found (a missing
 *   wallet is not cached); a cache of misses (unknown API keys) stores them with `set`.
 * - A generation counter: every invalidation bumps it, and a load that started before an
 *   invalidation is not stored after it. Without this, a read that began before a change
 *   could put the old value back into the cache after the flush.
 * - Concurrent misses for one key share a single load, but never across an invalidation:
 *   a request that arrives after a flush starts a fresh load.
 * - It can be switched off (while its invalidation feed is down): then every read loads.
 */

export interface TtlCacheOptions {
  ttlMs: number;
  maxEntries: number;
  /** Injectable for tests. */
  now?: () => number;
}

interface Entry<V> {
  value: V;
  expires: number;
}

export class TtlCache<K, V> {
  readonly #entries = new Map<K, Entry<V>>();
  readonly #loading = new Map<K, Promise<V | undefined>>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  #generation = 0;
  #enabled: boolean;

  constructor(opts: TtlCacheOptions, enabled = true) {
    if (!(opts.maxEntries >= 1)) throw new Error('maxEntries must be at least 1');
    this.#ttlMs = opts.ttlMs;
    this.#maxEntries = opts.maxEntries;
    this.#now = opts.now ?? Date.now;
    this.#enabled = enabled && opts.ttlMs > 0;
  }

  get size(): number {
    return this.#entries.size;
  }

  get enabled(): boolean {
    return this.#enabled;
  }

  /** The current generation; pass it back to `set` to store a value loaded since. */
  get generation(): number {
    return this.#generation;
  }

  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /**
   * Stores a value loaded while `generation` was current, read at `since` (when the read
   * began; default now): it expires `ttlMs` after that. Refused (false) when an
   * invalidation happened since, while the cache is switched off, or when it has expired already.
   */
  set(key: K, value: V, generation = this.#generation, since = this.#now()): boolean {
    if (!this.#enabled || generation !== this.#generation) return false;
    const expires = since + this.#ttlMs;
    if (expires <= this.#now()) return false;
    this.#entries.delete(key);
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expires });
    return true;
  }

  /**
   * The cached value, or the loader's (stored when it is not undefined). Concurrent callers
   * for one key share the load started in the current generation.
   */
  getOrLoad(key: K, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const hit = this.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    if (!this.#enabled) return load();
    const pending = this.#loading.get(key);
    if (pending) return pending;
    const generation = this.#generation;
    const since = this.#now();
    const promise = load()
      .then((value) => {
        if (value !== undefined) this.set(key, value, generation, since);
        return value;
      })
      .finally(() => {
        if (this.#loading.get(key) === promise) this.#loading.delete(key);
      });
    this.#loading.set(key, promise);
    return promise;
  }

  /** Forgets one key; loads in flight (of any key) will not be stored. */
  delete(key: K): void {
    this.#generation++;
    this.#entries.delete(key);
    this.#loading.delete(key);
  }

  /** Forgets everything; loads in flight will not be stored. */
  clear(): void {
    this.#generation++;
    this.#entries.clear();
    this.#loading.clear();
  }

  /** Switched off: empty, every read loads, nothing is stored. Switched on: starts empty. */
  setEnabled(enabled: boolean): void {
    this.clear();
    this.#enabled = enabled && this.#ttlMs > 0;
  }
}
