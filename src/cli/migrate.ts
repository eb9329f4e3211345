/** `migrate`: applies the SQL migrations and the job queue's schema, then exits. */
import { migrate } from '../db/migrate.js';
import { createLogger } from '../lib/logger.js';
import { UsageError } from './command.js';

export async function migrateDatabase(args: string[]): Promise<number> {
  if (args.length) throw new UsageError(`migrate takes no arguments (got ${args.join(' ')})`);
  // Migrations need only the database: a migration job should not be handed the master
  // key or the chain configuration.
  const url = process.env.DATABASE_URL;
  if (!url) throw new UsageError('migrate needs DATABASE_URL (the embedded default migrates on every start)');
  const applied = await migrate(url, createLogger(process.env.LOG_LEVEL || 'info'));
  process.stdout.write(applied.length ? `applied ${applied.join(', ')}\n` : 'database is up to date\n');
  return 0;
}
