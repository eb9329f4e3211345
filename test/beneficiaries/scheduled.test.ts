/**
 * Scheduled settlement, on real anvil and PostgreSQL with the worker and a fake clock: a
 * DAILY run moves the master's balance once per UTC day (a second tick the same day,
 * concurrent ticks, two callers on one run and a resumed run do nothing more), less what
 * pending withdrawals hold; whitelisting applies; the default beneficiary takes over
 * without settling a period twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ManualClock } from '../../src/lib/clock.js';
import type { Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { periods, randomAddress, runOf, startSettlementWorld, transactions } from './world.js';

let h: Harness;
let eth: TestChain;
let receiver: Receiver;
const ETH = 'devnet-eth';
const clock = new ManualClock(Date.UTC(2026, 0, 1, 10, 0, 0));
const USDC6 = 10n ** 6n;

beforeAll(async () => {
  h = await startSettlementWorld(ETH, clock);
  eth = chainOf(h, ETH);
  receiver = await startReceiver();
  const w = h.wallets[ETH]!;
  expect((await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { webhookUrl: receiver.url } })).status).toBe(200);
});
/**
 * Waits until earlier settlements are recorded as mined: one mined but still PENDING in the
 * database is held back as well (safe: what it leaves is settled next time), which would
 * change the amounts the tests expect.
 */
async function noPendingWithdrawals() {
  const w = h.wallets[ETH]!;
  await eventually(
    () => h.api('GET', `/v1/wallets/${w.id}/transactions?type=WITHDRAW&status=PENDING`, { key: w.apiKey }),
    (res) => res.body.data.length === 0,
    20_000,
  );
}

afterAll(async () => {
  await receiver?.close();
  await h?.stop();
});

