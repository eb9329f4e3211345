/**
 * A one-off command's database without the rest of the runtime (no chains, no services):
 * commands that only read or write rows (`aml`, `audit-verify`) start in a fraction of the
 * time `withRuntime` takes.
 */
import path from 'node:path';
import type { Logger } from '../lib/logger.js';
import { migrate } from '../db/migrate.js';
import { createDatabase } from '../db/pool.js';
import { Changes } from '../db/changes.js';
import { runningEmbeddedUrl, startEmbeddedPostgres } from '../db/embedded.js';
import { DataDirInUseError, lockDataDir } from '../lib/data-dir-lock.js';
import { EMBEDDED_DATABASE, ensureDatabase } from '../runtime.js';

/** The database: DATABASE_URL; else the embedded default's, running (its port) or started for the command. */
export async function withDatabase<T>(
  env: NodeJS.ProcessEnv,
  logger: Logger,
  task: (db: ReturnType<typeof createDatabase>['db'], changes: Changes) => Promise<T>,
): Promise<T> {
  const dataDir = path.resolve(env.DATA_DIR || '.data');
  let url = env.DATABASE_URL || null;
  let stop = async () => undefined as void;
  if (!url) {
    try {
      const lock = await lockDataDir(dataDir);
      try {
        const server = await startEmbeddedPostgres({ dir: dataDir, logger });
        await ensureDatabase(server.url(), EMBEDDED_DATABASE);
        url = server.url(EMBEDDED_DATABASE);
        stop = () => server.stop().finally(() => lock.release());
      } catch (err) {
        await lock.release();
        throw err;
      }
    } catch (err) {
      // The service runs: use its PostgreSQL where it listens (it reloads the list on the notice).
      if (!(err instanceof DataDirInUseError)) throw err;
      url = await runningEmbeddedUrl(dataDir, EMBEDDED_DATABASE);
      if (!url) throw err;
    }
  }
  try {
    await migrate(url, logger);
    const database = createDatabase(url, logger, 2);
    const changes = await Changes.start(database.db, {});
    try {
      return await task(database.db, changes);
    } finally {
      changes.close();
      await database.close();
    }
  } finally {
    await stop();
  }
}
