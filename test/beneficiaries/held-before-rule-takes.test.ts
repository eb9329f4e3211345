/**
 * A scheduled settlement must not take a deposit an auto-settlement rule is about to take. The
 * confirming transaction (or the sweep's, for a swept deposit) only queues the job that looks
 * the deposit's rule up and writes its auto-settlement (auto_settle_deposits,
 * auto_settle_swept); a run deciding before that job has run (the job waiting behind others, or
 * its worker down) saw no auto-settlement for the deposit, paid it to the settlement
 * beneficiary, and the rule's settlement then failed for want of funds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ManualClock } from '../../src/lib/clock.js';
import type { Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';
import { dailyTreasuryAndRule, startSettlementWorld, transactions } from './world.js';

let h: Harness;
let eth: TestChain;
const ETH = 'devnet-eth';
const USDC = 10n ** 6n;
const clock = new ManualClock(Date.UTC(2026, 2, 1, 10, 0, 0));

beforeAll(async () => {
  h = await startSettlementWorld(ETH, clock);
  eth = chainOf(h, ETH);
});
afterAll(async () => {
  await h?.stop();
});

describe('a deposit to the master whose rule has not taken it yet', () => {
  it('is left to the rule: the run settles the rest, the rule settles the deposit', async () => {
    const w = h.wallets[ETH]!;
    const { b, dest } = await dailyTreasuryAndRule(h, w, ETH);
    const before = await eth.balanceOf('USDC', w.address);
    let deposit = '';
    try {
      await h.stopWorker();
      const taken = await eth.sendToken('USDC', w.address, '10');
      await eth.sendToken('USDC', w.address, '3');
      const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(ETH, 'testnet')!);
      for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') break;
      const { rows } = await sql<{ id: string; status: string }>`
        SELECT id, status FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${taken.transactionHash})`.execute(
        h.database.db,
      );
      expect(rows).toMatchObject([{ status: 'SUCCESS' }]);
      deposit = rows[0]!.id;
      // Confirmed; the job that lets its rule take it (auto_settle_deposits) has not run yet.
      expect((await sql`SELECT 1 FROM auto_settlements WHERE deposit_id = ${deposit}`.execute(h.database.db)).rows).toEqual([]);

      clock.set(Date.UTC(2026, 2, 2, 0, 1, 0));
      await h.services.settlements.tick();
      const run = await h.services.settlements.findRun(b.body.data.id, 'DAILY:2026-03-01');
      await h.services.settlements.run(run!.id);
      const done = await h.services.settlements.findRun(b.body.data.id, 'DAILY:2026-03-01');
      expect(done).toMatchObject({ status: 'done' });
      const [t] = await transactions(h, ETH, done!.transaction_ids);
      // What was there before, and the 3 USDC no rule takes; not the rule's 10.
      expect(BigInt(Math.round(Number(t.amount) * 1e6))).toBe(before + 3n * USDC);
    } finally {
      await h.startWorker();
    }
    // The rule then takes its deposit and settles it.
    const settled = await eventually(
      async () =>
        (
          await sql<{ status: string; error: string | null }>`
        SELECT status, error FROM auto_settlements WHERE deposit_id = ${deposit}`.execute(h.database.db)
        ).rows,
      (rows) => rows.length === 1 && rows[0]!.status !== 'pending',
      30_000,
    );
    expect(settled[0], JSON.stringify(settled)).toMatchObject({ status: 'success' });
    expect(await eth.balanceOf('USDC', dest)).toBe(10n * USDC);
  });
});
