/**
 * A settlement run pays its beneficiary only while it still receives settlements. A run
 * that decided its amounts and was then interrupted (a node down, the worker killed) is
 * resumed later: a beneficiary deleted, deactivated or taken off settlement meanwhile, and
 * answered so, must not be paid by it. Only a request that had already committed before
 * the change is answered (with what it made), as the exactly-once rule wants.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ManualClock } from '../../src/lib/clock.js';
import type { Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { randomAddress, startSettlementWorld } from './world.js';

let h: Harness;
let eth: TestChain;
const ETH = 'devnet-eth';
const clock = new ManualClock(Date.UTC(2026, 0, 1, 10, 0, 0));
const USDC6 = 10n ** 6n;

beforeAll(async () => {
  h = await startSettlementWorld(ETH, clock);
  eth = chainOf(h, ETH);
  // The runs are driven by hand: no cron tick or job runs them meanwhile.
  await h.stopWorker();
  await eth.sendToken('USDC', h.wallets[ETH]!.address, '50');
});

afterAll(async () => {
  await h?.stop();
});

/** A DAILY settlement beneficiary, its run for 1 January with its amounts decided (the plan stored), as a run interrupted right after deciding leaves it. */
async function plannedRun(day: number) {
  const w = h.wallets[ETH]!;
  const to = randomAddress();
  clock.set(Date.UTC(2026, 0, day, 10, 0, 0));
  const res = await h.api('POST', `/v1/wallets/${w.id}/beneficiaries`, {
    key: w.apiKey,
    body: { name: `Treasury ${day}`, address: to, settlementFrequency: 'DAILY' },
  });
  expect(res.status).toBe(200);
  const b = res.body.data;
  clock.set(Date.UTC(2026, 0, day + 1, 0, 1, 0));
  await h.services.settlements.tick();
  const period = `DAILY:2026-01-${String(day).padStart(2, '0')}`;
  const run = (await h.services.settlements.findRun(b.id, period))!;
  expect(run.status).toBe('pending');
  const usdc = h.services.catalogue.findChain(ETH, 'testnet')!.assets.find((a) => a.symbol === 'USDC')!;
  const plan = [{ assetId: usdc.id, amount: (10n * USDC6).toString(), reference: `STL-${run.id}-USDC` }];
  await sql`UPDATE settlement_runs SET plan = ${JSON.stringify(plan)}::jsonb WHERE id = ${run.id}`.execute(h.database.db);
  return { w, b, to, run, period };
}

async function withdrawalsOf(runId: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    SELECT count(*) AS n FROM transactions WHERE metadata -> 'settlement' ->> 'runId' = ${runId}`.execute(h.database.db);
  return Number(rows[0]!.n);
}

describe('a planned settlement run resumed after its beneficiary stopped settling', () => {
  it('deleted: nothing is paid, the run fails', async () => {
    const { w, b, run, period } = await plannedRun(1);
    expect((await h.api('DELETE', `/v1/wallets/${w.id}/beneficiaries/${b.id}`, { key: w.apiKey })).status).toBe(200);
    await h.services.settlements.run(run.id);
    const after = await h.services.settlements.findRun(b.id, period);
    expect(after).toMatchObject({ status: 'failed', transaction_ids: [] });
    expect(after!.error).toMatch(/no longer receives settlements/);
    expect(await withdrawalsOf(run.id)).toBe(0);
  });

  it('deactivated or taken off settlement: nothing is paid either', async () => {
    for (const [day, patch] of [
      [3, { isActive: false }],
      [5, { isSettlement: false }],
    ] as const) {
      const { w, b, run, period } = await plannedRun(day);
      expect((await h.api('PATCH', `/v1/wallets/${w.id}/beneficiaries/${b.id}`, { key: w.apiKey, body: patch })).status).toBe(200);
      await h.services.settlements.run(run.id);
      expect(await h.services.settlements.findRun(b.id, period)).toMatchObject({ status: 'failed', transaction_ids: [] });
      expect(await withdrawalsOf(run.id)).toBe(0);
      // Clean up: one settlement beneficiary in force at a time.
      expect((await h.api('DELETE', `/v1/wallets/${w.id}/beneficiaries/${b.id}`, { key: w.apiKey })).status).toBe(200);
    }
  });

  it('a request that committed before the deletion is answered with what it made (paid once)', async () => {
    const { w, b, run, period } = await plannedRun(7);
    await h.services.settlements.run(run.id);
    const done = (await h.services.settlements.findRun(b.id, period))!;
    expect(done.status).toBe('done');
    expect(done.transaction_ids).toHaveLength(1);
    // Crashed after the withdrawal committed, before the run was marked done; then deleted.
    await sql`UPDATE settlement_runs SET status = 'pending', transaction_ids = '{}' WHERE id = ${run.id}`.execute(h.database.db);
    expect((await h.api('DELETE', `/v1/wallets/${w.id}/beneficiaries/${b.id}`, { key: w.apiKey })).status).toBe(200);
    await h.services.settlements.run(run.id);
    expect(await h.services.settlements.findRun(b.id, period)).toMatchObject({ status: 'done', transaction_ids: done.transaction_ids });
    expect(await withdrawalsOf(run.id)).toBe(1);
  });
});
