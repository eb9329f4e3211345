/**
 * `start [api] [worker] [indexer]`: runs the given roles (all of them by default) until a
 * signal stops them (cli/signals.ts).
 */
import { startRuntime, type Runtime } from '../runtime.js';
import { ALL_ROLES, type Role } from '../roles/names.js';
import { UsageError } from './command.js';
import { configAndLogger } from './context.js';
import { stopOnSignals } from './signals.js';
import { tolerateDatabaseOutages } from './rejections.js';

/** Beyond the configured shutdown timeout, time for the database and devnets to stop. */
const STOP_MARGIN_MS = 15_000;

export async function start(args: string[]): Promise<void> {
  const unknown = args.filter((a) => !(ALL_ROLES as string[]).includes(a));
  if (unknown.length) throw new UsageError(`unknown role(s) ${unknown.join(', ')}; roles are ${ALL_ROLES.join(', ')}`);
  const roles = (args.length ? [...new Set(args)] : ALL_ROLES) as Role[];
  const { config, logger } = configAndLogger();

  // Handlers go in before anything starts: the embedded PostgreSQL and anvil run in process
  // groups of their own, so a Ctrl-C during the start must stop them through us. A signal
  // during the start waits for the start to finish, then stops cleanly.
  let running: Promise<Runtime> | null = null;
  const signals = stopOnSignals({
    logger,
    boundMs: config.shutdownTimeoutMs + STOP_MARGIN_MS,
    // A failed start is reported (and exits 1) by the dispatcher.
    stop: async () => {
      const runtime = await running!.catch(() => null);
      await runtime?.stop();
    },
  });
  tolerateDatabaseOutages(logger);
  running = startRuntime({ config, roles, logger });
  const runtime = await running;
  if (signals.stopping()) return; // stopped while starting: no banner

  const lines = [`Stablecoin wallet service running (${roles.join(', ')})`];
  if (runtime.baseUrl)
    lines.push(
      `  API:          ${runtime.baseUrl}/v1`,
      `  Docs:         ${runtime.baseUrl}/docs`,
      `  Dashboard:    ${runtime.baseUrl}/dashboard`,
    );
  if (runtime.healthUrl) lines.push(`  Health:       ${runtime.healthUrl}/healthz, ${runtime.healthUrl}/readyz`);
  if (runtime.credentials) {
    // Loaded only here: production code never loads the devnet modules.
    const { credentialsPath } = await import('../devnet/seed.js');
    lines.push(`  Credentials:  ${credentialsPath(config.dataDir)} (API keys, dashboard login)`);
  }
  if (config.embeddedDatabase) lines.push(`  Data:         ${config.dataDir} (embedded PostgreSQL and devnet state)`);
  lines.push('  Stop with Ctrl-C.');
  process.stdout.write(`\n${lines.join('\n')}\n\n`);
}
