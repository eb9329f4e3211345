/**
 * A worker in its own process, for tests that kill it: the real task list on the test's
 * database, with a clock the test moves through a file. Configured by environment:
 * DATABASE_URL, KEK (hex), CHAINS (JSON of ChainConfig[]), CLOCK_FILE.
 */
import { createDatabase } from '../../src/db/pool.js';
import { LocalKeyVault } from '../../src/keys/vault.js';
import { createServices } from '../../src/services.js';
import { startWorker } from '../../src/roles/worker.js';
import { taskList } from '../../src/jobs/tasks.js';
import { FileClock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/lib/logger.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const logger = createLogger('warn');
const database = createDatabase(env('DATABASE_URL'), logger);
const services = await createServices(
  database.db,
  new LocalKeyVault(Buffer.from(env('KEK'), 'hex')),
  {
    chains: JSON.parse(env('CHAINS')),
    addressLimit: 1000,
    keyExport: { testnet: false, mainnet: false },
    webhookAllowPrivateTargets: true,
  },
  { clock: new FileClock(env('CLOCK_FILE')), logger },
);
await startWorker({ connectionString: env('DATABASE_URL'), logger, taskList: taskList(services) });
process.stdout.write('worker ready\n');
