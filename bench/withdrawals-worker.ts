/**
 * The withdrawals benchmark's worker, in its own process as production runs the `worker`
 * role (DESIGN: workers are separate processes): the real task list with production
 * OutboundOptions and the periodic outbound sweep, on the benchmark world's database.
 * Environment: DATABASE_URL, KEK (hex, the world's), CHAINS (JSON of ChainConfig[]).
 * Prints "worker ready" once jobs are being taken; stops on SIGTERM.
 */
import { createDatabase } from '../src/db/pool.js';
import { LocalKeyVault } from '../src/keys/vault.js';
import { createServices } from '../src/services.js';
import { startWorker } from '../src/roles/worker.js';
import { taskList } from '../src/jobs/tasks.js';
import { createLogger } from '../src/lib/logger.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const logger = createLogger('warn');
const databaseUrl = env('DATABASE_URL');
const database = createDatabase(databaseUrl, logger);
const services = await createServices(
  database.db,
  new LocalKeyVault(Buffer.from(env('KEK'), 'hex')),
  { chains: JSON.parse(env('CHAINS')), addressLimit: 1_000_000, keyExport: { testnet: true, mainnet: false } },
  { logger, databaseUrl },
);
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
