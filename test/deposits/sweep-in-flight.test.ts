/**
 * A manual sweep while the child's own withdrawals are in flight (issue 27, 4): the balance
 * read at the latest block still counts what the pending withdrawals will take, so the sweep
 * moves only what is free (97 of 100 USDC, with 3 USDC on its way out), and says the funds
 * are in flight (409 FUNDS_IN_FLIGHT) when nothing is free, instead of NOTHING_TO_SWEEP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { formatUnits } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';
import { addressKey } from '../../src/chains/address-key.js';

let h: Harness;
let eth: TestChain;
let indexer: ChainIndexer;
const USDC = 10n ** 6n;

const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  h = await startHarness({
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
  });
  eth = chainOf(h, 'devnet-eth');
  indexer = h.services.deposits.indexer(h.services.catalogue.findChain('devnet-eth', 'testnet')!);
  for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') break;
}, 60_000);
afterAll(async () => {
  await eth?.rpc('evm_setAutomine', [true]).catch(() => undefined);
  await h?.stop();
});

/** A child with a confirmed USDC deposit of `amount` and some ETH for its own fees; the deposit's id. */
async function childWithDeposit(amount: string) {
  const res = await h.api('POST', `${base()}/addresses`, { body: { disableAutoSweep: true } });
  const child = res.body.data as { id: string; address: string };
  const receipt = await eth.sendToken('USDC', child.address, amount);
  const gas = await eth.sendNative(child.address, '0.1');
  for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') break;
  return { ...child, depositId: await depositOf(receipt.transactionHash), gasHash: gas.transactionHash };
}

async function depositOf(hash: string) {
  const { rows } = await sql<{ id: string; status: string }>`
    SELECT id, status FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${hash})`.execute(h.database.db);
  expect(rows[0]?.status).toBe('SUCCESS');
  return rows[0]!.id;
}

const assetId = (symbol: string) => h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === symbol)!.id;

