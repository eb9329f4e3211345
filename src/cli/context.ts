/**
 * The helpers one-off commands use to reach the service: its configuration and a runtime
 * without roles. Apart from command.ts so that the dispatcher, `help` and a usage error do
 * not load the whole service (about a second of CPU) before they answer.
 */
import type { AppConfig } from '../config/index.js';
import { loadConfig } from '../configuration.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { startRuntime, type Runtime } from '../runtime.js';

/** The configuration, or a ConfigError that runCli reports (exit code 2). */
export function configAndLogger(): { config: AppConfig; logger: Logger } {
  const config = loadConfig();
  return { config, logger: createLogger(config.logLevel) };
}

/**
 * Runs a one-off task on a runtime without roles (the embedded default starts its database
 * and devnets for it), then stops that runtime whatever happened.
 */
export async function withRuntime<T>(config: AppConfig, logger: Logger, task: (runtime: Runtime) => Promise<T>): Promise<T> {
  // The embedded PostgreSQL and anvil run in process groups of their own, so a signal's
  // default action (die without running 'exit' hooks) would leave them running: exit
  // through the hooks that stop them.
  const onSignal = () => process.exit(130);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, onSignal);
  const runtime = await startRuntime({ config, roles: [], logger });
  try {
    return await task(runtime);
  } finally {
    await runtime.stop();
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(signal, onSignal);
  }
}
