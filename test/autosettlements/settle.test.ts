/**
 * Auto-settlement end to end on a real devnet: deposits found by the indexer, rules applied
 * by the worker, money moved (and swapped through the devnet's real AMM pool) by the
 * outbound pipeline, outcomes read on chain, in the transaction history and in the signed
 * webhooks the receiver got.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { formatAmount } from '../../src/lib/money.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { movePool } from './pool.js';
import * as swapStore from '../../src/modules/swaps/store.js';
import { eventually, untilBlocking } from '../support/fixtures.js';

let h: Harness;
let receiver: Receiver;
let eth: TestChain;
let indexer: ChainIndexer;
const USDC = 10n ** 6n;

const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;
const freshAddress = () => privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  h = await startHarness({
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }],
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

async function drain() {
  for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') return;
}
async function newAddress(body: Record<string, unknown> = {}) {
  const res = await h.api('POST', `${base()}/addresses`, { body });
  expect(res.status).toBe(200);
  return res.body.data as { id: string; address: string };
}
function rule(over: {
  assets?: string[];
  to: string;
  asset?: string;
  slippage?: string;
  order?: string;
  min?: string;
  max?: string | null;
}) {
  return {
    name: 'test rule',
    order: over.order ?? 'RECOMMENDED',
    slippageTolerance: over.slippage ?? '1',
    source: { assets: over.assets ?? ['USDC'], blockchain: 'devnet-eth', minAmount: over.min ?? '0', maxAmount: over.max ?? null },
    destination: { asset: over.asset ?? 'USDC', address: over.to, blockchain: 'devnet-eth' },
  };
}
async function addressRule(addressId: string, body: ReturnType<typeof rule>) {
  const res = await h.api('POST', `${base()}/addresses/${addressId}/auto-settlements/rules`, { body });
  expect(res.status).toBe(200);
  return res.body.data as { id: string };
}
async function depositId(hash: string): Promise<string> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${hash})`.execute(
    h.database.db,
  );
  return rows[0]!.id;
}
async function settlementOf(deposit: string) {
  const { rows } = await sql<{
    id: string;
    status: string;
    stage: string;
    swap_transaction_id: string | null;
    settle_transaction_id: string | null;
    error: string | null;
  }>`
    SELECT id, status, stage, swap_transaction_id, settle_transaction_id, error FROM auto_settlements WHERE deposit_id = ${deposit}`.execute(
    h.database.db,
  );
  return rows;
}
async function finished(deposit: string) {
  return eventually(
    () => settlementOf(deposit),
    (rows) => rows.length === 1 && rows[0]!.status !== 'pending',
    30_000,
  ).then((rows) => rows[0]!);
}
/**
 * A settlement refused for funds a payout of its sender took: failed with `reason`, its leg
 * FAILED with auto-settlement.failed, nothing sent for it (no transaction to revert, no fee
 * paid; a top-up from the master would be a row of it too); the payout SUCCESS.
 */
