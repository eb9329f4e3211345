/**
 * Migration 042 on rows written before sweeps recorded the settled version of each step: a
 * sweep whose transfer had been sped up still pointed at the first version, left 'replaced'
 * without a receipt (a later deposit's carrier path crashed on it). The migration points it at
 * the version that was mined; a step whose row was voided with no successor stays as it was.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { migrate } from '../../src/db/migrate.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';

let h: Harness;
let eth: TestChain;
const MIGRATION = '042_step_rows_settled.sql';

beforeAll(async () => {
  h = await startHarness({
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
  });
  eth = chainOf(h, 'devnet-eth');
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const db = () => h.database.db;
const wallet = () => h.wallets['devnet-eth']!;

/** A child's USDC swept to the master (its own ETH pays the transfer): the sweep's id and its mined transfer's row. */
async function sweptChild(): Promise<{ sweepId: string; transfer: string }> {
  const res = await h.api('POST', `/v1/wallets/${wallet().id}/addresses`, { body: { disableAutoSweep: true } });
  const child = res.body.data as { id: string; address: string };
  const receipt = await eth.sendToken('USDC', child.address, '4');
  await eth.sendNative(child.address, '0.1');
  const indexer = h.services.deposits.indexer(h.services.catalogue.findChain('devnet-eth', 'testnet')!);
  for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') break;
  const { rows } = await sql<{ id: string }>`
    SELECT id FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${receipt.transactionHash})`.execute(db());
  const swept = await h.api('POST', `/v1/wallets/${wallet().id}/transactions/sweep/assets`, { body: { transactionId: rows[0]!.id } });
  expect(swept.status, JSON.stringify(swept.body)).toBe(200);
  const [sweep] = await eventually(
    async () =>
      (
        await sql<{ id: string; status: string; transfer_outbound_id: string }>`
          SELECT id, status, transfer_outbound_id FROM sweeps WHERE address_id = ${child.id}`.execute(db())
      ).rows,
    (r) => r[0]?.status === 'success',
    30_000,
  );
  return { sweepId: sweep!.id, transfer: sweep!.transfer_outbound_id };
}

/** A first version of `of` as a speed-up leaves it: 'replaced' by `of`, its own hash, no receipt, queued a minute earlier. */
async function replacedVersionOf(of: string, replacedBy: string | null): Promise<string> {
  const { rows } = await sql<{ id: string }>`
    INSERT INTO outbound_txs
    SELECT (jsonb_populate_record(NULL::outbound_txs, to_jsonb(o) || jsonb_build_object(
              'id', gen_random_uuid(), 'stage', 'replaced', 'replaced_by', ${replacedBy}::uuid,
              'hash', '0x' || md5(o.id::text) || md5(o.hash), 'status', NULL, 'fee', NULL, 'receipt_details', NULL,
              'block_number', NULL, 'block_hash', NULL, 'created_at', o.created_at - interval '1 minute'))).*
      FROM outbound_txs o WHERE o.id = ${of}
    RETURNING id`.execute(db());
  return rows[0]!.id;
}

it('points a sped-up step at the version that was mined, and leaves a voided one without a successor alone', async () => {
  const sped = await sweptChild();
  const voided = await sweptChild();
  // The state the old code left: the step's column on the first version.
  const first = await replacedVersionOf(sped.transfer, sped.transfer);
  await sql`UPDATE sweeps SET transfer_outbound_id = ${first} WHERE id = ${sped.sweepId}`.execute(db());
  // A voided row whose purpose no later row of the sweep has (its successor is no 'sweep-topup').
  const lone = await replacedVersionOf(voided.transfer, null);
  await sql`UPDATE outbound_txs SET purpose = 'sweep-topup' WHERE id = ${lone}`.execute(db());
  await sql`UPDATE sweeps SET topup_outbound_id = ${lone} WHERE id = ${voided.sweepId}`.execute(db());

  await sql`DELETE FROM schema_migrations WHERE name = ${MIGRATION}`.execute(db());
  expect(await migrate(h.databaseUrl)).toEqual([MIGRATION]);

  const { rows } = await sql<{ id: string; topup_outbound_id: string | null; transfer_outbound_id: string }>`
    SELECT id, topup_outbound_id, transfer_outbound_id FROM sweeps WHERE id IN (${sped.sweepId}, ${voided.sweepId})`.execute(db());
  const byId = new Map(rows.map((r) => [r.id, r]));
  expect(byId.get(sped.sweepId)!.transfer_outbound_id).toBe(sped.transfer);
  expect(byId.get(voided.sweepId)).toMatchObject({ topup_outbound_id: lone, transfer_outbound_id: voided.transfer });
});
