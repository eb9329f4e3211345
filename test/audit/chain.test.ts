/**
 * The audit log is append-only and hash-chained: the database refuses changes, and an entry
 * changed anyway (by someone who can switch the trigger off) or removed is found by the
 * `audit-verify` command, run as an operator runs it.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database$ } from '../../src/db/pool.js';
import { createLogger } from '../../src/lib/logger.js';
import { uuidv7 } from '../../src/lib/ids.js';
import { AuditService } from '../../src/modules/audit/service.js';
import { describe as describeReport } from '../../src/cli/audit.js';
import { canonicalJson, entryHash, GENESIS } from '../../src/modules/audit/chain.js';
import { createDatabaseFromTemplate, dropDatabase } from '../support/harness.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TSX_CLI = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');

let url: string;
let database: Database$;
let audit: AuditService;
const masterKey = randomBytes(32).toString('base64');

function verifyCli(args: string[] = []) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [TSX_CLI, 'src/main.ts', 'audit-verify', ...args], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        DATABASE_URL: url,
        MASTER_KEY: masterKey,
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

/** What someone with the database owner's rights can still do: write with the triggers off. */
async function tamper(statement: ReturnType<typeof sql>) {
  await database.db.transaction().execute(async (tx) => {
    await sql`SET LOCAL session_replication_role = replica`.execute(tx);
    await statement.execute(tx);
  });
}

const seqOf = async (id: string) =>
  (await sql<{ seq: string }>`SELECT seq::text AS seq FROM audit_log WHERE id = ${id}`.execute(database.db)).rows[0]!.seq;

beforeAll(async () => {
  url = await createDatabaseFromTemplate();
  database = createDatabase(url, createLogger('silent'));
  audit = new AuditService(database.db);
});
afterAll(async () => {
  await database?.close();
  if (url) await dropDatabase(url);
});

describe('the audit chain', () => {
  it('canonical JSON does not depend on key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}');
    const e = {
      id: uuidv7(),
      business_id: null,
      wallet_id: null,
      actor: 'x',
      action: 'y',
      target_type: null,
      target_id: null,
      details: { b: 1, a: 2 },
      request_id: null,
      created_at: new Date(0),
    };
    expect(entryHash(GENESIS, e)).toBe(entryHash(GENESIS, { ...e, details: { a: 2, b: 1 } }));
    expect(entryHash(GENESIS, e)).not.toBe(entryHash(GENESIS, { ...e, details: { a: 2, b: 2 } }));
  });

  it('chains entries written before the chain existed, then every new one', async () => {
    // An entry as the code before the chain wrote it (no hash).
    const legacyId = uuidv7();
    await sql`INSERT INTO audit_log (id, business_id, wallet_id, actor, action, details)
              VALUES (${legacyId}, NULL, NULL, 'old-code', 'legacy.entry', '{"k": "v"}'::jsonb)`.execute(database.db);
    expect((await audit.verify()).unchained).toBe(1);
    await audit.record({ businessId: null, walletId: null, actor: 'test', action: 'policy.created', details: { name: 'a', n: 1 } });
    await database.db.transaction().execute((tx) =>
      audit.recordMany(
        [
          { businessId: null, walletId: null, actor: 'test', action: 'approval.approved', details: { when: new Date(), skip: undefined } },
          { businessId: null, walletId: null, actor: 'test', action: 'approval.rejected' },
        ],
        tx,
      ),
    );
    const report = await audit.verify();
    expect(report).toMatchObject({ verified: 4, unchained: 0, broken: null });
    const { rows } = await sql<{ prev_hash: string; hash: string }>`SELECT prev_hash, hash FROM audit_log ORDER BY seq`.execute(
      database.db,
    );
    expect(rows[0]!.prev_hash).toBe(GENESIS);
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.prev_hash).toBe(rows[i - 1]!.hash);
    expect(report.head).toBe(rows.at(-1)!.hash);
  });

  it('is append-only: the database refuses UPDATE, DELETE and TRUNCATE', async () => {
    await expect(sql`UPDATE audit_log SET actor = 'someone else'`.execute(database.db)).rejects.toThrow(/append-only/);
    await expect(sql`DELETE FROM audit_log`.execute(database.db)).rejects.toThrow(/append-only/);
    await expect(sql`TRUNCATE audit_log`.execute(database.db)).rejects.toThrow(/append-only/);
  });

  it('concurrent writers still make one chain', async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => audit.record({ businessId: null, walletId: null, actor: `w${i}`, action: 'concurrent' })),
    );
    expect(await audit.verify()).toMatchObject({ verified: 24, broken: null });
  });

  // The command runs twice as an operator runs it (a cold start of the CLI each: a generous
  // timeout for a busy machine); the checks between read the same report in process.
  it('the verify command says the chain is intact, and finds an edited entry and a removed one', { timeout: 180_000 }, async () => {
    const intact = await verifyCli();
    expect(intact.stderr).toBe('');
    expect(intact.code).toBe(0);
    expect(intact.stdout).toContain('audit log chain intact: 24 entries verified');
    const head = /head ([0-9a-f]{64})/.exec(intact.stdout)![1]!;

    // Someone edits an approval after the fact.
    const { rows } = await sql<{ id: string }>`SELECT id FROM audit_log WHERE action = 'approval.rejected'`.execute(database.db);
    const edited = rows[0]!.id;
    await tamper(sql`UPDATE audit_log SET action = 'approval.approved' WHERE id = ${edited}`);
    const found = await audit.verify();
    expect(found.broken).not.toBeNull();
    expect(describeReport(found)).toContain(`BROKEN at entry ${await seqOf(edited)} (id ${edited})`);
    expect(describeReport(found)).toContain('the entry was changed after it was written');
    await tamper(sql`UPDATE audit_log SET action = 'approval.rejected' WHERE id = ${edited}`);
    expect((await audit.verify()).broken).toBeNull();

    // Someone removes an entry: the link of the one after it breaks.
    const { rows: order } = await sql<{ id: string; seq: string }>`SELECT id, seq::text AS seq FROM audit_log ORDER BY seq`.execute(
      database.db,
    );
    await tamper(sql`DELETE FROM audit_log WHERE id = ${order[5]!.id}`);
    const removed = await verifyCli(['--anchor', head]);
    expect(removed.code).toBe(1);
    expect(removed.stdout).toContain(`BROKEN at entry ${order[6]!.seq} (id ${order[6]!.id})`);
    expect(removed.stdout).toContain('an entry before it was removed, inserted or changed');
  });
});
