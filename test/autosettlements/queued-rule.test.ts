/**
 * A settlement taken but not yet planned (stage queued: its job waits for the worker, or for
 * another settlement of its sender) follows the rules as they stand when it is planned: the
 * wallet switched off, the rule deleted or switched off, leave the deposit where it is; a rule
 * whose destination was changed pays the new one. Nothing has been sent for it yet, so the
 * operator who stops a rule (a destination found compromised, say) stops its queued deposits too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import type { Harness } from '../support/harness.js';
import type { TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';
import { drain as drainIndexer, freshAddress, ruleTo as rule, startEthSettleWorld, USDC } from './eth-settle-world.js';

let h: Harness;
let eth: TestChain;
let indexer: ChainIndexer;

const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;

beforeAll(async () => {
  ({ h, eth, indexer } = await startEthSettleWorld());
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const drain = () => drainIndexer(indexer);
async function settlementsOf(deposit: string) {
  const { rows } = await sql<{ id: string; status: string; stage: string; rule: { destination: { address: string } } }>`
    SELECT id, status, stage, rule FROM auto_settlements WHERE deposit_id = ${deposit}`.execute(h.database.db);
  return rows;
}
async function sentFor(id: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM outbound_txs WHERE owner_id = ${id}`.execute(h.database.db);
  return Number(rows[0]!.n);
}

/**
 * A child (no sweep) with a rule to `dest`, a deposit of 6 USDC to it taken by the rule while
 * the worker is stopped (its settlement queued, not planned); `change` runs then, and the
 * settlement's job after it, by hand. The worker is running again when it returns.
 */
async function queuedThen(change: (ctx: { child: { id: string }; ruleId: string }) => Promise<void>) {
  const child = (await h.api('POST', `${base()}/addresses`, { body: { disableAutoSweep: true } })).body.data as {
    id: string;
    address: string;
  };
  const dest = freshAddress();
  const created = await h.api('POST', `${base()}/addresses/${child.id}/auto-settlements/rules`, { body: rule(dest) });
  expect(created.status).toBe(200);
  await h.stopWorker();
  try {
    const receipt = await eth.sendToken('USDC', child.address, '6');
    await drain();
    const { rows } = await sql<{ id: string }>`
      SELECT id FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${receipt.transactionHash})`.execute(h.database.db);
    const deposit = rows[0]!.id;
    await h.services.autoSettlements.takeConfirmed([deposit]);
    const [queued] = await settlementsOf(deposit);
    expect(queued).toMatchObject({ status: 'pending', stage: 'queued' });
    await change({ child, ruleId: created.body.data.id as string });
    await h.services.autoSettlements.executor.run(queued!.id);
    return { child, dest, deposit, settlementId: queued!.id };
  } finally {
    await h.startWorker();
  }
}

describe('a settlement queued when its rule changes', () => {
  it('the wallet switched off: nothing is sent, the deposit stays at the child and is no rule’s any more', async () => {
    const { child, dest, deposit, settlementId } = await queuedThen(async () => {
      expect((await h.api('PATCH', `${base()}/auto-settlements`, { body: { isActive: false } })).status).toBe(200);
    });
    try {
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await sentFor(settlementId)).toBe(0);
      expect(await settlementsOf(deposit)).toEqual([]);
      expect(await eth.balanceOf('USDC', dest)).toBe(0n);
      expect(await eth.balanceOf('USDC', (child as unknown as { address: string }).address)).toBe(6n * USDC);
    } finally {
      expect((await h.api('PATCH', `${base()}/auto-settlements`, { body: { isActive: true } })).status).toBe(200);
    }
  });

  it('the rule deleted: nothing is sent, the deposit stays at the child', async () => {
    const { child, dest, deposit, settlementId } = await queuedThen(async ({ child, ruleId }) => {
      expect((await h.api('DELETE', `${base()}/addresses/${child.id}/auto-settlements/rules/${ruleId}`)).status).toBe(200);
    });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await sentFor(settlementId)).toBe(0);
    expect(await settlementsOf(deposit)).toEqual([]);
    expect(await eth.balanceOf('USDC', dest)).toBe(0n);
    expect(await eth.balanceOf('USDC', (child as unknown as { address: string }).address)).toBe(6n * USDC);
  });

  it('the destination changed: the new destination is paid, the old one nothing', async () => {
    const moved = freshAddress();
    const { dest, deposit } = await queuedThen(async ({ child, ruleId }) => {
      const res = await h.api('PATCH', `${base()}/addresses/${child.id}/auto-settlements/rules/${ruleId}`, {
        body: { destination: { address: moved } },
      });
      expect(res.status).toBe(200);
    });
    const [s] = await eventually(
      () => settlementsOf(deposit),
      (rows) => rows.length === 1 && rows[0]!.status !== 'pending',
      30_000,
    );
    expect(s).toMatchObject({ status: 'success', rule: { destination: { address: moved } } });
    expect(await eth.balanceOf('USDC', moved)).toBe(6n * USDC);
    expect(await eth.balanceOf('USDC', dest)).toBe(0n);
  });
});
