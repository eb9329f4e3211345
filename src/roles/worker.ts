/**
 * The `worker` role: graphile-worker on the same PostgreSQL. Jobs are claimed with row
 * locks, so any number of workers can run. Periodic sweeps re-queue work the queue may
 * have lost (a job is only ever a trigger: the state it acts on is in our tables).
 */
import pg from 'pg';
import { Logger as WorkerLogger, run, type Runner, type TaskList } from 'graphile-worker';
import type { Logger } from '../lib/logger.js';
import { CRONTAB } from '../jobs/tasks.js';

export interface WorkerHandle {
  runner: Runner;
  /** The job queue's connections: ours, so their errors are always handled and stop() ends them. */
  pool: pg.Pool;
  stop(): Promise<void>;
}

/** What the worker's connections call themselves in pg_stat_activity. */
export const WORKER_APPLICATION_NAME = 'wallet-worker';

export interface Periodic {
  name: string;
  everyMs: number;
  run: () => Promise<unknown>;
}

export async function startWorker(opts: {
  connectionString: string;
  logger: Logger;
  taskList: TaskList;
  concurrency?: number;
  periodic?: Periodic[];
}): Promise<WorkerHandle> {
  const log = opts.logger.child({ role: 'worker' });
  // Our own pool rather than graphile-worker's: on stop it removes its error listener and
  // then ends its pool without waiting, so PostgreSQL stopping a moment later (npm start's
  // Ctrl-C) could hit a closing idle connection with no listener and crash the process.
  // One connection per concurrent job plus a few for the queue's own housekeeping.
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: (opts.concurrency ?? 20) + 4,
    application_name: WORKER_APPLICATION_NAME,
  });
  const lost = (err: Error) => log.warn({ err: err.message }, 'job queue connection error');
  pool.on('error', lost);
  pool.on('connect', (client) => client.on('error', lost));
  let runner: Runner;
  try {
    runner = await run({
      pgPool: pool,
      concurrency: opts.concurrency ?? 20,
      noHandleSignals: true,
      pollInterval: 1000,
      taskList: opts.taskList,
      // Scheduled work (jobs/tasks.ts); lines whose task this worker's list lacks are left out.
      crontab: CRONTAB.filter((c) => c.task in opts.taskList)
        .map((c) => c.line)
        .join('\n'),
      // graphile-worker's own messages go through our logger (JSON, redaction, levels).
      logger: new WorkerLogger(() => (level, message, meta) => {
        const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'info' ? 'info' : 'debug';
        log[method](loggableMeta(meta), message);
      }),
    });
  } catch (err) {
    await pool.end();
    throw err;
  }
  const timers = (opts.periodic ?? []).map((p) => {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      p.run()
        .catch((err: unknown) => log.warn({ task: p.name, err: (err as Error).message }, 'periodic task failed'))
        .finally(() => (running = false));
    }, p.everyMs);
    timer.unref();
    return timer;
  });
  log.info({ tasks: Object.keys(opts.taskList) }, 'worker started');
  return {
    runner,
    pool,
    async stop() {
      for (const timer of timers) clearInterval(timer);
      try {
        await runner.stop();
      } finally {
        await pool.end();
      }
    },
  };
}

/**
 * graphile-worker attaches live objects (pg clients, errors) to its log calls; keep plain
 * values and error messages so a log line stays a line and carries no connection details.
 */
function loggableMeta(meta: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(meta ?? {})) {
    if (value instanceof Error)
      out[key] = { message: value.message, ...('code' in value ? { code: (value as { code: unknown }).code } : {}) };
    else if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) out[key] = value;
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) out[key] = value;
  }
  return out;
}
