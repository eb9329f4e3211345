/**
 * Command line and composition root.
 *
 *   npm start                      all roles; embedded PostgreSQL and devnets when unconfigured
 *   npm start -- api|worker|indexer  one role
 *   npm run migrate                apply database migrations and exit
 *   npm start -- create-business "Name"   create a business, print its business API key
 *   npm start -- dashboard-user --email a@b.example --business <id|name>
 *                                  create a dashboard user (or reset its password); the
 *                                  password comes from DASHBOARD_PASSWORD or stdin, never argv
 */
import { ConfigError, loadConfig, type AppConfig } from './config/index.js';
import { createLogger, type Logger } from './lib/logger.js';
import { ALL_ROLES, startRuntime, type Role, type Runtime } from './runtime.js';
import { migrate } from './db/migrate.js';
import { credentialsPath } from './devnet/seed.js';
import { DashboardService } from './dashboard/service.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './dashboard/passwords.js';
import { AppError } from './lib/errors.js';
import { keyCommands } from './cli/rotate-master-key.js';

async function main(argv: string[]): Promise<void> {
  let [command = 'start', ...rest] = argv;
  if ((ALL_ROLES as string[]).includes(command)) {
    rest = [command, ...rest];
    command = 'start';
  }
  // Migrations need only the database: a migration job should not be handed the master
  // key or the chain configuration.
  if (command === 'migrate') {
    const url = process.env.DATABASE_URL;
    if (!url) {
      process.stderr.write('migrate needs DATABASE_URL (the embedded default migrates on every start)\n');
      process.exit(2);
    }
    const applied = await migrate(url, createLogger(process.env.LOG_LEVEL || 'info'));
    process.stdout.write(applied.length ? `applied ${applied.join(', ')}\n` : 'database is up to date\n');
    return;
  }
  if (Object.hasOwn(keyCommands, command)) return keyCommands[command]!(rest); // rotate-master-key, create-hsm-key: src/cli/rotate-master-key.ts
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);

  switch (command) {
    case 'start':
      return start(config, logger, rest);
    case 'create-business':
      return createBusiness(config, logger, rest.join(' ').trim());
    case 'dashboard-user':
      return dashboardUser(config, logger, rest);
    case 'api-key':
      return (await import('./cli/api-keys.js')).apiKeyCommand(config, logger, rest);
    default:
      process.stderr.write(
        `unknown command "${command}"; use start [api|worker|indexer], migrate, create-business <name> or dashboard-user\n`,
      );
      process.exit(2);
  }
}