async function refusedWhilePaid(deposit: string, payoutId: string, reason: RegExp) {
  const s = await finished(deposit);
  expect(s).toMatchObject({ status: 'failed' });
  expect(s.error).toMatch(reason);
  const settle = await transaction(s.settle_transaction_id!);
  expect(settle).toMatchObject({ type: 'AUTO_SETTLEMENT', status: 'FAILED' });
  expect((await eventOf(settle.id, 'auto-settlement.failed')).data.reason).toMatch(/cannot pay/);
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM outbound_txs WHERE owner_id = ${s.id}`.execute(h.database.db);
  expect(Number(rows[0]!.n)).toBe(0);
  const paid = await eventually(
    () => transaction(payoutId),
    (t) => t.status !== 'PENDING',
    30_000,
  );
  expect(paid).toMatchObject({ status: 'SUCCESS' });
  return { settle, paid };
}
async function transaction(id: string) {
  const res = await h.api('GET', `${base()}/transactions/${id}`);
  expect(res.status).toBe(200);
  return res.body.data as Record<string, any>;
}
function events(transactionId: string) {
  return receiver.requests
    .filter((r) => r.body.includes(transactionId))
    .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey: wallet().apiKey, replay: false }))
    .filter((w) => w.data.id === transactionId);
}
async function eventOf(transactionId: string, name: string) {
  const found = await eventually(
    async () => events(transactionId).filter((e) => e.event === name),
    (list) => list.length > 0,
    15_000,
  );
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe('move rules', () => {
  it('a deposit on an address with a move rule ends at the destination (no sweep: sent from the child)', async () => {
    const child = await newAddress({ disableAutoSweep: true });
    const dest = freshAddress();
    await addressRule(child.id, rule({ to: dest }));
    const receipt = await eth.sendToken('USDC', child.address, '25');
    await drain();
    const deposit = await depositId(receipt.transactionHash);
    expect(await h.services.db.transaction().execute((tx) => h.services.autoSettlements.handles(tx, deposit))).toBe(true);

    const s = await finished(deposit);
    expect(s).toMatchObject({ status: 'success', stage: 'done', swap_transaction_id: null });
    expect(await eth.balanceOf('USDC', dest)).toBe(25n * USDC);
    expect(await eth.balanceOf('USDC', child.address)).toBe(0n);

    const t = await transaction(s.settle_transaction_id!);
    expect(t).toMatchObject({
      type: 'AUTO_SETTLEMENT',
      status: 'SUCCESS',
      confirmed: true,
      amount: '25',
      currency: 'USDC',
      recipientAddress: dest,
    });
    expect(t.senderAddress.toLowerCase()).toBe(child.address.toLowerCase());
    const onChain = await eth.pub.getTransactionReceipt({ hash: t.hash });
    expect(onChain.status).toBe('success');
    const ev = await eventOf(t.id, 'auto-settlement.success');
    expect(ev.data).toMatchObject({ type: 'AUTO_SETTLEMENT', status: 'SUCCESS', amount: '25', hash: t.hash });
    expect(ev.data.metadata).toMatchObject({ depositId: deposit });
    // Visible in the wallet's history with its type filter.
    const list = await h.api('GET', `${base()}/transactions?type=AUTO_SETTLEMENT`);
    expect(list.body.data.map((x: { id: string }) => x.id)).toContain(t.id);
  });

  it('amounts outside minAmount/maxAmount are left alone', async () => {
    const child = await newAddress({ disableAutoSweep: true });
    const dest = freshAddress();
    await addressRule(child.id, rule({ to: dest, min: '10', max: '20' }));
    const small = await eth.sendToken('USDC', child.address, '5');
    const big = await eth.sendToken('USDC', child.address, '21');
    const fits = await eth.sendToken('USDC', child.address, '15');
    await drain();
    const ok = await finished(await depositId(fits.transactionHash));
    expect(ok.status).toBe('success');
    for (const r of [small, big]) {
      const d = await depositId(r.transactionHash);
      expect(await h.services.db.transaction().execute((tx) => h.services.autoSettlements.handles(tx, d))).toBe(false);
      expect(await settlementOf(d)).toEqual([]);
    }
    expect(await eth.balanceOf('USDC', dest)).toBe(15n * USDC);
    expect(await eth.balanceOf('USDC', child.address)).toBe(26n * USDC);
  });

  it('a replayed hook or job does not settle twice', async () => {
    const child = await newAddress({ disableAutoSweep: true });
    const dest = freshAddress();
    await addressRule(child.id, rule({ to: dest }));
    const receipt = await eth.sendToken('USDC', child.address, '7');
    await drain();
    const deposit = await depositId(receipt.transactionHash);
    const s = await finished(deposit);
    // The deposit's job again (a replayed confirmation), and the settlement's job again (a restarted worker).
    await h.services.autoSettlements.takeConfirmed([deposit]);
    await h.services.autoSettlements.executor.run(s.id);
    // A zero-value transfer (anyone can send one) is no deposit at all (docs/deposits.md); it mines a block.
    await eth.sendToken('USDC', child.address, '0');
    await drain();
    await new Promise((r) => setTimeout(r, 500));
    expect(await settlementOf(deposit)).toHaveLength(1);
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM transactions WHERE type = 'AUTO_SETTLEMENT' AND metadata ->> 'depositId' = ${deposit}`.execute(
      h.database.db,
    );
    expect(Number(rows[0]!.n)).toBe(1);
    expect(await eth.balanceOf('USDC', dest)).toBe(7n * USDC);
  });
});