describe('DAILY settlement on the fake clock', () => {
  it('moves the balance on chain once per UTC day', async () => {
    const w = h.wallets[ETH]!;
    await eth.sendToken('USDC', w.address, '120');
    await eth.sendToken('USDT', w.address, '30.5');
    const to = randomAddress();
    const res = await h.api('POST', `/v1/wallets/${w.id}/beneficiaries`, {
      key: w.apiKey,
      body: { name: 'Daily treasury', address: to, settlementFrequency: 'DAILY' },
    });
    expect(res.status).toBe(200);
    const b = res.body.data;

    // Created at 10:00 on 1 January: nothing is due before that day has ended.
    await h.services.settlements.tick();
    clock.set(Date.UTC(2026, 0, 1, 23, 59, 59));
    await h.services.settlements.tick();
    expect(await periods(h, ETH, b.id)).toEqual([]);

    // Just after midnight the day that closed is settled: both tokens, from the master.
    clock.set(Date.UTC(2026, 0, 2, 0, 0, 30));
    await Promise.all([h.services.settlements.tick(), h.services.settlements.tick()]);
    expect(await periods(h, ETH, b.id)).toEqual(['DAILY:2026-01-01']);
    const run = await runOf(h, b.id, 'DAILY:2026-01-01');
    expect(run).toMatchObject({ status: 'done', error: null });
    expect(run!.transaction_ids).toHaveLength(2);

    const settled = await eventually(
      () => transactions(h, ETH, run!.transaction_ids),
      (txs) => txs.every((t) => t.status === 'SUCCESS'),
      20_000,
    );
    for (const t of settled) {
      expect(t).toMatchObject({
        type: 'WITHDRAW',
        status: 'SUCCESS',
        confirmed: true,
        senderAddress: w.address,
        recipientAddress: to,
        metadata: { settlement: { runId: run!.id, beneficiaryId: b.id, period: 'DAILY:2026-01-01' } },
      });
    }
    expect(settled.map((t) => `${t.asset.symbol} ${t.amount}`).sort()).toEqual(['USDC 120', 'USDT 30.5']);
    // Each settlement is announced as a withdrawal, signed with the wallet's key (and stamped by the fake clock).
    const events = await eventually(
      async () =>
        receiver.requests
          .map((r) =>
            verifyWebhook<Record<string, any>>({
              body: r.body,
              headers: r.headers,
              apiKey: w.apiKey,
              now: clock.now().getTime(),
              replay: false,
            }),
          )
          .filter((e) => run!.transaction_ids.includes(e.data.id)),
      (list) => list.length === 2,
      20_000,
    );
    for (const e of events) {
      expect(e.event).toBe('withdraw.success');
      expect(e.data).toMatchObject({ type: 'WITHDRAW', status: 'SUCCESS', metadata: { settlement: { period: 'DAILY:2026-01-01' } } });
    }
    expect(await eth.balanceOf('USDC', to)).toBe(120n * USDC6);
    expect(await eth.balanceOf('USDT', to)).toBe(305n * (USDC6 / 10n));
    expect(await eth.balanceOf('USDC', w.address)).toBe(0n);

    // More money arrives the same day: later ticks that day, and the job run again, do nothing.
    await eth.sendToken('USDC', w.address, '7');
    clock.set(Date.UTC(2026, 0, 2, 18, 0, 0));
    await h.services.settlements.tick();
    await h.services.settlements.run(run!.id);
    expect(await periods(h, ETH, b.id)).toEqual(['DAILY:2026-01-01']);
    expect(await eth.balanceOf('USDC', to)).toBe(120n * USDC6);
    expect(await eth.balanceOf('USDC', w.address)).toBe(7n * USDC6);

    // The runs are listed on the beneficiary.
    const list = await h.api('GET', `/v1/wallets/${w.id}/beneficiaries/${b.id}/settlements`, { key: w.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([expect.objectContaining({ id: run!.id, period: 'DAILY:2026-01-01', status: 'done' })]);

    // The next day settles what came since.
    clock.set(Date.UTC(2026, 0, 3, 0, 1, 0));
    await h.services.settlements.tick();
    expect((await runOf(h, b.id, 'DAILY:2026-01-02'))!.status).toBe('done');
    await eventually(
      () => eth.balanceOf('USDC', to),
      (v) => v === 127n * USDC6,
      20_000,
    );

    // A day with nothing to settle records that, and moves nothing.
    await eventually(
      () => eth.balanceOf('USDC', w.address),
      (v) => v === 0n,
      20_000,
    );
    clock.set(Date.UTC(2026, 0, 4, 0, 1, 0));
    await h.services.settlements.tick();
    expect(await runOf(h, b.id, 'DAILY:2026-01-03')).toMatchObject({ status: 'nothing', transaction_ids: [] });
  });

  it('respects whitelisting: a settlement beneficiary that is not whitelisted is refused and the funds stay', async () => {
    const w = h.wallets[ETH]!;
    const list = await h.api('GET', `/v1/wallets/${w.id}/beneficiaries?isSettlement=true`, { key: w.apiKey });
    const b = list.body.data[0];
    const other = await h.api('POST', `/v1/wallets/${w.id}/beneficiaries`, {
      key: w.apiKey,
      body: { name: 'Whitelisted', address: randomAddress(), isWhitelisted: true },
    });
    expect(other.status).toBe(200);
    // The last test's payout is mined, but its withdrawal may still be PENDING (held against the balance) until tracked.
    await noPendingWithdrawals();
    await eth.sendToken('USDC', w.address, '5');
    clock.set(Date.UTC(2026, 0, 5, 0, 1, 0));
    await h.services.settlements.tick();
    const run = await runOf(h, b.id, 'DAILY:2026-01-04');
    expect(run!.status).toBe('failed');
    expect(run!.error).toMatch(/^NOT_WHITELISTED/);
    expect(await eth.balanceOf('USDC', w.address)).toBe(5n * USDC6);
    // Clean up for the next test on this wallet.
    expect((await h.api('DELETE', `/v1/wallets/${w.id}/beneficiaries/${other.body.data.id}`, { key: w.apiKey })).status).toBe(200);
  });
});

describe('exactly once', () => {
  it('two workers on one run, and a run resumed after a crash, pay once', async () => {
    const w = h.wallets[ETH]!;
    const b = (await h.api('GET', `/v1/wallets/${w.id}/beneficiaries?isSettlement=true`, { key: w.apiKey })).body.data[0];
    await noPendingWithdrawals();
    await eth.sendToken('USDC', w.address, '9');
    const before = await eth.balanceOf('USDC', b.address);
    const atMaster = await eth.balanceOf('USDC', w.address);
    expect(atMaster).toBe(14n * USDC6);

    // The queue would run the job once; here two callers race on the same run.
    await h.stopWorker();
    clock.set(Date.UTC(2026, 0, 6, 0, 1, 0));
    await h.services.settlements.tick();
    const pending = await h.services.settlements.findRun(b.id, 'DAILY:2026-01-05');
    expect(pending!.status).toBe('pending');
    await Promise.all([h.services.settlements.run(pending!.id), h.services.settlements.run(pending!.id)]);
    const done = await h.services.settlements.findRun(b.id, 'DAILY:2026-01-05');
    expect(done).toMatchObject({ status: 'done' });
    expect(done!.transaction_ids).toHaveLength(1);

    // A crash after the withdrawal committed but before the run was marked done: the
    // resumed run sends the same request and is answered with the same transaction.
    await sql`UPDATE settlement_runs SET status = 'pending', transaction_ids = '{}' WHERE id = ${done!.id}`.execute(h.database.db);
    await h.services.settlements.run(done!.id);
    expect((await h.services.settlements.findRun(b.id, 'DAILY:2026-01-05'))!.transaction_ids).toEqual(done!.transaction_ids);

    await h.startWorker();
    await eventually(
      () => eth.balanceOf('USDC', b.address),
      (v) => v === before + atMaster,
      20_000,
    );
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM transactions WHERE metadata -> 'settlement' ->> 'runId' = ${done!.id}`.execute(h.database.db);
    expect(Number(rows[0]!.n)).toBe(1);
    expect(await eth.balanceOf('USDC', w.address)).toBe(0n);
  });
});

describe('several settlement beneficiaries', () => {
  it('the default wins; handing over mid-period does not settle that period twice', async () => {
    const w = h.wallets[ETH]!;
    const a = (await h.api('GET', `/v1/wallets/${w.id}/beneficiaries?isSettlement=true`, { key: w.apiKey })).body.data[0];
    expect(await periods(h, ETH, a.id)).toContain('DAILY:2026-01-05');
    // B has been a DAILY settlement beneficiary since 2 January, but A, the oldest, is in force.
    const now = clock.now();
    clock.set(Date.UTC(2026, 0, 2, 12, 0, 0));
    const created = await h.api('POST', `/v1/wallets/${w.id}/beneficiaries`, {
      key: w.apiKey,
      body: { name: 'Successor', address: randomAddress(), settlementFrequency: 'DAILY' },
    });
    expect(created.status).toBe(200);
    const b = created.body.data;
    clock.set(now.getTime() + 4 * 60_000);

    await noPendingWithdrawals();
    await eth.sendToken('USDC', w.address, '2');
    expect((await h.api('PATCH', `/v1/wallets/${w.id}/beneficiaries/${b.id}`, { key: w.apiKey, body: { isDefault: true } })).status).toBe(
      200,
    );
    // 5 January was settled (to A): B does not settle it again.
    await h.services.settlements.tick();
    expect(await periods(h, ETH, b.id)).toEqual([]);
    expect(await eth.balanceOf('USDC', w.address)).toBe(2n * USDC6);

    // The next day is B's.
    clock.set(Date.UTC(2026, 0, 7, 0, 1, 0));
    await h.services.settlements.tick();
    expect(await runOf(h, b.id, 'DAILY:2026-01-06')).toMatchObject({ status: 'done' });
    expect(await periods(h, ETH, a.id)).not.toContain('DAILY:2026-01-06');
    await eventually(
      () => eth.balanceOf('USDC', b.address),
      (v) => v === 2n * USDC6,
      20_000,
    );
  });
});

describe('what is settled', () => {
  it('the balance less what PENDING withdrawals hold', async () => {
    const w = h.wallets[ETH]!;
    const b = (await h.api('GET', `/v1/wallets/${w.id}/beneficiaries?isSettlement=true`, { key: w.apiKey })).body.data.find(
      (x: { isDefault: boolean }) => x.isDefault,
    );
    await noPendingWithdrawals();
    const before = await eth.balanceOf('USDC', b.address);
    await h.stopWorker();
    await eth.sendToken('USDC', w.address, '10');
    const payee = randomAddress();
    const usdc = h.services.catalogue.findChain(ETH, 'testnet')!.assets.find((a) => a.symbol === 'USDC')!;
    const pending = await h.api('POST', `/v1/wallets/${w.id}/withdraw`, {
      key: w.apiKey,
      body: { assetId: usdc.id, address: payee, amount: '4' },
    });
    expect(pending.status).toBe(200);
    expect(pending.body.data.status).toBe('PENDING');

    clock.set(Date.UTC(2026, 0, 8, 0, 1, 0));
    await h.services.settlements.tick();
    const run = await h.services.settlements.findRun(b.id, 'DAILY:2026-01-07');
    await h.services.settlements.run(run!.id);
    const [t] = await transactions(h, ETH, (await h.services.settlements.findRun(b.id, 'DAILY:2026-01-07'))!.transaction_ids);
    expect(t).toMatchObject({ type: 'WITHDRAW', amount: '6' });

    await h.startWorker();
    await eventually(
      () => Promise.all([eth.balanceOf('USDC', b.address), eth.balanceOf('USDC', payee), eth.balanceOf('USDC', w.address)]),
      ([toB, toPayee, left]) => toB === before + 6n * USDC6 && toPayee === 4n * USDC6 && left === 0n,
      20_000,
    );
  });
});

describe('what auto-settlements hold', () => {
  it('the balance less what a PENDING auto-settlement from the master is about to send', async () => {
    const w = h.wallets[ETH]!;
    const b = (await h.api('GET', `/v1/wallets/${w.id}/beneficiaries?isSettlement=true`, { key: w.apiKey })).body.data.find(
      (x: { isDefault: boolean }) => x.isDefault,
    );
    await noPendingWithdrawals();
    const before = await eth.balanceOf('USDC', b.address);
    const dest = randomAddress();
    // The earlier tests' deposits, confirmed before any rule exists: no rule may take them.
    const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(ETH, 'testnet')!);
    for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') break;
    expect((await h.api('PATCH', `/v1/wallets/${w.id}/auto-settlements`, { key: w.apiKey, body: { isActive: true } })).status).toBe(200);
    const created = await h.api('POST', `/v1/wallets/${w.id}/auto-settlements/rules`, {
      key: w.apiKey,
      body: {
        name: 'big deposits out',
        source: { assets: ['USDC'], blockchain: ETH, minAmount: '10' },
        destination: { asset: 'USDC', address: dest, blockchain: ETH },
      },
    });
    expect(created.status).toBe(200);
    try {
      await h.stopWorker();
      const taken = await eth.sendToken('USDC', w.address, '10');
      await eth.sendToken('USDC', w.address, '3');
      for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') break;
      // The worker is stopped: do the job the confirmation queued (auto_settle_deposits) here.
      const deposits = await sql<{ id: string }>`
        SELECT id FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${taken.transactionHash})`.execute(h.database.db);
      await h.services.autoSettlements.takeConfirmed(deposits.rows.map((d) => d.id));
      const { rows } = await sql<{ id: string }>`
        SELECT s.id FROM auto_settlements s JOIN transactions t ON t.id = s.deposit_id
         WHERE lower(t.hash) = lower(${taken.transactionHash})`.execute(h.database.db);
      expect(rows).toHaveLength(1);
      // Planned: its AUTO_SETTLEMENT leg is PENDING, nothing sent yet.
      await h.services.autoSettlements.executor.run(rows[0]!.id);

      clock.set(Date.UTC(2026, 0, 9, 0, 1, 0));
      await h.services.settlements.tick();
      const run = await h.services.settlements.findRun(b.id, 'DAILY:2026-01-08');
      await h.services.settlements.run(run!.id);
      const [t] = await transactions(h, ETH, (await h.services.settlements.findRun(b.id, 'DAILY:2026-01-08'))!.transaction_ids);
      expect(t).toMatchObject({ type: 'WITHDRAW', amount: '3' });

      await h.startWorker();
      await eventually(
        () => Promise.all([eth.balanceOf('USDC', b.address), eth.balanceOf('USDC', dest), eth.balanceOf('USDC', w.address)]),
        ([toB, toDest, left]) => toB === before + 3n * USDC6 && toDest === 10n * USDC6 && left === 0n,
        20_000,
      );
    } finally {
      await h.startWorker();
      await h.api('DELETE', `/v1/wallets/${w.id}/auto-settlements/rules/${created.body.data.id}`, { key: w.apiKey });
    }
  });
});
