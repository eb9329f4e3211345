/**
 * A settlement run resumed after its job died between deciding its amounts and the end of its
 * withdrawal request (a crash, or a chain read that failed): whether the request was made is
 * read from what it wrote, not from the request made again. Not made, and the beneficiary
 * removed meanwhile (or another made the default): nothing is paid to it. Made, and the
 * beneficiary renamed meanwhile (its name is in the request's note): the run is done with the
 * withdrawal it made, not failed. Only the plan's own payments count as made.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
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
  // The runs are driven by hand: the worker's own tick and jobs stay out of the way.
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

const settlementWithdrawals = async (runId: string) =>
  (
    await sql<{ id: string }>`
      SELECT id FROM transactions WHERE type = 'WITHDRAW' AND metadata -> 'settlement' ->> 'runId' = ${runId}`.execute(h.database.db)
  ).rows.map((r) => r.id);

/** The run's job, failing once inside its withdrawal request as a node that does not answer makes it fail. */
async function runFailingOnce(runId: string): Promise<void> {
  const withdrawals = h.services.withdrawals;
  const withdraw = withdrawals.withdraw.bind(withdrawals);
  withdrawals.withdraw = async () => {
    throw new UpstreamError('CHAIN_UNAVAILABLE', 'the node did not answer');
  };
  try {
    await expect(h.services.settlements.run(runId)).rejects.toThrow(/did not answer/);
  } finally {
    withdrawals.withdraw = withdraw;
  }
}

it('a run whose request was never made pays nothing to a beneficiary removed before it resumed', async () => {
  const w = h.wallets[ETH]!;
  const b = await dailyBeneficiary('Removed treasury');
  await eth.sendToken('USDC', w.address, '25');

  clock.set(Date.UTC(2026, 0, 2, 0, 1, 0));
  await h.services.settlements.tick();
  const run = (await h.services.settlements.findRun(b.id, 'DAILY:2026-01-01'))!;
  await runFailingOnce(run.id);
  // Its amounts are decided; no withdrawal was written.
  expect((await h.services.settlements.findRun(b.id, 'DAILY:2026-01-01'))!.plan).toHaveLength(1);
  expect(await settlementWithdrawals(run.id)).toEqual([]);

  // While the job waits for its retry, the operator removes the beneficiary.
  expect((await h.api('DELETE', `/v1/wallets/${w.id}/beneficiaries/${b.id}`, { key: w.apiKey })).status).toBe(200);

  await h.services.settlements.run(run.id);
  expect(await settlementWithdrawals(run.id)).toEqual([]);
  expect(await h.services.settlements.findRun(b.id, 'DAILY:2026-01-01')).toMatchObject({
    status: 'failed',
    error: 'the beneficiary no longer receives settlements',
  });
  expect(await eth.balanceOf('USDC', w.address)).toBe(25n * USDC6);
});

it('a run whose request was made is done with its withdrawal, even once the beneficiary is renamed', async () => {
  const w = h.wallets[ETH]!;
  const b = await dailyBeneficiary('Old name');
  await eth.sendToken('USDC', w.address, '7');
  clock.set(Date.UTC(2026, 0, 3, 0, 1, 0));
  await h.services.settlements.tick();
  const run = (await h.services.settlements.findRun(b.id, 'DAILY:2026-01-02'))!;
  await h.services.settlements.run(run.id);
  const done = (await h.services.settlements.findRun(b.id, 'DAILY:2026-01-02'))!;
  expect(done).toMatchObject({ status: 'done', error: null });
  expect(done.transaction_ids).toHaveLength(1);

  // A crash after the withdrawal committed but before the run was marked done, and a rename
  // before the job runs again.
  await sql`UPDATE settlement_runs SET status = 'pending', transaction_ids = '{}' WHERE id = ${run.id}`.execute(h.database.db);
  const renamed = await h.api('PATCH', `/v1/wallets/${w.id}/beneficiaries/${b.id}`, { key: w.apiKey, body: { name: 'New name' } });
  expect(renamed.status).toBe(200);

  await h.services.settlements.run(run.id);
  expect(await h.services.settlements.findRun(b.id, 'DAILY:2026-01-02')).toMatchObject({
    status: 'done',
    error: null,
    transaction_ids: done.transaction_ids,
  });
  expect(await settlementWithdrawals(run.id)).toEqual(done.transaction_ids);
});

it("a client's withdrawal under the run's reference shape does not stand for the run's payment", async () => {
  const w = h.wallets[ETH]!;
  // This run's beneficiary alone is in force.
  await sql`UPDATE beneficiaries SET deleted_at = now() WHERE wallet_id = ${w.id} AND deleted_at IS NULL`.execute(h.database.db);
  const b = await dailyBeneficiary('Forged against');
  await eth.sendToken('USDC', w.address, '9');
  clock.set(Date.UTC(2026, 0, 4, 0, 1, 0));
  await h.services.settlements.tick();
  const run = (await h.services.settlements.findRun(b.id, 'DAILY:2026-01-03'))!;
  await runFailingOnce(run.id);
  // Run ids are listed by the API: a wallet key writes a payment of its own under the reference.
  const forged = await h.api('POST', `/v1/wallets/${w.id}/withdraw`, {
    key: w.apiKey,
    body: { assetId: await usdcId(), address: randomAddress(), amount: '1', reference: `STL-${run.id}-USDC` },
  });
  expect(forged.status, JSON.stringify(forged.body)).toBe(200);

  await h.services.settlements.run(run.id);
  const after = (await h.services.settlements.findRun(b.id, 'DAILY:2026-01-03'))!;
  expect(after.status).toBe('failed');
  expect(after.error).toMatch(/REFERENCE_IN_USE/);
  expect(after.transaction_ids).toEqual([]);
});

it('a run not yet sent pays nobody once another beneficiary took over (a new default)', async () => {
  const w = h.wallets[ETH]!;
  await eth.sendToken('USDC', w.address, '3');
  const current = (await h.api('GET', `/v1/wallets/${w.id}/beneficiaries?isSettlement=true`, { key: w.apiKey })).body.data;
  expect(current).toHaveLength(1);
  const a = current[0];
  clock.set(Date.UTC(2026, 0, 5, 0, 1, 0));
  await h.services.settlements.tick();
  const run = (await h.services.settlements.findRun(a.id, 'DAILY:2026-01-04'))!;
  expect(run.status).toBe('pending');
  // Before the run's job gets its turn, the client hands settlement over to a new default
  // beneficiary: A stays active (it may still be paid by hand) but is no longer in force.
  const b = await h.api('POST', `/v1/wallets/${w.id}/beneficiaries`, {
    key: w.apiKey,
    body: { name: 'New treasury', address: randomAddress(), settlementFrequency: 'DAILY', isDefault: true },
  });
  expect(b.status).toBe(200);
  await h.services.settlements.run(run.id);
  expect(await h.services.settlements.findRun(a.id, 'DAILY:2026-01-04')).toMatchObject({ status: 'failed', transaction_ids: [] });
  expect(await settlementWithdrawals(run.id)).toEqual([]);
});

async function usdcId(): Promise<string> {
  return h.services.catalogue.findChain(ETH, 'testnet')!.assets.find((a) => a.symbol === 'USDC')!.id;
}