describe('swap rules', () => {
  it('a swept deposit is swapped at the master and the other asset ends at the destination within the slippage bound', async () => {
    const dest = freshAddress();
    const created = await h.api('POST', `${base()}/auto-settlements/rules`, { body: rule({ to: dest, asset: 'USDT', slippage: '1' }) });
    expect(created.status).toBe(200);
    try {
      const child = await newAddress(); // auto-sweep is on for the wallet
      const receipt = await eth.sendToken('USDC', child.address, '100');
      await drain();
      const deposit = await depositId(receipt.transactionHash);
      const s = await finished(deposit);
      expect(s).toMatchObject({ status: 'success', stage: 'done' });
      expect((await transaction(deposit)).assetSwept).toBe(true);

      const swap = await transaction(s.swap_transaction_id!);
      expect(swap).toMatchObject({ type: 'SWAP', status: 'SUCCESS', amount: '100', currency: 'USDC', toCurrency: 'USDT' });
      expect(swap.senderAddress).toBe(wallet().address);
      const received = await eth.balanceOf('USDT', dest);
      const receivedText = formatAmount(received, 6);
      // Within 1% of par, and what the constant-product formula gives (0.3% fee, deep pool).
      expect(received).toBeGreaterThanOrEqual(99n * USDC);
      expect(received).toBeLessThan(100n * USDC);
      const settle = await transaction(s.settle_transaction_id!);
      expect(settle).toMatchObject({
        type: 'AUTO_SETTLEMENT',
        status: 'SUCCESS',
        currency: 'USDT',
        recipientAddress: dest,
        amount: receivedText,
      });
      // The swap's output, in the destination asset's units.
      expect(swap.toAmount).toBe(receivedText);
      expect((await eventOf(swap.id, 'swap.success')).data).toMatchObject({ type: 'SWAP', status: 'SUCCESS', toCurrency: 'USDT' });
      expect((await eventOf(settle.id, 'auto-settlement.success')).data).toMatchObject({ status: 'SUCCESS', amount: receivedText });
    } finally {
      await h.api('DELETE', `${base()}/auto-settlements/rules/${created.body.data.id}`);
    }
  });

  it('a slippage bound the pool cannot meet fails with auto-settlement.failed and the funds stay put', async () => {
    const child = await newAddress({ disableAutoSweep: true });
    const dest = freshAddress();
    // The pool's 0.3% fee alone exceeds a 0.1% tolerance.
    await addressRule(child.id, rule({ to: dest, asset: 'USDT', slippage: '0.1' }));
    const receipt = await eth.sendToken('USDC', child.address, '50');
    await drain();
    const deposit = await depositId(receipt.transactionHash);
    const s = await finished(deposit);
    expect(s.status).toBe('failed');
    expect(s.error).toMatch(/slippage tolerance of 0.1%/);

    const settle = await transaction(s.settle_transaction_id!);
    expect(settle).toMatchObject({ type: 'AUTO_SETTLEMENT', status: 'FAILED' });
    const ev = await eventOf(settle.id, 'auto-settlement.failed');
    expect(ev.data).toMatchObject({ type: 'AUTO_SETTLEMENT', status: 'FAILED', recipientAddress: dest });
    expect(ev.data.reason).toMatch(/slippage/);
    expect((await eventOf(s.swap_transaction_id!, 'swap.failed')).data).toMatchObject({ type: 'SWAP', status: 'FAILED' });
    expect(await eth.balanceOf('USDC', child.address)).toBe(50n * USDC);
    expect(await eth.balanceOf('USDT', dest)).toBe(0n);
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM outbound_txs WHERE owner_id = ${s.id}`.execute(h.database.db);
    expect(Number(rows[0]!.n)).toBe(0);
  });

  it('a rule saved with the zero address as destination (before that was refused) fails its settlement and moves nothing', async () => {
    const child = await newAddress({ disableAutoSweep: true });
    const saved = await addressRule(child.id, rule({ to: freshAddress() }));
    const zero = `0x${'0'.repeat(40)}`;
    // As a rule written by an older version stands in the table: the API refuses it now.
    await sql`UPDATE auto_settlement_rules SET destination = jsonb_set(destination, '{address}', to_jsonb(${zero}::text))
               WHERE id = ${saved.id}`.execute(h.database.db);
    const receipt = await eth.sendToken('USDC', child.address, '7');
    await drain();
    const s = await finished(await depositId(receipt.transactionHash));
    expect(s.status).toBe('failed');
    expect(s.error).toMatch(/zero address/);
    expect(await eth.balanceOf('USDC', child.address)).toBe(7n * USDC);
    expect(await eth.balanceOf('USDC', zero)).toBe(0n);
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM outbound_txs WHERE owner_id = ${s.id}`.execute(h.database.db);
    expect(Number(rows[0]!.n)).toBe(0);
  });

  it('a swap from a child address (no sweep) tops up gas, approves, swaps and settles', async () => {
    const child = await newAddress({ disableAutoSweep: true });
    const dest = freshAddress();
    await addressRule(child.id, rule({ to: dest, asset: 'USDT', slippage: '0.5', order: 'NO_SLIPPAGE' }));
    const receipt = await eth.sendToken('USDC', child.address, '40');
    await drain();
    const s = await finished(await depositId(receipt.transactionHash));
    expect(s).toMatchObject({ status: 'success', stage: 'done' });
    const swap = await transaction(s.swap_transaction_id!);
    expect(swap.senderAddress.toLowerCase()).toBe(child.address.toLowerCase());
    expect(swap.metadata.swap.amountOutMin).toBe(swap.metadata.swap.quote);
    expect(await eth.balanceOf('USDC', child.address)).toBe(0n);
    expect(await eth.balanceOf('USDT', child.address)).toBe(0n);
    expect(await eth.balanceOf('USDT', dest)).toBe(BigInt(swap.metadata.swap.quote));
  });

  it('a swap the pool moved away from reverts on chain: swap.failed, auto-settlement.failed, the input stays with the sender', async () => {
    const dest = freshAddress();
    const created = await h.api('POST', `${base()}/auto-settlements/rules`, {
      body: rule({ to: dest, asset: 'USDT', order: 'NO_SLIPPAGE' }),
    });
    expect(created.status).toBe(200);
    await h.stopWorker();
    try {
      // Straight to the master: settled from there, no sweep.
      const masterBefore = await eth.balanceOf('USDC', wallet().address);
      const receipt = await eth.sendToken('USDC', wallet().address, '30');
      await drain();
      const deposit = await depositId(receipt.transactionHash);
      // The worker is stopped: do the job the confirmation queued (auto_settle_deposits) here.
      await h.services.autoSettlements.takeConfirmed([deposit]);
      const [queued] = await settlementOf(deposit);
      // Planned at the current price (exact quote as the bound), queued in the pipeline, not yet sent...
      await h.services.autoSettlements.executor.run(queued!.id);
      expect((await settlementOf(deposit))[0]!.stage).toBe('sending');
      // ...when someone else trades the same way first.
      await movePool(eth);
      await h.startWorker();
      const s = await finished(deposit);
      expect(s.status).toBe('failed');
      const swap = await transaction(s.swap_transaction_id!);
      expect(swap).toMatchObject({ type: 'SWAP', status: 'FAILED', confirmed: true });
      expect((await eth.pub.getTransactionReceipt({ hash: swap.hash })).status).toBe('reverted');
      expect((await eventOf(swap.id, 'swap.failed')).data.reason).toMatch(/reverted/);
      expect((await eventOf(s.settle_transaction_id!, 'auto-settlement.failed')).data).toMatchObject({ status: 'FAILED' });
      expect(await eth.balanceOf('USDC', wallet().address)).toBe(masterBefore + 30n * USDC);
      expect(await eth.balanceOf('USDT', dest)).toBe(0n);
    } finally {
      await h.startWorker();
      await h.api('DELETE', `${base()}/auto-settlements/rules/${created.body.data.id}`);
    }
  });
});

