/**
 * Change notifications for in-process caches, across every process on one database.
 *
 * A write that makes a cached value stale calls `publish(tx, topic, id)` inside its own
 * transaction: `pg_notify` is transactional, so a rolled-back write notifies nobody and a
 * committed one notifies every listening process at commit. Each process keeps one
 * dedicated connection LISTENing; while it is not connected (start, a dropped connection,
 * no connection string at all) every cache made here is switched off, and when it
 * (re)connects the caches start empty, since notifications sent meanwhile were missed.
 *
 * In the writing process itself, `transaction()` applies the invalidation right after
 * COMMIT (before the caller answers its client), then waits, briefly, for its own
 * notification to come back: PostgreSQL signals every listening session at the same
 * commit, so once ours has arrived the other processes' have been sent too.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import type { Db, DbConn, DbTx } from './pool.js';
import type { Logger } from '../lib/logger.js';
import { TtlCache } from '../lib/ttl-cache.js';

export const CHANGES_CHANNEL = 'wallet_service_changes';
const APPLICATION_NAME = 'wallet-cache-listener';

export interface ChangesOptions {
  /** The database to LISTEN on; without it, caches stay off (nothing could invalidate them). */
  connectionString?: string;
  logger?: Logger;
  /** Entry lifetime, a safety net behind the notifications (default 5 s; 0 turns caches off). */
  ttlMs?: number;
  /** Entries per cache (default 10,000). */
  maxEntries?: number;
  /** How long a writer waits for its own notification to come back (default 1 s). */
  echoTimeoutMs?: number;
}

type Handler = (id: string) => void;

export class Changes {
  readonly #db: Db;
  readonly #opts: ChangesOptions;
  readonly #origin = randomBytes(6).toString('hex');
  readonly #handlers = new Map<string, Handler[]>();
  readonly #caches = new Map<string, TtlCache<unknown, unknown>>();
  /** Topics published in transactions opened by `transaction()`, applied after COMMIT. */
  readonly #deferred = new WeakMap<DbTx, { topic: string; id: string; nonce: string }[]>();
  /**
   * Our own notifications, by nonce, from `publish` (inside the transaction) until they
   * come back: registered before COMMIT, since the echo can arrive before COMMIT returns.
   */
  readonly #echoes = new Map<string, { arrived: boolean; done?: () => void }>();
  #seq = 0;
  #client: pg.Client | null = null;
  #live = false;
  #closed = false;
  #retryMs = 250;
  #retryTimer: NodeJS.Timeout | null = null;

  private constructor(db: Db, opts: ChangesOptions) {
    this.#db = db;
    this.#opts = opts;
  }

  /** Starts listening (when given a connection string) before any cache is switched on. */
  static async start(db: Db, opts: ChangesOptions = {}): Promise<Changes> {
    const changes = new Changes(db, opts);
    if (opts.connectionString) await changes.#connect();
    return changes;
  }

  /** True while notifications are being received (caches are on). */
  get live(): boolean {
    return this.#live;
  }

