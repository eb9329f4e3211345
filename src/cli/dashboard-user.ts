/**
 * `dashboard-user --email <email> --business <id or name>`: creates a dashboard user (or
 * sets a new password for an existing one). The password comes from DASHBOARD_PASSWORD or
 * stdin, never from argv: command lines are visible to every user of the machine (ps, /proc).
 */
import { DashboardService } from '../dashboard/service.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../dashboard/passwords.js';
import { AppError } from '../lib/errors.js';
import { flag, UsageError } from './command.js';
import { configAndLogger, withRuntime } from './context.js';
import { businessOf } from './business-ref.js';

const USAGE =
  'usage: DASHBOARD_PASSWORD=… dashboard-user --email <email> --business <business id or name>\n       (or pipe the password on stdin)';

export async function dashboardUser(args: string[]): Promise<number> {
  const email = flag(args, 'email');
  const business = flag(args, 'business');
  if (!email || !business || args.some((a) => a.startsWith('--password'))) throw new UsageError(USAGE);
  const password = process.env.DASHBOARD_PASSWORD ?? (process.stdin.isTTY ? '' : (await readStdin()).replace(/\r?\n$/, ''));
  if (!password) throw new UsageError(USAGE);
  // Checked before anything starts (the embedded default would start PostgreSQL and devnets).
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new UsageError(`password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
  }
  const { config, logger } = configAndLogger();
  return withRuntime(config, logger, async ({ services }) => {
    const named = await businessOf(services, business);
    if ('error' in named) {
      process.stderr.write(`${named.error}\n`);
      return 2;
    }
    const found = named.business;
    const user = await new DashboardService(services.db, services.clock).upsertUser(found.id, email, password).catch((err: unknown) => {
      if (!(err instanceof AppError)) throw err;
      process.stderr.write(`${err.message}\n`);
      return null;
    });
    if (!user) return 2;
    const base = config.publicUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
    process.stdout.write(`dashboard user ${user.email} can sign in to "${found.name}" at ${base}/dashboard\n`);
    return 0;
  });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
