/**
 * Item 1 of issue 17: a wrong or lost master key is refused at start, before anything is
 * written (exit code 2 through the real CLI), the embedded default's key file is never
 * regenerated once secrets exist, and a database written before key ids is checked against
 * its secrets when it meets its first key.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, createDatabaseFromTemplate, dropDatabase, type Harness } from '../support/harness.js';
import { createDatabase } from '../../src/db/pool.js';
import { createLogger } from '../../src/lib/logger.js';
import { openCustody } from '../../src/modules/custody/service.js';
import { KeyRing, LocalKeyVault, LocalMasterKey, MasterKeyError, sealedKeyId } from '../../src/keys/vault.js';
import { cleanEnv, localKeys, runCli, sealedCells, unreadable } from './support.js';

const logger = createLogger('silent');
let h: Harness;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'wallet-custody-'));

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** What the database says, to compare before and after a refused start. */
async function snapshot() {
  const db = h.database.db;
  const count = async (table: 'wallets' | 'api_keys' | 'businesses' | 'addresses') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    masterKeys: await db.selectFrom('master_keys').selectAll().orderBy('id').execute(),
    wallets: await count('wallets'),
    apiKeys: await count('api_keys'),
    businesses: await count('businesses'),
    addresses: await count('addresses'),
    sealed: (await sealedCells(db)).map((c) => c.sealed.toString('hex')),
  };
}

/** The format written before key ids: 0x01 | nonce | tag | body, the owner id as AAD. */
function sealV1(kek: Buffer, plaintext: Buffer, aad: string): Buffer {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', kek, nonce);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.from([1]), nonce, cipher.getAuthTag(), body]);
}

describe.sequential('the master key checked at start', () => {
  it('a database from before key ids: a key that opens none of its secrets is refused; the right one is recorded and still opens them', async () => {
    const db = h.database.db;
    const vault = new LocalKeyVault(h.kek);
    // Turn every sealed value back into the v1 format and forget the key records.
    for (const cell of await sealedCells(db)) {
      const plain = await vault.open(cell.sealed, cell.aad);
      const [table, column] = cell.column.split('.') as [string, string];
      await sql`UPDATE ${sql.table(table)} SET ${sql.ref(column)} = ${sealV1(h.kek, plain, cell.aad)} WHERE id = ${cell.id}::uuid`.execute(
        db,
      );
    }
    await sql`DELETE FROM master_keys`.execute(db);
    expect((await sealedCells(db)).every((c) => c.keyId === 'legacy')).toBe(true);

    const before = await snapshot();
    const wrong = randomBytes(32);
    const refused = await openCustody({ db, keys: localKeys(wrong), keyFileDir: null, logger }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MasterKeyError);
    expect((refused as Error).message).toMatch(/does not open \d+ of \d+ secrets sampled/);
    expect(await snapshot()).toEqual(before);

    const custody = await openCustody({ db, keys: localKeys(h.kek), keyFileDir: null, logger });
    try {
      expect(await db.selectFrom('master_keys').select(['id', 'state', 'kind']).execute()).toEqual([
        { id: new LocalMasterKey(h.kek).id, state: 'active', kind: 'local' },
      ]);
      expect(await unreadable(db, custody.vault)).toEqual([]);
      // New secrets name their key.
      const sealed = await custody.vault.seal(Buffer.from('x'), 'owner');
      expect(sealedKeyId(sealed)).toBe(new LocalMasterKey(h.kek).id);
    } finally {
      await custody.close();
    }
  });

  it('a start with another MASTER_KEY exits with code 2 and a clear message, and writes nothing', async () => {
    const before = await snapshot();
    const activeId = new LocalMasterKey(h.kek).id;
    const wrong = randomBytes(32);
    const env = cleanEnv({
      DATABASE_URL: h.databaseUrl,
      MASTER_KEY: wrong.toString('base64'),
      // A configured chain that is never contacted: the start stops before the catalogue.
      RPC_ETHEREUM_TESTNET: 'http://127.0.0.1:9',
      DATA_DIR: tmp,
      PORT: '0',
      LOG_LEVEL: 'warn',
    });
    for (const command of [
      ['start', 'api'],
      ['create-business', 'Intruder'],
    ]) {
      const run = await runCli(command, env);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(`sealed under master key ${activeId}`);
      expect(run.stderr).toContain(`MASTER_KEY (id ${new LocalMasterKey(wrong).id})`);
      expect(run.stderr).not.toContain('fatal');
      expect(run.stdout).not.toContain('running');
    }
    expect(await snapshot()).toEqual(before);
    // Two runs of the real CLI, each loading the service under tsx first (15-30 s here).
  }, 180_000);

  it('the right key passes the check again, and a ring without it is refused', async () => {
    const db = h.database.db;
    const custody = await openCustody({ db, keys: localKeys(h.kek, [randomBytes(32)]), keyFileDir: null, logger });
    await custody.close();
    await expect(openCustody({ db, keys: localKeys(randomBytes(32), [randomBytes(32)]), keyFileDir: null, logger })).rejects.toThrow(
      /does not match this database/,
    );
    expect(custody.vault).toBeInstanceOf(KeyRing);
  });

  it('the embedded default never generates a new key file for a database that holds secrets; an empty one gets one', async () => {
    const dir = path.join(tmp, 'lost-key-file');
    await expect(openCustody({ db: h.database.db, keys: localKeys(null), keyFileDir: dir, logger })).rejects.toThrow(
      /master key file .*master\.key is missing, but this database holds secrets sealed under master key [0-9a-f]{16}/,
    );
    expect(existsSync(path.join(dir, 'master.key'))).toBe(false);

    const url = await createDatabaseFromTemplate();
    const fresh = createDatabase(url, logger);
    try {
      const custody = await openCustody({ db: fresh.db, keys: localKeys(null), keyFileDir: dir, logger });
      await custody.close();
      expect(existsSync(path.join(dir, 'master.key'))).toBe(true);
      expect(await fresh.db.selectFrom('master_keys').select('state').execute()).toEqual([{ state: 'active' }]);
    } finally {
      await fresh.close();
      await dropDatabase(url);
    }
  });
});
