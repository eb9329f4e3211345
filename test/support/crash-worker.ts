/**
 * What every crash test's worker process shares (test/withdrawals/worker-process.ts,
 * test/chains/tron/sweep-worker-process.ts): the real services and task list on the test's
 * database, configured from the environment the test sets (DATABASE_URL, KEK, CHAINS), and a
 * way to die with SIGKILL. The process installs its own crash point on `services`, then
 * calls `start()`.
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

/** Dies at once, as kill -9 would: nothing after it runs, nothing is flushed. */
export const die = () => process.kill(process.pid, 'SIGKILL');

export async function crashWorker(track: { firstTrackDelayMs: number; maxTrackDelayMs: number }) {
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
    { logger, outbound: { ...track, stuckAfterMs: 1_000 } },
  );
  return {
    services,
    /** As the production worker role runs it (runtime.ts), on a test's time scale; says "worker ready" on stdout. */
    async start(): Promise<void> {
      await startWorker({
        connectionString: env('DATABASE_URL'),
        logger,
        taskList: taskList(services),
        periodic: [{ name: 'outbound_sweep', everyMs: 500, run: () => services.outbound.sweepStuck() }],
      });
      process.stdout.write('worker ready\n');
    },
  };
}
