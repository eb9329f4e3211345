/**
 * Auto-settlement legs against receipts that are not final yet, on a devnet that wants 2
 * confirmations: a swap reorged away and re-mined reverted is never followed by a transfer
 * of its output; a transfer reorged away is sent again (same bytes) and reported once;
 * two swaps from the master decide their approvals one after the other. The worker is
 * stopped while branches are switched, and the pipeline steps (send, track) are run by
 * hand so the states in between can be looked at.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { decodeFunctionData, encodeFunctionData, erc20Abi, type Address, type Hex } from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { movePool } from './pool.js';

let h: Harness;
let receiver: Receiver;
let eth: TestChain;
let indexer: ChainIndexer;
const USDC = 10n ** 6n;

const wallet = () => h.wallets['devnet-eth']!;
const master = () => wallet().address as Address;
const base = () => `/v1/wallets/${wallet().id}`;
const freshAddress = () => privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  h = await startHarness({
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 2 }],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
  });
  receiver = await startReceiver();
  eth = chainOf(h, 'devnet-eth');
  expect((await h.api('PATCH', base(), { body: { webhookUrl: receiver.url } })).status).toBe(200);
  expect((await h.api('PATCH', `${base()}/auto-settlements`, { body: { isActive: true } })).status).toBe(200);
  indexer = h.services.deposits.indexer(h.services.catalogue.findChain('devnet-eth', 'testnet')!);
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
});

function rule(to: string, asset: string, order = 'RECOMMENDED') {
  return {
    name: 'reorg test rule',
    order,
    slippageTolerance: '1',
    source: { assets: ['USDC'], blockchain: 'devnet-eth', minAmount: '0', maxAmount: null },
    destination: { asset, address: to, blockchain: 'devnet-eth' },
  };
}
async function withRule<T>(body: ReturnType<typeof rule>, fn: () => Promise<T>): Promise<T> {
  const created = await h.api('POST', `${base()}/auto-settlements/rules`, { body });
  expect(created.status).toBe(200);
  try {
    return await fn();
  } finally {
    await h.api('DELETE', `${base()}/auto-settlements/rules/${created.body.data.id}`);
  }
}
/** A deposit to the master, confirmed (2 blocks) and taken by the rule; the worker must be stopped. */
async function depositToMaster(amount: string) {
  const receipt = await eth.sendToken('USDC', master(), amount);
  await eth.mine(2);
  for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') break;
  // The confirmation queued job auto_settle_deposits; the worker may be stopped, so its work
  // is done here too (run twice, it takes the deposit once).
  const deposits = await sql<{ id: string }>`
    SELECT id FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${receipt.transactionHash})`.execute(h.database.db);
  await h.services.autoSettlements.takeConfirmed(deposits.rows.map((d) => d.id));
  const { rows } = await sql<{ id: string }>`
    SELECT s.id FROM auto_settlements s JOIN transactions t ON t.id = s.deposit_id
     WHERE t.type = 'DEPOSIT' AND lower(t.hash) = lower(${receipt.transactionHash})`.execute(h.database.db);
  expect(rows).toHaveLength(1);
  return rows[0]!.id;
}
async function settlement(id: string) {
  const { rows } = await sql<{
    status: string;
    stage: string;
    swap_transaction_id: string | null;
    settle_transaction_id: string;
    error: string | null;
  }>`SELECT status, stage, swap_transaction_id, settle_transaction_id, error FROM auto_settlements WHERE id = ${id}`.execute(h.database.db);
  return rows[0]!;
}
async function outboundRows(id: string) {
  const { rows } = await sql<{ id: string; purpose: string; stage: string; data: string | null; hash: string | null }>`
    SELECT id, purpose, stage, data, hash FROM outbound_txs WHERE owner_id = ${id} ORDER BY nonce`.execute(h.database.db);
  return rows;
}
/** Mines a block at a time (the devnet only mines on transactions) until the settlement ends. */
async function finishedMining(id: string, timeoutMs = 40_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const s = await settlement(id);
    if (s.status !== 'pending') return s;
    if (Date.now() > until) throw new Error(`settlement ${id} still ${s.stage} after ${timeoutMs} ms`);
    await eth.mine(1);
    await new Promise((r) => setTimeout(r, 150));
  }
}
async function leg(id: string) {
  const res = await h.api('GET', `${base()}/transactions/${id}`);
  expect(res.status).toBe(200);
  return res.body.data as Record<string, any>;
}
function events(transactionId: string) {
  return receiver.requests
    .filter((r) => r.body.includes(transactionId))
    .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey: wallet().apiKey, replay: false }))
    .filter((w) => w.data.id === transactionId)
    .map((w) => ({ event: w.event as string, data: w.data }));
}
/** Signs, broadcasts (the devnet mines it at once) and records the receipt of each row, in nonce order. */
async function sendAndSettle(rows: { id: string }[]) {
  for (const r of rows) await h.services.outbound.send(r.id);
  // Automine mines in the node's background: wait for each receipt before recording it.
  for (const r of rows) {
    const { hash } = (await h.services.outbound.get(r.id))!;
    await eth.pub.waitForTransactionReceipt({ hash: hash as Hex, pollingInterval: 20 });
    await h.services.outbound.track(r.id);
  }
}

