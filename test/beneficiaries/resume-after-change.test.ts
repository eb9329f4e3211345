/**
 * A settlement run resumed after its beneficiary changed, on real anvil and PostgreSQL: a
 * run that stored its amounts but never made its request (the request failed on a transport
 * error, the job waits for its retry) pays nobody once its beneficiary was deleted meanwhile;
 * a run whose request was made (the worker died before marking it done) is recorded as done
 * with the withdrawal it made, even when its beneficiary was renamed meanwhile (the request
 * it would send again names the beneficiary in its note, so the stored one no longer matches
 * its Idempotency-Key).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ManualClock } from '../../src/lib/clock.js';
import { UpstreamError } from '../../src/lib/errors.js';
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
  // The runs are driven by hand: no job of the queue runs them first.
  await h.stopWorker();
});

afterAll(async () => {
  await h?.stop();
});

async function dailyBeneficiary(name: string) {
  const w = h.wallets[ETH]!;
  const res = await h.api('POST', `/v1/wallets/${w.id}/beneficiaries`, {
    key: w.apiKey,
    body: { name, address: randomAddress(), settlementFrequency: 'DAILY' },
  });
  expect(res.status).toBe(200);
  return res.body.data as { id: string; address: string };
}

describe('a run resumed after its beneficiary changed', () => {
  it('pays a beneficiary deleted after the run decided its amounts but before it made its request: nothing', async () => {
    const w = h.wallets[ETH]!;
    await eth.sendToken('USDC', w.address, '10');
    const b = await dailyBeneficiary('Old treasury');

    clock.set(Date.UTC(2026, 0, 2, 0, 1, 0));
    await h.services.settlements.tick();
    const run = await h.services.settlements.findRun(b.id, 'DAILY:2026-01-01');
    expect(run!.status).toBe('pending');

    // The first attempt decides its amounts, then its request fails on a transport error:
    // nothing was written, the job will be retried.
    const withdrawals = h.services.withdrawals;
    const withdraw = withdrawals.withdraw;
    withdrawals.withdraw = async () => {
      throw new UpstreamError('CHAIN_UNAVAILABLE', 'the node does not answer');
    };
    try {
      await expect(h.services.settlements.run(run!.id)).rejects.toThrow(/does not answer/);
    } finally {
      withdrawals.withdraw = withdraw;
    }
    expect((await h.services.settlements.findRun(b.id, 'DAILY:2026-01-01'))!.plan).toHaveLength(1);

    // Meanwhile the client deletes the beneficiary (a wrong or compromised address, say).
    expect((await h.api('DELETE', `/v1/wallets/${w.id}/beneficiaries/${b.id}`, { key: w.apiKey })).status).toBe(200);

    // The retry pays nobody.
    await h.services.settlements.run(run!.id);
    const after = await h.services.settlements.findRun(b.id, 'DAILY:2026-01-01');
    expect(after).toMatchObject({ status: 'failed', transaction_ids: [] });
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM transactions WHERE metadata -> 'settlement' ->> 'runId' = ${run!.id}`.execute(h.database.db);
    expect(Number(rows[0]!.n)).toBe(0);
    expect(await eth.balanceOf('USDC', w.address)).toBe(10n * USDC6);
  });

  it('records a run whose withdrawal was made as done, even after its beneficiary was renamed', async () => {
    const w = h.wallets[ETH]!;
    await eth.sendToken('USDC', w.address, '5');
    const b = await dailyBeneficiary('Treasury');

    clock.set(Date.UTC(2026, 0, 3, 0, 1, 0));
    await h.services.settlements.tick();
    const run = await h.services.settlements.findRun(b.id, 'DAILY:2026-01-02');
    await h.services.settlements.run(run!.id);
    const done = await h.services.settlements.findRun(b.id, 'DAILY:2026-01-02');
    expect(done).toMatchObject({ status: 'done', error: null });
    expect(done!.transaction_ids).toHaveLength(1);

    // The worker died after the withdrawal committed, before the run was marked done; the
    // client renames the beneficiary before the job is run again.
    await sql`UPDATE settlement_runs SET status = 'pending', transaction_ids = '{}' WHERE id = ${done!.id}`.execute(h.database.db);
    const renamed = await h.api('PATCH', `/v1/wallets/${w.id}/beneficiaries/${b.id}`, { key: w.apiKey, body: { name: 'Main treasury' } });
    expect(renamed.status).toBe(200);

    await h.services.settlements.run(done!.id);
    expect(await h.services.settlements.findRun(b.id, 'DAILY:2026-01-02')).toMatchObject({
      status: 'done',
      error: null,
      transaction_ids: done!.transaction_ids,
    });
  });
  it('pays nobody when another beneficiary took over before the run was sent', async () => {
    const w = h.wallets[ETH]!;
    await eth.sendToken('USDC', w.address, '3');
    const current = (await h.api('GET', `/v1/wallets/${w.id}/beneficiaries?isSettlement=true`, { key: w.apiKey })).body.data;
    expect(current).toHaveLength(1);
    const a = current[0];

    clock.set(Date.UTC(2026, 0, 4, 0, 1, 0));
    await h.services.settlements.tick();
    const run = await h.services.settlements.findRun(a.id, 'DAILY:2026-01-03');
    expect(run!.status).toBe('pending');

    // Before the run's job gets its turn, the client hands settlement over to a new default
    // beneficiary: A stays active (it may still be paid by hand) but is no longer in force.
    const b = await h.api('POST', `/v1/wallets/${w.id}/beneficiaries`, {
      key: w.apiKey,
      body: { name: 'New treasury', address: randomAddress(), settlementFrequency: 'DAILY', isDefault: true },
    });
    expect(b.status).toBe(200);

    await h.services.settlements.run(run!.id);
    expect(await h.services.settlements.findRun(a.id, 'DAILY:2026-01-03')).toMatchObject({ status: 'failed', transaction_ids: [] });
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM transactions WHERE metadata -> 'settlement' ->> 'runId' = ${run!.id}`.execute(h.database.db);
    expect(Number(rows[0]!.n)).toBe(0);
  });
});