/** A sweep of the deposit, started by the API while the worker is stopped: its transaction written, not yet sent. */
async function sweepInFlight(childId: string, depositId: string) {
  const res = await h.api('POST', `${base()}/transactions/sweep/assets`, { body: { transactionId: depositId } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const { rows } = await sql<{ amount: string; reserved_fee: string }>`
    SELECT amount, reserved_fee FROM sweeps WHERE address_id = ${childId} AND status = 'pending'`.execute(h.database.db);
  expect(rows).toHaveLength(1);
  return { amount: BigInt(rows[0]!.amount), fee: BigInt(rows[0]!.reserved_fee) };
}

/** The child's withdrawals (rows of any status): a refused request writes none. */
async function withdrawalsFrom(childId: string) {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM transactions WHERE address_id = ${childId} AND type = 'WITHDRAW'`.execute(h.database.db);
  return rows[0]!.n;
}

/** A withdrawal from the child, signed and broadcast but not mined (automine is off). */
async function pendingWithdrawal(childId: string, amount: string, to: string) {
  const usdc = h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDC')!.id;
  const res = await h.api('POST', `${base()}/addresses/${childId}/withdraw`, { body: { assetId: usdc, address: to, amount } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await eventually(
    async () =>
      (await sql<{ stage: string }>`SELECT stage FROM outbound_txs WHERE owner_id = ${res.body.data.id}`.execute(h.database.db)).rows[0]
        ?.stage,
    (stage) => stage === 'signed' || stage === 'broadcast',
  );
  return res.body.data.id as string;
}

describe('a manual sweep while withdrawals of the child are in flight', () => {
  it('sweeps what is free (97 of 100 USDC); says FUNDS_IN_FLIGHT when nothing is', async () => {
    const a = await childWithDeposit('100');
    const b = await childWithDeposit('5');
    await eth.rpc('evm_setAutomine', [false]);
    const payee = fresh();
    await pendingWithdrawal(a.id, '3', payee);
    await pendingWithdrawal(b.id, '5', payee);
    const masterBefore = await eth.balanceOf('USDC', wallet().address);

    const held = await h.api('POST', `${base()}/transactions/sweep/assets`, { body: { transactionId: b.depositId } });
    expect([held.status, held.body.error], JSON.stringify(held.body)).toEqual([409, 'FUNDS_IN_FLIGHT']);

    const swept = await h.api('POST', `${base()}/transactions/sweep/assets`, { body: { transactionId: a.depositId } });
    expect(swept.status, JSON.stringify(swept.body)).toBe(200);
    const { rows } = await sql<{ amount: string }>`SELECT amount FROM sweeps WHERE address_id = ${a.id}`.execute(h.database.db);
    expect(rows.map((r) => BigInt(r.amount))).toEqual([97n * USDC]);

    await eth.rpc('evm_setAutomine', [true]);
    await eth.mine(1);
    await eventually(
      async () => (await h.api('GET', `${base()}/transactions/${a.depositId}`)).body.data.assetSwept,
      (v) => v === true,
      30_000,
    );
    expect(await eth.balanceOf('USDC', wallet().address)).toBe(masterBefore + 97n * USDC);
    expect(await eth.balanceOf('USDC', payee)).toBe(8n * USDC);
    expect(await eth.balanceOf('USDC', a.address)).toBe(0n);
  });
});

describe('withdrawals from a child while its sweep is in flight', () => {
  it('a token sweep holds what it moves and its fee: a withdrawal of the token is refused, nothing is written, the sweep lands whole', async () => {
    const a = await childWithDeposit('100');
    const masterBefore = await eth.balanceOf('USDC', wallet().address);
    // Stopped, the worker sends nothing: the window between a sweep's plan and its transfer
    // reaching the node (a busy queue, a top-up to wait for), where the node's estimate of
    // the withdrawal still passes.
    await h.stopWorker();
    try {
      const sweep = await sweepInFlight(a.id, a.depositId);
      expect(sweep.amount).toBe(100n * USDC);
      // The child pays its transfer from its own 0.1 ETH (no top-up): the quote's fee is held.
      expect(sweep.fee).toBeGreaterThan(0n);
      const res = await h.api('POST', `${base()}/addresses/${a.id}/withdraw`, {
        body: { assetId: assetId('USDC'), address: fresh(), amount: '1' },
      });
      expect([res.status, res.body.error], JSON.stringify(res.body)).toEqual([422, 'INSUFFICIENT_BALANCE']);
      expect(await withdrawalsFrom(a.id)).toBe(0);
    } finally {
      await h.startWorker();
    }
    await eventually(
      async () => (await h.api('GET', `${base()}/transactions/${a.depositId}`)).body.data.assetSwept,
      (v) => v === true,
      30_000,
    );
    expect(await eth.balanceOf('USDC', wallet().address)).toBe(masterBefore + 100n * USDC);
    expect(await eth.balanceOf('USDC', a.address)).toBe(0n);
  });

  it('a native sweep holds the whole coin: a withdrawal of a little ETH from the child is refused', async () => {
    // The coin enabled on the wallet: the child's 0.1 ETH is a deposit, and ETH can be withdrawn.
    expect((await h.api('PATCH', `${base()}/assets/${assetId('ETH')}`, { body: { isActive: true } })).status).toBe(200);
    const a = await childWithDeposit('1');
    const ethDepositId = await depositOf(a.gasHash);
    await h.stopWorker();
    try {
      const sweep = await sweepInFlight(a.id, ethDepositId);
      // Everything the child holds: what it moves and its fee.
      expect(sweep.amount + sweep.fee).toBe(10n ** 17n);
      const res = await h.api('POST', `${base()}/addresses/${a.id}/withdraw`, {
        body: { assetId: assetId('ETH'), address: fresh(), amount: '0.001' },
      });
      expect([res.status, res.body.error], JSON.stringify(res.body)).toEqual([422, 'INSUFFICIENT_BALANCE']);
      expect(await withdrawalsFrom(a.id)).toBe(0);
    } finally {
      await h.startWorker();
    }
    await eventually(
      async () => (await h.api('GET', `${base()}/transactions/${ethDepositId}`)).body.data.assetSwept,
      (v) => v === true,
      30_000,
    );
  });

  it('a withdrawal accepted while the sweep was being planned is seen under the lock: the sweep plans again and finds nothing free', async () => {
    const a = await childWithDeposit('100');
    await eth.rpc('evm_setAutomine', [false]);
    const payee = fresh();
    const { rows: chain } = await sql<{ chain_id: string }>`SELECT chain_id FROM addresses WHERE id = ${a.id}`.execute(h.database.db);
    const waiting = async () =>
      Number(
        (await sql<{ n: string }>`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`.execute(h.database.db))
          .rows[0]!.n,
      );
    try {
      // The child's withdrawal lock held: the withdrawal waits at it with its balance read, the
      // sweep reads the chain and the child's spends in flight (none yet) and then waits too.
      const { withdrawal, sweep } = await h.database.db.transaction().execute(async (tx) => {
        await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`withdraw:${chain[0]!.chain_id}:${addressKey(a.address)}`}, 0))`.execute(
          tx,
        );
        const withdrawal = h.api('POST', `${base()}/addresses/${a.id}/withdraw`, {
          body: { assetId: assetId('USDC'), address: payee, amount: '100' },
        });
        await eventually(waiting, (n) => n === 1, 30_000);
        let answered = false;
        const sweep = h
          .api('POST', `${base()}/transactions/sweep/assets`, { body: { transactionId: a.depositId } })
          .finally(() => (answered = true));
        await eventually(
          async () => (answered ? 2 : await waiting()),
          (n) => n === 2,
          30_000,
        );
        // Wrapped: returned bare, the transaction would wait for the responses, which wait for its lock.
        return { withdrawal, sweep };
      });
      const w = await withdrawal;
      expect(w.status, JSON.stringify(w.body)).toBe(200);
      const s = await sweep;
      expect([s.status, s.body.error], JSON.stringify(s.body)).toEqual([409, 'FUNDS_IN_FLIGHT']);
      const { rows } = await sql`SELECT 1 FROM sweeps WHERE address_id = ${a.id}`.execute(h.database.db);
      expect(rows).toHaveLength(0);
    } finally {
      await eth.rpc('evm_setAutomine', [true]);
    }
    await eth.mine(1);
    await eventually(
      () => eth.balanceOf('USDC', payee),
      (b) => b === 100n * USDC,
      30_000,
    );
    expect(await eth.balanceOf('USDC', a.address)).toBe(0n);
  });
});

