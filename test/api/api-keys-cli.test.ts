/**
 * `npm start -- api-key create|list|revoke`: the real CLI as a child process on a fresh
 * database, as an operator runs it (the same way test/dashboard/cli.test.ts runs
 * dashboard-user).
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
import { hashKey } from '../../src/modules/apikeys/service.js';
import { createDatabaseFromTemplate, dropDatabase } from '../support/harness.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TSX_CLI = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');
const MASTER_KEY = randomBytes(32).toString('base64');

let url: string;
let database: Database$;
const businessId = uuidv7();

function cli(args: string[]) {
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
  await sql`INSERT INTO businesses (id, name) VALUES (${businessId}, 'Acme Payments')`.execute(database.db);
});
afterAll(async () => {
  await database?.close();
  if (url) await dropDatabase(url);
});

// Every test runs the CLI (tsx compiles the service: seconds, tens of them on a loaded
// machine), some of them twice: room for a slow machine.
describe('npm start -- api-key', { timeout: 180_000 }, () => {
  let created: { id: string; apiKey: string; prefix: string };

  it('create: prints the new key once, with its restrictions, and stores only its hash and sealed copy', async () => {
    const res = await cli([
      'api-key',
      'create',
      '--business',
      'Acme Payments',
      '--name',
      'reporting',
      '--scope',
      'read-only',
      '--rate-limit',
      '50',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('not shown again');
    created = JSON.parse(res.stdout.slice(0, res.stdout.lastIndexOf('}') + 1));
    expect(created).toMatchObject({ name: 'reporting', scopes: ['READ_ONLY'], rateLimit: 50, revokedAt: null });
    expect(created.apiKey).toMatch(/^sk_biz_/);
    const row = (
      await sql<{ key_hash: Buffer; business_id: string; wallet_id: string | null }>`
        SELECT key_hash, business_id, wallet_id FROM api_keys WHERE id = ${created.id}`.execute(database.db)
    ).rows[0]!;
    expect(row).toMatchObject({ business_id: businessId, wallet_id: null });
    expect(row.key_hash.equals(hashKey(created.apiKey))).toBe(true);
    const audit = await sql<{ actor: string }>`SELECT actor FROM audit_log WHERE target_id = ${created.id}`.execute(database.db);
    expect(audit.rows).toEqual([{ actor: 'cli:operator' }]);
  });

  it('list: prefixes and last use, never the key', async () => {
    const res = await cli(['api-key', 'list', '--business', businessId]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(created.id);
    expect(res.stdout).toContain(`${created.prefix}…`);
    expect(res.stdout).toContain('READ_ONLY');
    expect(res.stdout).toContain('never');
    expect(res.stdout).not.toContain(created.apiKey);
  });

  it('revoke: the key is revoked; list hides it unless --all', async () => {
    const res = await cli(['api-key', 'revoke', created.id, '--business', 'Acme Payments']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`revoked ${created.prefix}…`);
    const row = (await sql<{ revoked_at: Date | null }>`SELECT revoked_at FROM api_keys WHERE id = ${created.id}`.execute(database.db))
      .rows[0]!;
    expect(row.revoked_at).toBeInstanceOf(Date);
    const all = await cli(['api-key', 'list', '--business', 'Acme Payments', '--all']);
    expect(all.stdout).toContain(created.id);
  });

  // Three CLI runs, independent of each other: side by side.
  it('refuses bad usage before starting anything, and unknown businesses and keys', async () => {
    const [usage, nobody, missing] = await Promise.all([
      cli(['api-key', 'create', '--business', 'Acme Payments', '--scope', 'ADMIN']),
      cli(['api-key', 'list', '--business', 'Nobody Inc']),
      cli(['api-key', 'revoke', uuidv7(), '--business', 'Acme Payments']),
    ]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('unknown scope');
    expect(usage.stderr).toContain('usage:');
    expect(nobody.code).toBe(2);
    expect(nobody.stderr).toContain('no business "Nobody Inc"');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('API key not found');
  });
});
