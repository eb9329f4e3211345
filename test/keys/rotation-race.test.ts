/**
 * rotate-master-key against a secret being written while it activates the new key: a wallet
 * created through the API whose mnemonic was sealed under the old key, its row not yet
 * committed when the rotation re-sealed and counted. The rotation must not retire the old
 * key while that value is sealed under it: once retired, the procedure says to restart
 * without MASTER_KEY_PREVIOUS and destroy the old key, and the wallet's seed, and the funds
 * at its addresses, would be lost with it.
 *
 * The wallet's insert is held on a lock the rotation never takes (its business row, which the
 * insert's foreign key check shares), so the interleaving is exact, not a matter of timing.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { createLogger } from '../../src/lib/logger.js';
import { createServices } from '../../src/services.js';
import { buildServer } from '../../src/server.js';
import { openCustody } from '../../src/modules/custody/service.js';
import { rotateMasterKey } from '../../src/modules/custody/rotation.js';
import { LocalMasterKey } from '../../src/keys/vault.js';
import { localKeys, sealedCells, sleep } from './support.js';

const logger = createLogger('silent');
let h: Harness;
const newKey = randomBytes(32);
const newId = new LocalMasterKey(newKey).id;

beforeAll(async () => {
  h = await startHarness();
  // The installation's first start recorded its key.
  await (await openCustody({ db: h.database.db, keys: localKeys(h.kek), keyFileDir: null, logger })).close();
});
afterAll(async () => {
  await h?.stop();
});

/** Waits until some backend waits on a lock while running a statement that matches `pattern`, or `done` settles. */
async function untilWaiting(pattern: RegExp, done?: Promise<unknown>): Promise<void> {
  let settled = false;
  void done?.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (const deadline = Date.now() + 60_000; !settled; await sleep(20)) {
    if (Date.now() > deadline) throw new Error(`nothing came to wait on a lock running ${pattern}`);
    const { rows } = await sql<{ query: string }>`
      SELECT query FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(h.database.db);
    if (rows.some((r) => pattern.test(r.query))) return;
  }
}

describe('rotate-master-key while a wallet is being created', () => {
  it('the old key is retired only once nothing is sealed under it: the new wallet opens with the new key alone', async () => {
    const db = h.database.db;
    const oldId = new LocalMasterKey(h.kek).id;
    // A process restarted with both keys (step 2 of the procedure), serving the API.
    const custody = await openCustody({ db, keys: localKeys(newKey, [h.kek]), keyFileDir: null, logger });
    const services = await createServices(db, custody.vault, {
      chains: h.devnet.chains.map((c) => c.config),
      addressLimit: 1000,
      keyExport: { testnet: true, mainnet: false },
      apiLimits: { keyRate: 0, authFailures: 0, authFailureWindowS: 60 },
    });
    const app = await buildServer({ services, logger, lazySchemas: true });
    const blocker = new pg.Client({ connectionString: h.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM businesses WHERE id = $1 FOR UPDATE', [h.businessId]);

      const slug = Object.keys(h.wallets)[0]!;
      const chain = h.devnet.chains.find((c) => c.config.blockchain.slug === slug)!;
      const created = app.inject({
        method: 'POST',
        url: '/v1/wallets',
        headers: { 'x-api-key': h.businessKey, 'content-type': 'application/json' },
        payload: { blockchain: slug, network: chain.config.network, name: 'created during the rotation' },
      });
      // Its keys are made and sealed; its row waits for the business row.
      await untilWaiting(/insert into "wallets"/i);

      const rotation = rotateMasterKey(db, custody.vault, custody.primary, { batchSize: 100, pauseMs: 0, logger });
      // Either it finishes now, or it waits for the wallet's transaction.
      await untilWaiting(/master_keys/i, rotation);
      await blocker.query('ROLLBACK');

      const res = await created;
      expect(res.statusCode, res.body).toBe(200);
      const walletId = (JSON.parse(res.body) as { data: { id: string } }).data.id;
      const report = await rotation;
      expect(report.keyId).toBe(newId);

      const keys = await db.selectFrom('master_keys').select(['id', 'state']).execute();
      const cells = await sealedCells(db);
      const underOld = cells.filter((c) => c.keyId !== newId).map((c) => `${c.column} ${c.id} under ${c.keyId}`);
      // Nothing stays sealed under a key the database calls retired.
      if (keys.find((k) => k.id === oldId)?.state === 'retired') expect(underOld).toEqual([]);

      // Step 4 of the procedure, once the command reports the old key retired: restart with the new key alone.
      if (report.retired.includes(oldId)) {
        const onlyNew = await openCustody({ db, keys: localKeys(newKey), keyFileDir: null, logger });
        const after = await createServices(db, onlyNew.vault, {
          chains: h.devnet.chains.map((c) => c.config),
          addressLimit: 1000,
          keyExport: { testnet: true, mainnet: false },
        });
        try {
          const words = await after.wallets.openMnemonic(walletId);
          expect(words.split(' ').length).toBeGreaterThanOrEqual(12);
        } finally {
          after.close();
          await onlyNew.close();
        }
      }
      expect(cells.filter((c) => c.column === 'wallets.seed_ciphertext' && c.id === walletId).map((c) => c.keyId)).toEqual([newId]);
    } finally {
      await blocker.end().catch(() => undefined);
      await app.close();
      services.close();
      await custody.close();
    }
  }, 120_000);
});