describe('a withdrawal from the child settled while its sweep was being planned', () => {
  it('the sweep sees it settled since its reads and plans again: nothing to sweep, nothing sent', async () => {
    const a = await childWithDeposit('100');
    const payee = fresh();
    const waiting = async () =>
      Number((await sql<{ n: string }>`SELECT count(*) AS n FROM pg_locks WHERE NOT granted`.execute(h.database.db)).rows[0]!.n);
    // The address row held: the sweep reads the chain (100 USDC, nothing in flight) and waits at
    // its lock, while a withdrawal of all of it is accepted, mined and recorded SUCCESS.
    const sweep = await h.database.db.transaction().execute(async (tx) => {
      await sql`SELECT 1 FROM addresses WHERE id = ${a.id} FOR NO KEY UPDATE`.execute(tx);
      let answered = false;
      const sweep = h
        .api('POST', `${base()}/transactions/sweep/assets`, { body: { transactionId: a.depositId } })
        .finally(() => (answered = true));
      await eventually(
        async () => (answered ? 1 : await waiting()),
        (n) => n === 1,
        30_000,
      );
      const w = await h.api('POST', `${base()}/addresses/${a.id}/withdraw`, {
        body: { assetId: assetId('USDC'), address: payee, amount: '100' },
      });
      expect(w.status, JSON.stringify(w.body)).toBe(200);
      await eventually(
        async () => (await h.api('GET', `${base()}/transactions/${w.body.data.id}`)).body.data.status,
        (status) => status === 'SUCCESS',
        30_000,
      );
      // Wrapped: returned bare, the transaction would wait for the response, which waits for its lock.
      return { sweep };
    });
    const res = await sweep.sweep;
    expect([res.status, res.body.error], JSON.stringify(res.body)).toEqual([422, 'NOTHING_TO_SWEEP']);
    const { rows } = await sql`SELECT 1 FROM sweeps WHERE address_id = ${a.id}`.execute(h.database.db);
    expect(rows).toHaveLength(0);
    expect(await eth.balanceOf('USDC', payee)).toBe(100n * USDC);
  });
});

describe("the master's top-ups in flight", () => {
  it('a top-up queued for a sweep is held from the master: a payout of all the ETH it leaves plus one wei is refused', async () => {
    expect((await h.api('PATCH', `${base()}/assets/${assetId('ETH')}`, { body: { isActive: true } })).status).toBe(200);
    // A child with the token and no coin of its own: its sweep starts with a top-up from the master.
    const res = await h.api('POST', `${base()}/addresses`, { body: { disableAutoSweep: true } });
    const child = res.body.data as { id: string; address: string };
    const receipt = await eth.sendToken('USDC', child.address, '10');
    for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') break;
    const depositId = await depositOf(receipt.transactionHash);
    const master = wallet().address as `0x${string}`;
    await h.stopWorker(); // the top-up stays queued
    try {
      await sweepInFlight(child.id, depositId);
      const { rows } = await sql<{ value: string }>`
        SELECT o.value FROM outbound_txs o JOIN sweeps s ON s.topup_outbound_id = o.id WHERE s.address_id = ${child.id}`.execute(
        h.database.db,
      );
      const topup = BigInt(rows[0]!.value);
      expect(topup).toBeGreaterThan(0n);
      // The payout's fee fixed by its own gas fields (the reservation is limit x fee cap).
      const gas = { gasLimit: '21000', gasPrice: '10000000000' };
      const fee = 21_000n * 10_000_000_000n;
      const balance = await eth.pub.getBalance({ address: master });
      const payout = (amount: bigint) =>
        h.api('POST', `${base()}/withdraw`, {
          body: { assetId: assetId('ETH'), address: fresh(), amount: formatUnits(amount, 18), ...gas },
        });
      const refused = await payout(balance - fee - topup + 1n);
      expect([refused.status, refused.body.error], JSON.stringify(refused.body)).toEqual([422, 'INSUFFICIENT_BALANCE']);
    } finally {
      await h.startWorker();
    }
    await eventually(
      async () => (await h.api('GET', `${base()}/transactions/${depositId}`)).body.data.assetSwept,
      (v) => v === true,
      30_000,
    );
    expect(await eth.balanceOf('USDC', child.address)).toBe(0n);
  });
});