describe('settlements and withdrawals from the same address', () => {
  it('a withdrawal accepted while a settlement from the master waits: the settlement is refused before anything is sent, the withdrawal is paid', async () => {
    const master = wallet().address;
    const dest = freshAddress();
    const created = await h.api('POST', `${base()}/auto-settlements/rules`, { body: rule({ to: dest }) });
    expect(created.status).toBe(200);
    const usdc = h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDC')!;
    try {
      await h.stopWorker(); // the settlement's job waits until the withdrawal is accepted
      const receipt = await eth.sendToken('USDC', master, '5'); // straight to the master
      await drain();
      const deposit = await depositId(receipt.transactionHash);
      // The worker is stopped: do the job the confirmation queued (auto_settle_deposits) here.
      await h.services.autoSettlements.takeConfirmed([deposit]);
      expect(await settlementOf(deposit)).toMatchObject([{ status: 'pending', stage: 'queued' }]);
      // All the master holds, the deposit included.
      const all = await eth.balanceOf('USDC', master);
      const to = freshAddress();
      const res = await h.api('POST', `${base()}/withdraw`, { body: { assetId: usdc.id, address: to, amount: formatAmount(all, 6) } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      // The settlement's job, here while the withdrawal waits unsent: a started worker could mine
      // the withdrawal first (it did, under load), and the settlement's gas estimate would then refuse it instead.
      const [queued] = await settlementOf(deposit);
      await h.services.autoSettlements.executor.run(queued!.id);
      await h.startWorker();

      await refusedWhilePaid(deposit, res.body.data.id as string, /master address cannot pay this settlement now: Insufficient USDC/);
      expect(await eth.balanceOf('USDC', to)).toBe(all);
      expect(await eth.balanceOf('USDC', dest)).toBe(0n);
    } finally {
      await h.startWorker();
      await h.api('DELETE', `${base()}/auto-settlements/rules/${created.body.data.id}`);
    }
  });

  it('a withdrawal from a child accepted while a settlement from that child waits: the settlement is refused before anything is sent, the withdrawal is paid', async () => {
    const child = await newAddress({ disableAutoSweep: true });
    const dest = freshAddress();
    await addressRule(child.id, rule({ to: dest }));
    const usdc = h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDC')!;
    // Gas of its own for the withdrawal, set outright (a native transfer would be a deposit).
    await eth.rpc('anvil_setBalance', [child.address, '0xde0b6b3a7640000']);
    const masterEth = await eth.pub.getBalance({ address: wallet().address as `0x${string}` });
    try {
      await h.stopWorker(); // the settlement's job waits until the withdrawal is accepted
      const receipt = await eth.sendToken('USDC', child.address, '5');
      await drain();
      const deposit = await depositId(receipt.transactionHash);
      // The worker is stopped: do the job the confirmation queued (auto_settle_deposits) here.
      await h.services.autoSettlements.takeConfirmed([deposit]);
      expect(await settlementOf(deposit)).toMatchObject([{ status: 'pending', stage: 'queued' }]);
      const to = freshAddress();
      const res = await h.api('POST', `${base()}/addresses/${child.id}/withdraw`, { body: { assetId: usdc.id, address: to, amount: '5' } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      // The settlement's job, here while the withdrawal waits unsent: a started worker could mine
      // the withdrawal first, and the settlement's gas estimate would then refuse it instead.
      const [queued] = await settlementOf(deposit);
      await h.services.autoSettlements.executor.run(queued!.id);
      await h.startWorker();

      const { settle, paid } = await refusedWhilePaid(
        deposit,
        res.body.data.id as string,
        /sending address cannot pay this settlement now: Insufficient USDC/,
      );
      expect(settle.senderAddress.toLowerCase()).toBe(child.address.toLowerCase());
      expect((await eth.pub.getTransactionReceipt({ hash: paid.hash })).status).toBe('success');
      expect(await eth.balanceOf('USDC', to)).toBe(5n * USDC);
      expect(await eth.balanceOf('USDC', child.address)).toBe(0n);
      expect(await eth.balanceOf('USDC', dest)).toBe(0n);
      expect(await eth.pub.getBalance({ address: wallet().address as `0x${string}` })).toBe(masterEth);
    } finally {
      await h.startWorker();
    }
  });

  it('a settlement in flight holds what its legs may cost the child in gas, as a pending withdrawal holds its own', async () => {
    const child = await newAddress({ disableAutoSweep: true });
    await addressRule(child.id, rule({ to: freshAddress() }));
    await eth.rpc('anvil_setBalance', [child.address, '0xde0b6b3a7640000']);
    const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    const native = chain.assets.find((a) => a.is_native)!;
    const usdc = chain.assets.find((a) => a.symbol === 'USDC')!;
    let deposit = '';
    try {
      await h.stopWorker(); // the legs stay unsent
      const receipt = await eth.sendToken('USDC', child.address, '5');
      await drain();
      deposit = await depositId(receipt.transactionHash);
      await h.services.autoSettlements.takeConfirmed([deposit]);
      const [queued] = await settlementOf(deposit);
      await h.services.autoSettlements.executor.run(queued!.id);
      const [s] = await settlementOf(deposit);
      const { rows } = await sql<{ reserved_fee: string | null }>`
        SELECT reserved_fee FROM transactions WHERE id = ${s!.settle_transaction_id}`.execute(h.database.db);
      const fee = BigInt(rows[0]!.reserved_fee ?? 0);
      expect(fee).toBeGreaterThan(0n);
      // What a withdrawal from the child (and a sweep of its coin) must leave: the legs' fee, besides the 5 USDC.
      const held = await h.services.withdrawals.inFlight(chain, child.address, usdc.id);
      expect(held).toMatchObject({ amount: 5n * USDC, fees: fee, native: fee });
      expect((await h.services.withdrawals.inFlight(chain, child.address, native.id)).native).toBe(fee);
    } finally {
      await h.startWorker();
    }
    expect((await finished(deposit)).status).toBe('success');
  });
});

describe('a settlement from a child whose own payout holds its coin', () => {
  it('tops the child up for what its payout holds: the payout and the settlement are both made', async () => {
    const child = await newAddress({ disableAutoSweep: true });
    const dest = freshAddress();
    await addressRule(child.id, rule({ to: dest }));
    const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    const native = chain.assets.find((a) => a.is_native)!;
    expect((await h.api('PATCH', `${base()}/assets/${native.id}`, { body: { isActive: true } })).status).toBe(200);
    // 0.01 ETH of its own, set outright (a native transfer would be a deposit).
    await eth.rpc('anvil_setBalance', [child.address, '0x2386f26fc10000']);
    const payee = freshAddress();
    let deposit = '';
    let payout = '';
    try {
      await h.stopWorker(); // nothing is sent until both are recorded
      const receipt = await eth.sendToken('USDC', child.address, '5');
      await drain();
      deposit = await depositId(receipt.transactionHash);
      await h.services.autoSettlements.takeConfirmed([deposit]);
      // A payout of all its coin but the payout's own gas (fixed by its gas fields): nothing is free for the legs.
      const fee = 21_000n * 10_000_000_000n;
      const res = await h.api('POST', `${base()}/addresses/${child.id}/withdraw`, {
        body: {
          assetId: native.id,
          address: payee,
          amount: formatAmount(10n ** 16n - fee, 18),
          gasLimit: '21000',
          gasPrice: '10000000000',
        },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      payout = res.body.data.id as string;
      const [queued] = await settlementOf(deposit);
      await h.services.autoSettlements.executor.run(queued!.id);
      expect((await settlementOf(deposit))[0]).toMatchObject({ status: 'pending', error: null });
    } finally {
      await h.startWorker();
    }
    const s = await finished(deposit);
    expect(s.status, s.error ?? '').toBe('success');
    expect(await transaction(payout)).toMatchObject({ status: 'SUCCESS' });
    expect(await eth.balanceOf('USDC', dest)).toBe(5n * USDC);
    expect(await eth.pub.getBalance({ address: payee as `0x${string}` })).toBe(10n ** 16n - 21_000n * 10_000_000_000n);
  });
});

describe('deleting a rule', () => {
  it('while a job holds one of its settlements and updates it twice: both finish, no deadlock, the settlement keeps its copy of the rule', async () => {
    const child = await newAddress({ disableAutoSweep: true });
    const created = await addressRule(child.id, rule({ to: freshAddress() }));
    const receipt = await eth.sendToken('USDC', child.address, '4');
    await drain();
    const s = await finished(await depositId(receipt.transactionHash));

    // A settlement job's shape: the settlement row locked and updated, then updated again
    // (the second update re-checks the rule's key, since the row version is its own).
    const job = new pg.Client({ connectionString: h.databaseUrl });
    await job.connect();
    try {
      await job.query('BEGIN');
      await job.query('UPDATE auto_settlements SET updated_at = now() WHERE id = $1', [s.id]);
      const deleting = h.api('DELETE', `${base()}/addresses/${child.id}/auto-settlements/rules/${created.id}`);
      // The delete is queued behind the job's lock before the job goes on.
      await untilBlocking(job);
      await job.query('UPDATE auto_settlements SET updated_at = now() WHERE id = $1', [s.id]);
      await job.query('COMMIT');
      const res = await deleting;
      expect(res.status).toBe(200);
      expect(res.body.data.id).toBe(created.id);
    } finally {
      await job.end();
    }
    const { rows } = await sql<{ rule_id: string | null; rule: { id: string } }>`
      SELECT rule_id, rule FROM auto_settlements WHERE id = ${s.id}`.execute(h.database.db);
    expect(rows[0]).toMatchObject({ rule_id: null, rule: { id: created.id } });
    expect((await h.api('GET', `${base()}/addresses/${child.id}/auto-settlements/rules/${created.id}`)).status).toBe(404);
  });
});

describe('auto-settlements and API swaps from the same address', () => {
  const usdcId = () => h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDC')!.id;
  const usdtId = () => h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDT')!.id;
  /**
   * USDC at the master for an API swap: 10, below the tests' rule minimum (15), so a rule made
   * before this deposit's settlement job runs still leaves it alone.
   */
  async function fundMaster(amount: string) {
    const receipt = await eth.sendToken('USDC', wallet().address, amount);
    await drain();
    const id = await depositId(receipt.transactionHash);
    await eventually(
      () => transaction(id),
      (t) => t.status === 'SUCCESS',
      30_000,
    );
  }
  async function apiSwap(amount: string) {
    // Wide bounds: earlier tests of this file move the pool away from par.
    const body = { fromAssetId: usdcId(), toAssetId: usdtId(), amount, slippageTolerance: '20' };
    const q = await h.api('POST', `${base()}/swaps/quote`, { body });
    expect(q.status, JSON.stringify(q.body)).toBe(200);
    return q.body.data.quoteId as string;
  }
  const masterSender = () => ({
    chainId: h.services.catalogue.findChain('devnet-eth', 'testnet')!.id,
    walletId: wallet().id,
    fromIndex: 0,
    assetInId: usdcId(),
  });
  const execute = (quoteId: string) => h.api('POST', `${base()}/swaps/execute`, { body: { quoteId } });
  async function rows() {
    const { rows } = await sql<{ t: string; s: string; o: string }>`
      SELECT (SELECT count(*) FROM transactions) AS t, (SELECT count(*) FROM swaps) AS s, (SELECT count(*) FROM outbound_txs) AS o`.execute(
      h.database.db,
    );
    return rows[0];
  }
  /** A deposit of `amount` USDC straight to the master, its settlement created (the worker stopped) and run once by hand. */
  async function settlementRunOnce(amount: string) {
    const receipt = await eth.sendToken('USDC', wallet().address, amount);
    await drain();
    const deposit = await depositId(receipt.transactionHash);
    await h.services.autoSettlements.takeConfirmed([deposit]);
    const [queued] = await settlementOf(deposit);
    await h.services.autoSettlements.executor.run(queued!.id);
    return deposit;
  }
  async function settledSwap(id: string) {
    return eventually(
      () => transaction(id),
      (t) => t.status !== 'PENDING',
      30_000,
    );
  }

  /**
   * `body` with a rule of the wallet swapping USDC deposits of 15 or more into USDT for a
   * fresh destination (wide slippage: earlier tests move the pool), 10 USDC at the master for
   * API swaps first; the worker running and the rule gone after.
   */
  async function withSwapRule(body: (dest: string) => Promise<void>) {
    await fundMaster('10');
    const dest = freshAddress();
    const created = await h.api('POST', `${base()}/auto-settlements/rules`, {
      body: rule({ to: dest, asset: 'USDT', slippage: '20', min: '15' }),
    });
    expect(created.status).toBe(200);
    try {
      await body(dest);
    } finally {
      await h.startWorker();
      await h.api('DELETE', `${base()}/auto-settlements/rules/${created.body.data.id}`);
    }
  }

  it("an API swap of the input a settlement from the master is swapping: 409 SWAP_IN_PROGRESS, nothing written; accepted once the settlement's swap is final", async () => {
    await withSwapRule(async (dest) => {
      await h.stopWorker(); // the settlement's legs wait in the pipeline, approve and swap not sent
      const deposit = await settlementRunOnce('20');
      expect((await settlementOf(deposit))[0]).toMatchObject({ status: 'pending', stage: 'sending' });
      const quoteId = await apiSwap('5');
      const before = await rows();
      const refused = await execute(quoteId);
      expect([refused.status, refused.body.error]).toEqual([409, 'SWAP_IN_PROGRESS']);
      expect(refused.body.message).toMatch(/is in flight/); // found under the lock, not a read gone stale three times
      expect(await rows()).toEqual(before);

      const { rows: at } = await sql<{ t: Date }>`SELECT statement_timestamp() AS t`.execute(h.database.db);
      await h.startWorker();
      expect((await finished(deposit)).status).toBe('success');
      // An API swap that read the allowance while this settlement swapped and takes its lock
      // now would see the settlement moved, though it has left 'sending' since.
      expect(await swapStore.swapsMovedSince(h.database.db, masterSender(), at[0]!.t)).toBe(true);
      const usdtBefore = await eth.balanceOf('USDT', wallet().address);
      const again = await execute(await apiSwap('5'));
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      const done = await settledSwap(again.body.data.id);
      expect(done.status).toBe('SUCCESS');
      expect(formatAmount((await eth.balanceOf('USDT', wallet().address)) - usdtBefore, 6)).toBe(done.toAmount);
      expect(await eth.balanceOf('USDT', dest)).toBeGreaterThan(16n * USDC);
    });
  });

  it('a settlement from the master swapping the input of an API swap in flight waits for it, then swaps: neither reverts', async () => {
    await withSwapRule(async (dest) => {
      await h.stopWorker();
      const accepted = await execute(await apiSwap('5'));
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      const deposit = await settlementRunOnce('20');
      // Not planned: it would read the router allowance the API swap's approve and pull are about to move.
      expect((await settlementOf(deposit))[0]).toMatchObject({ status: 'pending', stage: 'queued' });

      await h.startWorker();
      const api = await settledSwap(accepted.body.data.id);
      expect(api.status).toBe('SUCCESS');
      const s = await finished(deposit);
      expect(s.status).toBe('success');
      const settlementSwap = await transaction(s.swap_transaction_id!);
      expect(settlementSwap.status).toBe('SUCCESS');
      expect(settlementSwap.blockNumber).toBeGreaterThan(api.blockNumber);
      for (const hash of [api.hash, settlementSwap.hash]) {
        expect((await eth.pub.getTransactionReceipt({ hash })).status).toBe('success');
      }
      expect(await eth.balanceOf('USDT', dest)).toBeGreaterThan(16n * USDC);

      // What a settlement weighs of an API swap by its stage: one at 'swapped' has moved all
      // it will on chain (its output is read next, and a failing read must not hold the
      // address's settlements); at 'sending' its approve or swap may still move the allowance.
      const weighed = (stage: string) =>
        h.database.db
          .transaction()
          .execute(async (tx) => {
            await sql`UPDATE swaps SET status = 'pending', stage = ${stage} WHERE id = ${api.id}`.execute(tx);
            throw new Rollback(await swapStore.apiSwapsOf(tx, masterSender(), null));
          })
          .catch((e: unknown) => (e as Rollback).seen);
      expect(await weighed('swapped')).toEqual({ pending: false, moved: false });
      expect(await weighed('sending')).toEqual({ pending: true, moved: false });
    });
  });
});

class Rollback extends Error {
  constructor(readonly seen: { pending: boolean; moved: boolean }) {
    super('rolled back');
  }
}
