/**
 * Production's way to create a dashboard user: the real CLI as a child process, on a fresh
 * database, with the password from the environment or stdin (never argv).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database$ } from '../../src/db/pool.js';
import { createLogger } from '../../src/lib/logger.js';
import { DashboardService } from '../../src/dashboard/service.js';
import { migrate } from '../../src/db/migrate.js';
import { uuidv7 } from '../../src/lib/ids.js';
import { sql } from 'kysely';
import { createDatabaseFromTemplate, dropDatabase } from '../support/harness.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TSX_CLI = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');

let url: string;
let database: Database$;
// One installation, one master key: the first start records it and refuses any other.
const masterKey = randomBytes(32).toString('base64');

function cli(args: string[], env: Record<string, string>, stdin?: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [TSX_CLI, 'src/main.ts', ...args], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        DATABASE_URL: url,
        MASTER_KEY: masterKey,
        // A chain must be configured; nothing here talks to it.
        RPC_ETHEREUM_TESTNET: 'http://127.0.0.1:9/rpc',
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdin.end(stdin ?? '');
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  url = await createDatabaseFromTemplate();
  await migrate(url);
  database = createDatabase(url, createLogger('silent'));
});
afterAll(async () => {
  await database?.close();
  if (url) await dropDatabase(url);
});

describe('npm start -- dashboard-user', () => {
  // Two CLI runs one after the other (the second resets what the first made): each compiles
  // the service with tsx, tens of seconds on a loaded machine.
  it('creates a user for a business named on the command line, password from the environment or stdin', { timeout: 180_000 }, async () => {
    // Each CLI run costs seconds (tsx compiles the service): the business is made directly.
    const business = { id: uuidv7() };
    await sql`INSERT INTO businesses (id, name) VALUES (${business.id}, 'Acme Payments')`.execute(database.db);

    const byEnv = await cli(['dashboard-user', '--email', 'ops@acme.example', '--business', 'Acme Payments'], {
      DASHBOARD_PASSWORD: 'from the environment',
    });
    expect(byEnv.code, byEnv.stderr).toBe(0);
    const accounts = new DashboardService(database.db, { now: () => new Date() });
    const opened = await accounts.login('ops@acme.example', 'from the environment', '127.0.0.1');
    expect(opened?.session.businessId).toBe(business.id);

    // Piped on stdin (a reset: the old password stops working).
    const byStdin = await cli(['dashboard-user', '--email', 'OPS@acme.example', '--business', business.id], {}, 'piped in on stdin\n');
    expect(byStdin.code, byStdin.stderr).toBe(0);
    expect(await accounts.login('ops@acme.example', 'from the environment', '127.0.0.2')).toBeNull();
    expect((await accounts.login('ops@acme.example', 'piped in on stdin', '127.0.0.3'))?.session.businessId).toBe(business.id);
    // The reset ended the session opened with the old password.
    expect(await accounts.session(opened!.sessionId)).toBeNull();
  });

  it('refuses a password on the command line, an unknown business and a short password', { timeout: 180_000 }, async () => {
    const [argv, unknown, short] = await Promise.all([
      cli(['dashboard-user', '--email', 'x@acme.example', '--business', 'Acme Payments', '--password', 'secret'], {}),
      cli(['dashboard-user', '--email', 'x@acme.example', '--business', 'Nobody Inc'], { DASHBOARD_PASSWORD: 'long enough password' }),
      cli(['dashboard-user', '--email', 'x@acme.example', '--business', 'Acme Payments'], { DASHBOARD_PASSWORD: 'short' }),
    ]);
    expect(argv.code).toBe(2);
    expect(argv.stderr).toContain('usage');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no business "Nobody Inc"');
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('password must be 10 to 1024 characters');
  });
});
