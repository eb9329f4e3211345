/**
 * A worker in its own process for the crash tests: the real task list on the test's
 * database, killing itself with SIGKILL at an exact point of the outbound pipeline.
 * Environment: DATABASE_URL, KEK (hex), CHAINS (JSON of ChainConfig[]), and CRASH_AT:
 *   signed     right after a withdrawal's signature is stored, before any broadcast
 *   broadcast  right after a node accepted a withdrawal, before anything is recorded
 *   (absent)   never: a plain restarted worker
 */
import { createDatabase } from '../../src/db/pool.js';
import { LocalKeyVault } from '../../src/keys/vault.js';
import { createServices } from '../../src/services.js';
import { startWorker } from '../../src/roles/worker.js';
import { taskList } from '../../src/jobs/tasks.js';
import { createLogger } from '../../src/lib/logger.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const die = () => process.kill(process.pid, 'SIGKILL');

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
  // The safety net re-queues jobs a killed worker held (they stay locked for hours otherwise).
  { logger, outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200, stuckAfterMs: 1_000 } },
);

const crashAt = process.env.CRASH_AT;
if (crashAt === 'signed') {
  const outbound = services.outbound;
  const signAndStore = outbound.signAndStore.bind(outbound);
  outbound.signAndStore = async (id) => {
    const row = await signAndStore(id);
    if (row?.stage === 'signed' && row.purpose === 'withdraw') die();
    return row;
  };
} else if (crashAt === 'broadcast') {
  for (const chain of services.catalogue.chains()) {
    const adapter = chain.adapter;
    const broadcast = adapter.broadcast.bind(adapter);
    adapter.broadcast = async (raw) => {
      const hash = await broadcast(raw);
      die();
      return hash;
    };
  }
}

// As the production worker role runs it (runtime.ts), on a test's time scale.
await startWorker({
  connectionString: env('DATABASE_URL'),
  logger,
  taskList: taskList(services),
  periodic: [{ name: 'outbound_sweep', everyMs: 500, run: () => services.outbound.sweepStuck() }],
});
process.stdout.write('worker ready\n');
