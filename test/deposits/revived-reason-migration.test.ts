/**
 * Migration 062 on rows written before relocateDeposit cleared a revived deposit's reason: a
 * deposit a reorganisation failed and that was found again (PENDING, then SUCCESS) kept the
 * failure's reason. The migration clears the indexer's reorganisation reasons on live deposits,
 * and leaves failed deposits (migration 012's reassigned ones too) and other rows as they are.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { migrate } from '../../src/db/migrate.js';
import { startHarness, type Harness } from '../support/harness.js';
import { recordDeposit } from '../support/fixtures.js';

let h: Harness;
const MIGRATION = '062_revived_deposit_reason.sql';
const REPLACED = 'The block holding this deposit was replaced (chain reorganisation)';
const GONE = 'Its transfer is no longer in the transaction, executed again in another block (chain reorganisation)';
const REASSIGNED =
  'Recorded in error: this address cannot be watched as an external address, and the deposit belongs to the wallet that holds its key';

beforeAll(async () => {
  h = await startHarness({ specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }] });
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

async function deposit(status: string, reason: string | null): Promise<string> {
  const { id } = await recordDeposit(h, 'devnet-eth');
  await sql`UPDATE transactions SET status = ${status}, reason = ${reason} WHERE id = ${id}`.execute(h.database.db);
  return id;
}

it("clears the reorganisation reason of live deposits, and touches no failed deposit's", async () => {
  const revived = await deposit('SUCCESS', REPLACED);
  const pending = await deposit('PENDING', GONE);
  const failed = await deposit('FAILED', REPLACED);
  const reassigned = await deposit('FAILED', REASSIGNED);
  const plain = await deposit('SUCCESS', null);

  await sql`DELETE FROM schema_migrations WHERE name = ${MIGRATION}`.execute(h.database.db);
  expect(await migrate(h.databaseUrl)).toEqual([MIGRATION]);

  const { rows } = await sql<{ id: string; status: string; reason: string | null }>`
    SELECT id, status, reason FROM transactions WHERE id IN (${revived}, ${pending}, ${failed}, ${reassigned}, ${plain})`.execute(
    h.database.db,
  );
  const reasonOf = new Map(rows.map((r) => [r.id, r.reason]));
  expect(Object.fromEntries([revived, pending, failed, reassigned, plain].map((id, i) => [i, reasonOf.get(id)]))).toEqual({
    0: null,
    1: null,
    2: REPLACED,
    3: REASSIGNED,
    4: null,
  });
});
