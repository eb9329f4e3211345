/**
 * A job-queue worker in its own process whose `hold` task never ends, for tests that kill
 * a worker mid-job. DATABASE_URL names the database; stdout says `worker ready`, then
 * `holding <job id>` for each job it runs.
 */
import { startWorker } from '../../src/roles/worker.js';
import { createLogger } from '../../src/lib/logger.js';

await startWorker({
  connectionString: process.env.DATABASE_URL!,
  logger: createLogger('warn'),
  concurrency: 2,
  taskList: {
    hold: async (_payload, helpers) => {
      process.stdout.write(`holding ${helpers.job.id}\n`);
      await new Promise(() => undefined);
    },
  },
});
process.stdout.write('worker ready\n');