async function start(config: AppConfig, logger: Logger, args: string[]): Promise<void> {
  const unknown = args.filter((a) => !(ALL_ROLES as string[]).includes(a));
  if (unknown.length) {
    process.stderr.write(`unknown role(s) ${unknown.join(', ')}; roles are ${ALL_ROLES.join(', ')}\n`);
    process.exit(2);
  }
  const roles = (args.length ? args : ALL_ROLES) as Role[];

  // Handlers go in before anything starts: the embedded PostgreSQL runs in its own process
  // group (see db/embedded.ts), so a Ctrl-C during the start must stop it through us.
  // A signal during the start waits for the start to finish, then stops cleanly.
  //
  // One Ctrl-C reaches this process up to three times within milliseconds: from the
  // terminal (it signals the whole foreground process group), relayed by npm and relayed by
  // tsx. Treating the duplicates as "press again to force" made a plain Ctrl-C under
  // `npm start` exit with 130 mid-shutdown, leaving anvil's pid files behind. So only a
  // repeat that comes well after the first signal (a person pressing again) forces exit.
  let stoppingSince: number | null = null;
  let running: Promise<Runtime> | null = null;
  const shutdown = (signal: string) => {
    if (stoppingSince !== null) {
      if (Date.now() - stoppingSince < 2_000) return;
      process.stderr.write('forced exit\n');
      process.exit(130);
    }
    stoppingSince = Date.now();
    logger.info({ signal }, 'shutting down');
    // A failed start is reported (and exits 1) by main's catch.
    void running?.then(
      (runtime) => runtime.stop().then(() => process.exit(0)),
      () => undefined,
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  // Closing the terminal: stop as cleanly as for Ctrl-C.
  process.on('SIGHUP', () => shutdown('SIGHUP'));

  running = startRuntime({ config, roles, logger });
  const runtime = await running;
  if (stoppingSince !== null) return; // stopped while starting: no banner

  const lines = [`Stablecoin wallet service running (${roles.join(', ')})`];
  if (runtime.baseUrl)
    lines.push(
      `  API:          ${runtime.baseUrl}/v1`,
      `  Docs:         ${runtime.baseUrl}/docs`,
      `  Dashboard:    ${runtime.baseUrl}/dashboard`,
    );
  if (runtime.credentials) lines.push(`  Credentials:  ${credentialsPath(config.dataDir)} (API keys, dashboard login)`);
  if (config.embeddedDatabase) lines.push(`  Data:         ${config.dataDir} (embedded PostgreSQL and devnet state)`);
  lines.push('  Stop with Ctrl-C.');
  process.stdout.write(`\n${lines.join('\n')}\n\n`);
}

async function createBusiness(config: AppConfig, logger: Logger, name: string): Promise<void> {
  if (!name) {
    process.stderr.write('usage: npm start -- create-business "<business name>"\n');
    process.exit(2);
  }
  // The embedded PostgreSQL runs in its own process group, so a signal's default action
  // (die without 'exit' handlers) would leave it running: exit through the hooks that stop it.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => process.exit(130));
  const runtime = await startRuntime({ config, roles: [], logger });
  try {
    const { business, apiKey } = await runtime.services.businesses.create(name);
    process.stdout.write(`${JSON.stringify({ business, apiKey }, null, 2)}\nStore the API key now: it is not shown again.\n`);
  } finally {
    await runtime.stop();
  }
}

async function dashboardUser(config: AppConfig, logger: Logger, args: string[]): Promise<void> {
  const usage =
    'usage: DASHBOARD_PASSWORD=… npm start -- dashboard-user --email <email> --business <business id or name>\n       (or pipe the password on stdin)\n';
  const flag = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const email = flag('email');
  const business = flag('business');
  if (!email || !business || args.some((a) => a.startsWith('--password'))) {
    process.stderr.write(usage);
    process.exit(2);
  }
  // Never from argv: command lines are visible to every user of the machine (ps, /proc).
  const password = process.env.DASHBOARD_PASSWORD ?? (process.stdin.isTTY ? '' : (await readStdin()).replace(/\r?\n$/, ''));
  if (!password) {
    process.stderr.write(usage);
    process.exit(2);
  }
  // Checked before anything starts (the embedded default would start PostgreSQL and devnets).
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    process.stderr.write(`password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters\n`);
    process.exit(2);
  }
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => process.exit(130));
  const runtime = await startRuntime({ config, roles: [], logger });
  try {
    const { services } = runtime;
    const found = /^[0-9a-f-]{36}$/i.test(business)
      ? await services.businesses.get(business).catch(() => null)
      : await services.businesses.findByName(business);
    if (!found) {
      process.stderr.write(`no business "${business}"; create one with: npm start -- create-business "<name>"\n`);
      process.exitCode = 2;
      return;
    }
    const user = await new DashboardService(services.db, services.clock).upsertUser(found.id, email, password).catch((err: unknown) => {
      if (!(err instanceof AppError)) throw err;
      process.stderr.write(`${err.message}\n`);
      process.exitCode = 2;
      return null;
    });
    if (!user) return;
    const base = config.publicUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
    process.stdout.write(`dashboard user ${user.email} can sign in to "${found.name}" at ${base}/dashboard\n`);
  } finally {
    await runtime.stop();
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

main(process.argv.slice(2)).catch((err: unknown) => {
  // A refusal the operator must fix (a wrong or lost master key) carries its exit code: message only.
  const exitCode = (err as { exitCode?: unknown } | null)?.exitCode;
  if (typeof exitCode === 'number' && err instanceof Error) {
    process.stderr.write(`${err.message}\n`);
    process.exit(exitCode);
  }
  process.stderr.write(`fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
