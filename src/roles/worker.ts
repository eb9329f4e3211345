/**
 * The `worker` role: graphile-worker on the same PostgreSQL. Jobs are claimed with row
 * locks, so any number of workers can run. Periodic sweeps re-queue work the queue may
 * have lost (a job is only ever a trigger: the state it acts on is in our tables).
 *
 * Three things graphile-worker 0.16 leaves to us:
 * - A worker process killed mid-job leaves its jobs locked for four hours. Presence locks
 *   let the other workers release them within seconds (roles/job-rescue.ts).
 * - A job that ends while the database is unreachable cannot be marked done or failed; its
 *   worker then exits for good ("committing seppuku") and the pool runs one short, with the
 *   job still locked. After a database restart a pool could be left with no worker at all.
 *   We start a fresh pool when that happens and release the dead workers' jobs.
 * - Stopping waits for running jobs without a bound. Ours waits `shutdownTimeoutMs`, then
 *   releases the jobs still running to the other workers (they run again from the state in
 *   our tables; jobs are written to be repeated) and lets the process exit.
 */
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { Logger as WorkerLogger, run, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import type { Logger } from '../lib/logger.js';
import { CRONTAB } from '../jobs/tasks.js';
import { JobRescue } from './job-rescue.js';

export interface WorkerHandle {
  /** The job queue's connections: ours, so their errors are always handled and stop() ends them. */
  pool: pg.Pool;
  /** Worker ids currently running in this process. */
  workerIds(): string[];
  /** False once the pool has no live worker and no restart is under way. */
  healthy(): boolean;
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
  /** How long stop() lets running jobs finish before releasing them; default 15 s. */
  shutdownTimeoutMs?: number;
  /** Orphaned-job scan: how often, and how old a job must be (roles/job-rescue.ts defaults). */
  rescue?: { intervalMs?: number; graceSeconds?: number };
}): Promise<WorkerHandle> {
  const log = opts.logger.child({ role: 'worker' });
  const concurrency = opts.concurrency ?? 20;
  const shutdownTimeoutMs = opts.shutdownTimeoutMs ?? 15_000;
  // Our own pool rather than graphile-worker's: on stop it removes its error listener and
  // then ends its pool without waiting, so PostgreSQL stopping a moment later (npm start's
  // Ctrl-C) could hit a closing idle connection with no listener and crash the process.
  // One connection per concurrent job plus a few for the queue's own housekeeping.
  const pool = new pg.Pool({ connectionString: opts.connectionString, max: concurrency + 4, application_name: WORKER_APPLICATION_NAME });
  const lost = (err: Error) => log.warn({ err: err.message }, 'job queue connection error');
  pool.on('error', lost);
  pool.on('connect', (client) => client.on('error', lost));
  const rescue = new JobRescue({
    connectionString: opts.connectionString,
    applicationName: WORKER_APPLICATION_NAME,
    logger: log,
    ...opts.rescue,
  });

  let stopping = false;
  let restarting: Promise<void> | null = null;
  type Current = { runner: Runner; ids: string[]; dead: Set<string> };
  let current: Current | undefined;

  async function startRunner(): Promise<Current> {
    const events: WorkerEvents = new EventEmitter();
    const ids: string[] = [];
    const dead = new Set<string>();
    // Locked as each worker is made, usually before its first job is fetched; the rescue's
    // grace period covers a job fetched first.
    events.on('worker:create', ({ worker }) => {
      ids.push(worker.workerId);
      void rescue.add([worker.workerId]);
    });
    events.on('worker:fatalError', ({ worker, error }) => {
      dead.add(worker.workerId);
      log.warn({ workerId: worker.workerId, err: (error as Error)?.message }, 'job-queue worker lost its job to a database error');
      scheduleRestart();
    });
    const runner = await run({
      pgPool: pool,
      concurrency,
      noHandleSignals: true,
      pollInterval: 1000,
      events,
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
    // The scheduler stops the whole runner when the database fails it at a minute boundary
    // ("the calling code should re-schedule"): a database restart would end all job work.
    runner.promise.catch((err: unknown) => {
      if (current?.runner !== runner) return;
      log.warn({ err: (err as Error)?.message }, 'job-queue runner stopped on an error');
      scheduleRestart();
    });
    return { runner, ids, dead };
  }

  function scheduleRestart(): void {
    if (!stopping) restarting ??= restart().finally(() => (restarting = null));
  }

  /** A worker of the pool died: stop what is left of the pool, release its jobs, start afresh. */
  async function restart(): Promise<void> {
    const old = current!;
    log.warn({ dead: [...old.dead] }, 'restarting the job-queue worker pool');
    await stopRunner(old);
    for (let delay = 500; !stopping; delay = Math.min(delay * 2, 10_000)) {
      try {
        current = await startRunner();
        log.info({ workerIds: current.ids }, 'job-queue worker pool restarted');
        return;
      } catch (err) {
        log.warn({ err: (err as Error).message, retryInMs: delay }, 'could not restart the job-queue worker pool; retrying');
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  /** Graceful stop bounded by shutdownTimeoutMs; then every job of these workers is released. */
  async function stopRunner(target: Current): Promise<boolean> {
    const finished = await withinMs(
      target.runner.stop().catch((err: unknown) => log.warn({ err: (err as Error).message }, 'worker pool stop failed')),
      shutdownTimeoutMs,
    );
    if (!finished)
      log.warn({ timeoutMs: shutdownTimeoutMs }, 'jobs still running after the shutdown timeout; releasing them to other workers');
    for (let attempt = 1; ; attempt++) {
      try {
        const released = await rescue.remove(target.ids);
        if (released.length) log.warn({ jobs: released }, 'released jobs to other workers');
        return finished;
      } catch (err) {
        // Nothing is lost if this fails: once this process is gone, other workers release them.
        if (stopping || attempt >= 20) {
          log.warn({ err: (err as Error).message }, 'could not release this worker’s jobs; other workers will once it is gone');
          return finished;
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  let first: Current;
  try {
    first = current = await startRunner();
  } catch (err) {
    await rescue.stop();
    await pool.end();
    throw err;
  }
  rescue.start();
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
  log.info({ tasks: Object.keys(opts.taskList), workerIds: first.ids }, 'worker started');
  const live = () => current ?? first;
  return {
    pool,
    workerIds: () => [...live().ids],
    healthy: () => restarting !== null || live().dead.size < live().ids.length,
    async stop() {
      stopping = true;
      for (const timer of timers) clearInterval(timer);
      await restarting;
      const finished = await stopRunner(live());
      await rescue.stop();
      // Jobs left running hold their connections; ending the pool would wait for them.
      await withinMs(pool.end(), finished ? shutdownTimeoutMs : 1_000);
    },
  };
}

/** True when the promise settled within `ms`. */
async function withinMs(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
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
