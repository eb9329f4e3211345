/**
 * A running role outlives a PostgreSQL outage: every part reconnects by itself. One part
 * cannot be reached to handle its own failure: graphile-worker's runner chains `.finally()`
 * on its scheduler's promise without a rejection handler, so when the scheduler fails at a
 * minute boundary because PostgreSQL is down, that derived promise rejects unhandled and
 * Node ends the process (seen in the scale-out test as a worker dying during a PostgreSQL
 * restart; the runner's own failure is handled in roles/worker.ts, which starts a new one).
 *
 * Another, of the same library: when its notify listener's connection dies (a PostgreSQL
 * restart) while the pool is being replaced, the listener's client is released twice (its
 * `release()` chains UNLISTEN and the release without a rejection handler), and pg-pool
 * refuses the second release by throwing, before it touches anything (seen in the scale-out
 * test under load: a worker dying right after PostgreSQL came back).
 *
 * So a rejection nobody handled is tolerated, with a warning, when it says only that the
 * database was unreachable, or is that second release from graphile-worker; any other one
 * still ends the process as Node would.
 */
import type { Logger } from '../lib/logger.js';

/** Connection refused/reset/timed out, the server shutting down or restarting, class 08. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', '57P01', '57P02', '57P03']);

export function isDatabaseUnreachable(reason: unknown): boolean {
  if (!(reason instanceof Error)) return false;
  const code = (reason as { code?: unknown }).code;
  if (typeof code === 'string' && (UNREACHABLE.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  return /^Connection terminated( unexpectedly| due to connection timeout)?$/.test(reason.message);
}

/** pg-pool's refusal of a second release of one client, thrown from graphile-worker's code. */
export function isWorkerDoubleRelease(reason: unknown): boolean {
  return (
    reason instanceof Error &&
    reason.message === 'Release called on client which has already been released to the pool.' &&
    /[\\/]graphile-worker[\\/]/.test(reason.stack ?? '')
  );
}

let installed = false;

export function tolerateDatabaseOutages(logger: Logger): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', (reason) => {
    if (isDatabaseUnreachable(reason)) {
      logger.warn({ err: (reason as Error).message }, 'a background task failed while PostgreSQL was unreachable; it reconnects by itself');
      return;
    }
    if (isWorkerDoubleRelease(reason)) {
      logger.warn({ err: (reason as Error).message }, "the job queue's listener released its lost connection twice; nothing to undo");
      return;
    }
    throw reason; // as Node does without a handler: an uncaught exception ends the process
  });
}
