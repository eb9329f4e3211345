import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import pg from 'pg';
import { Logger as JobLogger, runMigrations as runJobQueueMigrations } from 'graphile-worker';
import { sql } from 'kysely';
import type { Logger } from '../lib/logger.js';
import type { Db } from './pool.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
// Any constant works; it only has to be the same for every process applying migrations.
const MIGRATION_LOCK = 72_617_301;
const silentJobLogger = new JobLogger(() => () => undefined);

/**
 * Applies the numbered, forward-only SQL files in db/migrations that are not yet recorded.
 * Each file runs in its own transaction; an advisory lock makes concurrent starters wait
 * instead of applying a file twice.
 */
export async function migrate(connectionString: string, logger?: Logger): Promise<string[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set((await client.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name));
    const files = await migrationFiles();
    for (const file of files) {
      if (done.has(file)) continue;
      const sql = await readFile(path.join(MIGRATIONS_DIR, file), 'utf8');
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${file} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(file);
      logger?.info({ migration: file }, 'applied migration');
    }
    // The job queue's schema is installed with ours, so any process (an API-only replica
    // too) can enqueue jobs inside its own transactions from the first request on.
    await runJobQueueMigrations({ connectionString, logger: silentJobLogger });
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await client.end();
  }
  return applied;
}

/** The migration files this version ships, in order. */
async function migrationFiles(): Promise<string[]> {
  return (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d+_.+\.sql$/.test(f)).sort();
}

/**
 * Migrations this version ships that the database has not applied (readiness). Migrations
 * the database has and this version does not know are fine: a newer version ran first.
 */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const applied = await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(db).then(
    (r) => new Set(r.rows.map((row) => row.name)),
    (err: { code?: string }) => {
      if (err.code === '42P01') return new Set<string>(); // no schema_migrations: nothing applied
      throw err;
    },
  );
  return (await migrationFiles()).filter((f) => !applied.has(f));
}
