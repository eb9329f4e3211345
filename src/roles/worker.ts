/**
 * The `worker` role: graphile-worker on the same PostgreSQL. Jobs are claimed with row
 * locks, so any number of workers can run. Tasks are added by the capabilities that need
 * them (webhook delivery, broadcasts, sweeps); `heartbeat` proves the pipeline works.
 */
import { Logger as WorkerLogger, run, type Runner, type TaskList } from 'graphile-worker';
import type { Logger } from '../lib/logger.js';

export interface WorkerHandle {
  runner: Runner;
  stop(): Promise<void>;
}

export async function startWorker(opts: { connectionString: string; logger: Logger; concurrency?: number; taskList?: TaskList }): Promise<WorkerHandle> {
  const log = opts.logger.child({ role: 'worker' });
  const taskList: TaskList = {
    heartbeat: async () => {
      log.debug('heartbeat job ran');
    },
    ...opts.taskList,
  };
  const runner = await run({
    connectionString: opts.connectionString,
    concurrency: opts.concurrency ?? 10,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList,
    crontab: '',
    // graphile-worker's own messages go through our logger (JSON, redaction, levels).
    logger: new WorkerLogger(() => (level, message, meta) => {
      const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'info' ? 'info' : 'debug';
      log[method](meta ?? {}, message);
    }),
  });
  log.info({ tasks: Object.keys(taskList) }, 'worker started');
  return {
    runner,
    async stop() {
      await runner.stop();
    },
  };
}