describe('approvals of swaps from one sender', () => {
  // First in the file: the allowance is set with the master's key outside the pipeline,
  // before the pipeline has counted any nonce of the master.
  it('a leftover allowance covering each of two swaps but not both: the second waits, resets it to 0 and approves its own', async () => {
    const router = eth.config.swapRouter as Address;
    const usdc = eth.token('USDC').address as Address;
    await eth.rpc('anvil_impersonateAccount', [master()]);
    const hash = await eth.rpc<Hex>('eth_sendTransaction', [
      { from: master(), to: usdc, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [router, 30n * USDC] }) },
    ]);
    await eth.pub.waitForTransactionReceipt({ hash });
    await eth.rpc('anvil_stopImpersonatingAccount', [master()]);

    const dest = freshAddress();
    await withRule(rule(dest, 'USDT'), async () => {
      await h.stopWorker();
      const a = await depositToMaster('20');
      const b = await depositToMaster('20');
      await h.services.autoSettlements.executor.run(a);
      await h.services.autoSettlements.executor.run(b);
      // A uses the leftover allowance; B may not count on it while A's swap is in flight.
      expect((await outboundRows(a)).map((r) => r.purpose)).toEqual(['autosettle-swap']);
      expect((await settlement(b)).stage).toBe('queued');
      expect(await outboundRows(b)).toEqual([]);

      await h.startWorker();
      expect(await finishedMining(a)).toMatchObject({ status: 'success' });
      expect(await finishedMining(b)).toMatchObject({ status: 'success' });
      // 10 left after A: non-zero and short, so approve(0) first (USDT-style tokens), then 20.
      const approvals = (await outboundRows(b))
        .filter((r) => r.purpose === 'autosettle-approve')
        .map((r) => decodeFunctionData({ abi: erc20Abi, data: r.data as Hex }).args[1]);
      expect(approvals).toEqual([0n, 20n * USDC]);
      expect(await eth.balanceOf('USDT', dest)).toBeGreaterThanOrEqual(2n * 19n * USDC);
    });
  });
});

describe('legs whose block is reorganised away', () => {
  it('a swap re-mined reverted: no transfer of its output, no swap.success, the input stays with the master', async () => {
    const dest = freshAddress();
    // USDT on the master: a transfer of the lost output would have been paid from it.
    await eth.sendToken('USDT', master(), '500');
    await withRule(rule(dest, 'USDT', 'NO_SLIPPAGE'), async () => {
      await h.stopWorker();
      const id = await depositToMaster('30');
      await h.services.autoSettlements.executor.run(id);
      expect((await settlement(id)).stage).toBe('sending');
      const usdcBefore = await eth.balanceOf('USDC', master());
      const usdtBefore = await eth.balanceOf('USDT', master());

      const snap = await eth.snapshot();
      await sendAndSettle(await outboundRows(id));
      const swapRow = (await outboundRows(id)).find((r) => r.purpose === 'autosettle-swap')!;
      expect(swapRow.stage).toBe('mined');
      // Mined, 1 block deep of 2: nothing is decided on it yet.
      await h.services.autoSettlements.executor.run(id);
      expect(await settlement(id)).toMatchObject({ status: 'pending', stage: 'sending' });
      const s = await settlement(id);
      expect(await leg(s.swap_transaction_id!)).toMatchObject({ status: 'PENDING' });

      // The other branch: someone trades the pool first, so our swap's bytes now revert.
      await eth.revert(snap);
      await movePool(eth);

      await h.startWorker();
      const done = await finishedMining(id);
      expect(done.status).toBe('failed');
      const swap = await leg(done.swap_transaction_id!);
      expect(swap).toMatchObject({ status: 'FAILED', hash: swapRow.hash });
      expect((await eth.pub.getTransactionReceipt({ hash: swap.hash })).status).toBe('reverted');
      expect(await leg(done.settle_transaction_id)).toMatchObject({ status: 'FAILED' });
      expect((await outboundRows(id)).map((r) => r.purpose)).not.toContain('autosettle-transfer');
      expect(await eth.balanceOf('USDT', dest)).toBe(0n);
      expect(await eth.balanceOf('USDT', master())).toBe(usdtBefore);
      expect(await eth.balanceOf('USDC', master())).toBe(usdcBefore);
      await new Promise((r) => setTimeout(r, 500));
      expect(events(swap.id).map((e) => e.event)).toEqual(['swap.failed']);
    });
  });

  it('a transfer reorged away: sent again with the same bytes, auto-settlement.success once, at depth, paid once', async () => {
    const dest = freshAddress();
    await withRule(rule(dest, 'USDC'), async () => {
      await h.stopWorker();
      const id = await depositToMaster('5');
      await h.services.autoSettlements.executor.run(id);
      expect((await settlement(id)).stage).toBe('transfer');

      const snap = await eth.snapshot();
      await sendAndSettle(await outboundRows(id));
      const [row] = await outboundRows(id);
      expect(row).toMatchObject({ purpose: 'autosettle-transfer', stage: 'mined' });
      expect(await eth.balanceOf('USDC', dest)).toBe(5n * USDC);
      // 1 block deep of 2: not reported yet.
      expect(await settlement(id)).toMatchObject({ status: 'pending', stage: 'transfer' });
      const s = await settlement(id);
      expect(await leg(s.settle_transaction_id)).toMatchObject({ status: 'PENDING' });

      await eth.revert(snap);
      await eth.sendFiller();
      expect(await eth.balanceOf('USDC', dest)).toBe(0n);

      await h.startWorker();
      expect(await finishedMining(id)).toMatchObject({ status: 'success', stage: 'done' });
      const t = await leg(s.settle_transaction_id);
      expect(t).toMatchObject({ status: 'SUCCESS', hash: row!.hash, confirmed: true });
      expect(t.confirmations).toBeGreaterThanOrEqual(2);
      const receipt = await eth.pub.getTransactionReceipt({ hash: row!.hash as Hex });
      expect(t.blockHash).toBe(receipt.blockHash);
      expect(await eth.balanceOf('USDC', dest)).toBe(5n * USDC);
      await new Promise((r) => setTimeout(r, 500));
      expect(events(t.id).map((e) => e.event)).toEqual(['auto-settlement.success']);
    });
  });
});
