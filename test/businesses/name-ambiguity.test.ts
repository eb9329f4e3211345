/**
 * `--business <id or name>` of the operator's commands (api-key, dashboard-user) when two
 * businesses share a name: the name names neither. Business names are not unique (two
 * customers called "Acme Ltd" are two tenants); picking one of them silently gives a
 * dashboard user, or a new API key (with the operator's grants, such as APPROVE), to the
 * other customer's business: its wallets, payouts and approvals.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createDatabase, type Database$ } from '../../src/db/pool.js';
import { createLogger } from '../../src/lib/logger.js';
import { migrate } from '../../src/db/migrate.js';
import { uuidv7 } from '../../src/lib/ids.js';
import { createDatabaseFromTemplate, dropDatabase } from '../support/harness.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TSX_CLI = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');
const MASTER_KEY = randomBytes(32).toString('base64');

let url: string;
let database: Database$;
// Created one after the other: the first is the older one.
const first = uuidv7();
const second = uuidv7();

function cli(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [TSX_CLI, 'src/main.ts', ...args], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        DATABASE_URL: url,
        MASTER_KEY,
        // A chain must be configured; nothing here talks to it.
        RPC_ETHEREUM_TESTNET: 'http://127.0.0.1:9/rpc',
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  url = await createDatabaseFromTemplate();
  await migrate(url);
  database = createDatabase(url, createLogger('silent'));
  await sql`INSERT INTO businesses (id, name, created_at) VALUES (${first}, 'Acme Ltd', now() - interval '1 day')`.execute(database.db);
  await sql`INSERT INTO businesses (id, name) VALUES (${second}, 'Acme Ltd')`.execute(database.db);
});
afterAll(async () => {
  await database?.close();
  if (url) await dropDatabase(url);
});

const count = async (table: 'api_keys' | 'dashboard_users') =>
  (await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(database.db)).rows[0]!.n;

describe('--business naming a name two businesses share', { timeout: 180_000 }, () => {
  it('api-key create refuses, names both ids, and makes no key', async () => {
    const before = await count('api_keys');
    const res = await cli(['api-key', 'create', '--business', 'Acme Ltd', '--name', 'payouts']);
    expect(res.code, res.stdout + res.stderr).toBe(2);
    expect(res.stderr).toContain(first);
    expect(res.stderr).toContain(second);
    expect(res.stdout).not.toMatch(/apiKey/);
    expect(await count('api_keys')).toBe(before);
  });

  it('dashboard-user refuses, names both ids, and makes no user', async () => {
    const res = await cli(['dashboard-user', '--email', 'ops@acme.example', '--business', 'Acme Ltd'], {
      DASHBOARD_PASSWORD: 'a long enough passphrase',
    });
    expect(res.code, res.stdout + res.stderr).toBe(2);
    expect(res.stderr).toContain(first);
    expect(res.stderr).toContain(second);
    expect(await count('dashboard_users')).toBe(0);
  });

  it('the id still picks one of them', async () => {
    const res = await cli(['api-key', 'create', '--business', second, '--name', 'by-id']);
    expect(res.code, res.stderr).toBe(0);
    const { rows } = await sql<{ business_id: string }>`SELECT business_id FROM api_keys WHERE name = 'by-id'`.execute(database.db);
    expect(rows.map((r) => r.business_id)).toEqual([second]);
  });
});