  /**
   * A cache that is on only while this process receives notifications. `ttlMs`: this cache's
   * own entry lifetime, when shorter than the process-wide one (a setting of 0 still turns it off).
   */
  cache<K, V>(name: string, opts: { ttlMs?: number } = {}): TtlCache<K, V> {
    if (this.#caches.has(name)) throw new Error(`cache ${name} exists already`);
    const ttlMs = Math.min(this.#opts.ttlMs ?? 5_000, opts.ttlMs ?? Infinity);
    const cache = new TtlCache<K, V>({ ttlMs, maxEntries: this.#opts.maxEntries ?? 10_000 }, this.#live);
    this.#caches.set(name, cache as TtlCache<unknown, unknown>);
    return cache;
  }

  /** Entries per cache (for metrics and tests). */
  sizes(): Record<string, number> {
    return Object.fromEntries([...this.#caches].map(([name, cache]) => [name, cache.size]));
  }

  /** Runs `handler(id)` for every change of `topic`, from this process or another. */
  on(topic: string, handler: Handler): void {
    const list = this.#handlers.get(topic) ?? [];
    list.push(handler);
    this.#handlers.set(topic, list);
  }

  /** Announces a change inside the transaction that makes it. */
  async publish(tx: DbConn, topic: string, id = ''): Promise<void> {
    if (topic.includes(':') || id.includes(':')) throw new Error('change topics and ids must not contain ":"');
    const nonce = `${this.#origin}.${++this.#seq}`;
    await sql`SELECT pg_notify(${CHANGES_CHANNEL}, ${`${topic}:${id}:${nonce}`})`.execute(tx);
    const deferred = this.#deferred.get(tx as DbTx);
    if (deferred) {
      deferred.push({ topic, id, nonce });
      this.#echoes.set(nonce, { arrived: false });
    }
    // A transaction opened elsewhere: we cannot see its COMMIT, so invalidate now (a
    // concurrent read may refill the old value until COMMIT) and again when the
    // notification comes back after COMMIT.
    else this.#apply(topic, id);
  }

  /** A transaction whose published changes take effect locally as soon as it commits. */
  async transaction<T>(fn: (tx: DbTx) => Promise<T>): Promise<T> {
    let published: { topic: string; id: string; nonce: string }[] = [];
    let result: T;
    try {
      result = await this.#db.transaction().execute(async (tx) => {
        published = [];
        this.#deferred.set(tx, published);
        return fn(tx);
      });
    } catch (err) {
      // Rolled back: nothing was announced, nothing will come back.
      for (const p of published) this.#echoes.delete(p.nonce);
      throw err;
    }
    for (const p of published) this.#apply(p.topic, p.id);
    // Notifications arrive in commit order: waiting for the last is waiting for all.
    for (const p of published.slice(0, -1)) this.#echoes.delete(p.nonce);
    const last = published.at(-1);
    if (last) await this.#awaitEcho(last.nonce);
    return result;
  }

  close(): void {
    this.#closed = true;
    this.#setLive(false);
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    const client = this.#client;
    this.#client = null;
    void client?.end().catch(() => undefined);
  }

  #apply(topic: string, id: string): void {
    for (const handler of this.#handlers.get(topic) ?? []) handler(id);
  }

  #awaitEcho(nonce: string): Promise<void> {
    const echo = this.#echoes.get(nonce);
    if (!echo || echo.arrived || !this.#live) {
      this.#echoes.delete(nonce);
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => echo.done?.(), this.#opts.echoTimeoutMs ?? 1_000);
      echo.done = () => {
        clearTimeout(timer);
        this.#echoes.delete(nonce);
        resolve();
      };
    });
  }

  #setLive(live: boolean): void {
    this.#live = live;
    // Both ways the caches start empty: off, nothing may be served; back on, notifications
    // may have been missed while the connection was down.
    for (const cache of this.#caches.values()) cache.setEnabled(live);
    // Nothing more will come back over a lost connection: release the writers waiting.
    if (!live)
      for (const echo of [...this.#echoes.values()]) {
        echo.arrived = true;
        echo.done?.();
      }
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.#opts.connectionString,
      application_name: APPLICATION_NAME,
      keepAlive: true,
    });
    const lost = (why: string) => {
      if (this.#client !== client) return;
      this.#client = null;
      this.#setLive(false);
      void client.end().catch(() => undefined);
      if (this.#closed) return;
      this.#opts.logger?.warn({ reason: why, retryMs: this.#retryMs }, 'cache invalidation listener lost; caches off until it reconnects');
      this.#scheduleReconnect();
    };
    client.on('error', (err) => lost(err.message));
    client.on('end', () => lost('connection ended'));
    client.on('notification', (msg) => {
      if (msg.channel !== CHANGES_CHANNEL || !msg.payload) return;
      const [topic = '', id = '', nonce = ''] = msg.payload.split(':');
      this.#apply(topic, id);
      const echo = this.#echoes.get(nonce);
      if (echo) {
        echo.arrived = true;
        echo.done?.();
      }
    });
    this.#client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (err) {
      lost((err as Error).message);
      return;
    }
    if (this.#closed || this.#client !== client) {
      void client.end().catch(() => undefined);
      return;
    }
    this.#retryMs = 250;
    this.#setLive(true);
  }

  #scheduleReconnect(): void {
    if (this.#retryTimer || this.#closed) return;
    const delay = this.#retryMs;
    this.#retryMs = Math.min(this.#retryMs * 2, 5_000);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      void this.#connect();
    }, delay);
    this.#retryTimer.unref();
  }
}
