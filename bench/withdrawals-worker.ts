/**
 * The withdrawals benchmark's worker, in its own process as production runs the `worker`
 * role (DESIGN: workers are separate processes): the real task list with production
 * OutboundOptions and the periodic outbound sweep, on the benchmark world's database.
 * Environment: DATABASE_URL, KEK (hex, the world's), CHAINS (JSON of ChainConfig[]).
 * Prints "worker ready" once jobs are being taken; stops on SIGTERM.
 */
import { startWorker } from '../src/roles/worker.js';
import { taskList } from '../src/jobs/tasks.js';
import { createLogger } from '../src/lib/logger.js';
import { servicesFromEnv } from './child-services.js';

const logger = createLogger('warn');
const { databaseUrl, database, services } = await servicesFromEnv(logger);
const worker = await startWorker({
  connectionString: databaseUrl,
  logger,
  taskList: taskList(services),
  periodic: [{ name: 'outbound_sweep', everyMs: 15_000, run: () => services.outbound.sweepStuck() }],
});
process.on('SIGTERM', () => {
  void worker
    .stop()
    .then(() => services.close())
    .then(() => database.close())
    .finally(() => process.exit(0));
});
process.stdout.write('worker ready\n');
