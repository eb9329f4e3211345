/**
 * A scheduled settlement must not take a deposit an auto-settlement rule has taken but not
 * yet planned. The confirming transaction writes the auto-settlement (stage `queued`) and its
 * job; the job writes the legs the settlement holds back. A run deciding in between (the
 * auto-settlement job waiting behind others, or its worker down) counted nothing for it,
 * paid the deposit to the settlement beneficiary, and the rule's settlement then failed:
 * the money went to the wrong place.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ManualClock } from '../../src/lib/clock.js';
import type { Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { dailyTreasuryAndRule, startSettlementWorld, transactions } from './world.js';

let h: Harness;
let eth: TestChain;
const ETH = 'devnet-eth';
const clock = new ManualClock(Date.UTC(2026, 2, 1, 10, 0, 0));

beforeAll(async () => {
  h = await startSettlementWorld(ETH, clock);
  eth = chainOf(h, ETH);
});
afterAll(async () => {
  await h?.stop();
});

describe('what a queued auto-settlement holds', () => {
  it('the balance less the deposit an auto-settlement has taken but not yet planned', async () => {
    const w = h.wallets[ETH]!;
    const { b, dest } = await dailyTreasuryAndRule(h, w, ETH);
    await h.stopWorker();
    const taken = await eth.sendToken('USDC', w.address, '10');
    await eth.sendToken('USDC', w.address, '3');
    const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(ETH, 'testnet')!);
    for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') break;
    // The job the confirmation queued (auto_settle_deposits) writes the queued auto-settlement; not planned yet.
    const deposits = await sql<{ id: string }>`
      SELECT id FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${taken.transactionHash})`.execute(h.database.db);
    await h.services.autoSettlements.takeConfirmed(deposits.rows.map((d) => d.id));
    const { rows } = await sql<{ stage: string }>`
      SELECT s.stage FROM auto_settlements s JOIN transactions t ON t.id = s.deposit_id
       WHERE lower(t.hash) = lower(${taken.transactionHash})`.execute(h.database.db);
    expect(rows).toEqual([{ stage: 'queued' }]);

    clock.set(Date.UTC(2026, 2, 2, 0, 1, 0));
    await h.services.settlements.tick();
    const run = await h.services.settlements.findRun(b.body.data.id, 'DAILY:2026-03-01');
    await h.services.settlements.run(run!.id);
    const done = await h.services.settlements.findRun(b.body.data.id, 'DAILY:2026-03-01');
    expect(done).toMatchObject({ status: 'done' });
    const [t] = await transactions(h, ETH, done!.transaction_ids);
    expect(t).toMatchObject({ type: 'WITHDRAW', amount: '3' });
  });

  it('a deposit the settlement paid because no rule took it then is not taken by a rule switched on after', async () => {
    const w = h.wallets[ETH]!;
    const switchTo = async (isActive: boolean) =>
      expect((await h.api('PATCH', `/v1/wallets/${w.id}/auto-settlements`, { key: w.apiKey, body: { isActive } })).status).toBe(200);
    await switchTo(false);
    const sent = await eth.sendToken('USDC', w.address, '12');
    const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(ETH, 'testnet')!);
    for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') break;
    const [deposit] = (
      await sql<{ id: string }>`
        SELECT id FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${sent.transactionHash})`.execute(h.database.db)
    ).rows;
    // The take job the confirmation queued has not run (the worker is down): the settlement
    // decides first, with the wallet's auto-settlement off, and pays the deposit.
    clock.set(Date.UTC(2026, 2, 3, 0, 1, 0));
    await h.services.settlements.tick();
    const b = (await h.services.beneficiaries.settlementOf(w.id))!;
    const run = (await h.services.settlements.findRun(b.id, 'DAILY:2026-03-02'))!;
    await h.services.settlements.run(run.id);
    const done = (await h.services.settlements.findRun(b.id, 'DAILY:2026-03-02'))!;
    expect(done.status).toBe('done');
    const [t] = await transactions(h, ETH, done.transaction_ids);
    expect(t).toMatchObject({ type: 'WITHDRAW', amount: '12' });
    // Switched on before the take job runs: the rule must not take what the settlement paid.
    await switchTo(true);
    await h.services.autoSettlements.takeConfirmed([deposit!.id]);
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM auto_settlements WHERE deposit_id = ${deposit!.id}`.execute(h.database.db);
    expect(rows[0]!.n).toBe(0);
  });
});
