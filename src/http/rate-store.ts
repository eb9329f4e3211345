/**
 * @fastify/rate-limit's in-memory store, answering each count as it was when that request
 * was counted.
 *
 * The library's LocalStore hands its callback the live entry of the key, and the plugin
 * reads `current` from it only after an `await`. When several requests of one key are
 * counted in the same turn of the event loop (a client's burst), each of them then reads the
 * count of the last one: a burst of five against a limit of two was refused whole, and a
 * client retrying in step after Retry-After could be refused again and again (seen in
 * test/sdk/retries.test.ts). Copying the entry at the moment it is counted restores the
 * rule: the first `max` requests of a window pass.
 */
import { createRequire } from 'node:module';

interface Entry {
  current: number;
  ttl: number;
}
type Callback = (err: Error | null, res?: Entry) => void;
interface Store {
  incr(key: string, cb: Callback, timeWindow: number, max: number): void;
  read(key: string, cb: Callback, timeWindow: number, max: number): void;
}
interface StoreOptions {
  continueExceeding?: boolean;
  exponentialBackoff?: boolean;
  cache?: number;
}

// The package does not export its store (no "exports" map, a plain file under store/).
const LocalStore = createRequire(import.meta.url)('@fastify/rate-limit/store/LocalStore.js') as new (
  continueExceeding: boolean | undefined,
  exponentialBackoff: boolean | undefined,
  cache: number | undefined,
) => Store;

const snapshot =
  (cb: Callback): Callback =>
  (err, res) =>
    cb(err, res && { current: res.current, ttl: res.ttl });

export class SnapshotStore {
  readonly #inner: Store;

  constructor(options: StoreOptions) {
    this.#inner = new LocalStore(options.continueExceeding, options.exponentialBackoff, options.cache);
  }

  incr(key: string, cb: Callback, timeWindow: number, max: number): void {
    this.#inner.incr(key, snapshot(cb), timeWindow, max);
  }

  read(key: string, cb: Callback, timeWindow: number, max: number): void {
    this.#inner.read(key, snapshot(cb), timeWindow, max);
  }

  /** Each limiter made by `createRateLimit` gets its own store, with its own options. */
  child(options: StoreOptions): SnapshotStore {
    return new SnapshotStore(options);
  }
}
