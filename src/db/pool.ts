import pg from 'pg';
import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import type { Database } from './types.js';
import type { Logger } from '../lib/logger.js';

export type Db = Kysely<Database>;
export type DbTx = Transaction<Database>;
/** Anything queries can run on: the pool or an open transaction. */
export type DbConn = Db | DbTx;

// numeric(78,0) and bigint come back as strings; stores convert them to bigint explicitly,
// so no amount ever passes through a JavaScript number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => v);

export interface Database$ {
  pool: pg.Pool;
  db: Db;
  close(): Promise<void>;
}

/**
 * How long a query waits for one of the pool's connections before it fails (pg-pool's
 * `connectionTimeoutMillis`; without it the wait has no end). Code that opens a transaction
 * and then asks the pool for another connection inside it holds one and waits for a second:
 * as many of those at once as the pool has connections, and none ever gets one, so the
 * process would answer nothing again. With the limit the waiters fail (503 DATABASE_BUSY; their
 * open transactions roll back and give their connections back) and the process recovers. The
 * stores pass their transaction on so that this does not happen; this bounds what one missed.
 */
export const POOL_WAIT_MS = 30_000;

export function createDatabase(connectionString: string, logger: Logger, max = 20, waitMs = POOL_WAIT_MS): Database$ {
  const pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: waitMs });
  // A client losing its connection (database restart) must not crash the process. The pool
  // reports idle clients' errors; a checked-out client has no listener of the pool's (pg-pool
  // removes it while the client is lent), and one that lost its connection between two
  // queries of a transaction crashed an API process when PostgreSQL restarted. Its next
  // query fails and the pool discards it.
  pool.on('error', (err) => logger.warn({ err: err.message }, 'idle PostgreSQL client error'));
  pool.on('connect', (client) => client.on('error', (err) => logger.warn({ err: err.message }, 'PostgreSQL client error')));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  let closed = false;
  return {
    pool,
    db,
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}

/** Whether `err` is PostgreSQL refusing a duplicate in the unique index or constraint `name` (23505). */
export function isUniqueViolation(err: unknown, name: string): boolean {
  const e = err as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && e.constraint === name;
}

/**
 * Runs a whole transaction again when PostgreSQL broke a deadlock by aborting it (nothing
 * of it was written). For short transactions whose every step may simply be repeated.
 */
export async function retryOnDeadlock<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if ((err as { code?: unknown }).code !== '40P01' || attempt >= attempts) throw err;
    }
  }
}

/** The database's clock, read now (clock_timestamp: not the transaction's start): a time to compare rows' updated_at with. */
export async function databaseNow(db: DbConn): Promise<Date> {
  const { rows } = await sql<{ now: Date }>`SELECT clock_timestamp() AS now`.execute(db);
  return rows[0]!.now;
}
