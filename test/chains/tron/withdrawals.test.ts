/**
 * Withdrawals on Tron beyond the single master one, through HTTP against the java-tron
 * stand-in: a batch (one recipient not yet activated: the activation in the fee estimate and
 * in the recorded fee), from a child address (it pays its own fee; the error when it holds
 * no TRX), an OUT_OF_ENERGY failure (FAILED, fee kept, withdraw.failed with the reason),
 * cancel before broadcast, and a transaction that expired unmined rebuilt and signed once.
 * Every amount is checked on the stand-in, to the sun.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balance, info, newWallet, sendToken, tokenBalance, type Wallet } from '../../../src/devnet/tron/testkit.js';
import { eventually } from '../../support/fixtures.js';
import { events, hex41, outboundRows, settled, startTronWorld, txOf, units, walletApi, type TronWorld } from './world.js';

let w: TronWorld;

beforeAll(async () => {
  w = await startTronWorld('tron-payouts');
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

const trxOf = async (address: string) => BigInt(await balance(w.s, hex41(address)));
const usdtOf = (address: string) => tokenBalance(w.s, w.usdt, address);
const feeOf = async (txid: string) => BigInt((await info(w.s, txid)).fee ?? 0);

/** TRX an outside account gets: enough to burn for its own TRC-20 transfers. */
const OUTSIDE_TRX = 50_000_000n;

/** An activated outside account (it received TRX), holding `usdt` if given. */
async function activated(usdt?: bigint): Promise<Wallet> {
  const x = newWallet();
  await w.s.control.fund(x.address, { trx: OUTSIDE_TRX, ...(usdt ? { tokens: { USDT: usdt } } : {}) });
  await w.s.control.produceBlocks(1);
  return x;
}

describe('batch', () => {
  it('TRX to a new account and USDT to an active one: the activation in the estimate and in the fee, exact balances', async () => {
    const fresh = newWallet();
    const active = await activated();
    const body = {
      assets: [
        { id: w.trxId, amount: '3', address: fresh.address },
        { id: w.usdtId, amount: '4.000001', address: active.address },
      ],
    };
    const estimate = await walletApi(w, 'POST', '/withdraw/network-fee', body);
    expect(estimate.status, JSON.stringify(estimate.body)).toBe(200);
    const [trxFee, usdtFee] = (estimate.body.data.fees as string[]).map(units);
    // Activation (1 TRX + 0.1 TRX) on top of the bandwidth: a quote of a new account.
    expect(trxFee).toBeGreaterThanOrEqual(1_100_000n);
    expect(units(estimate.body.data.totalNetworkFee)).toBe(trxFee! + usdtFee!);

    const trxBefore = await trxOf(w.wallet.address);
    const usdtBefore = await usdtOf(w.wallet.address);
    const res = await walletApi(w, 'POST', '/withdraw', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [a, b] = res.body.data as { id: string }[];
    const [doneA, doneB] = [await settled(w, a!.id), await settled(w, b!.id)];
    expect(doneA).toMatchObject({ status: 'SUCCESS', amount: '3', recipientAddress: fresh.address, senderAddress: w.wallet.address });
    expect(doneB).toMatchObject({ status: 'SUCCESS', amount: '4.000001', recipientAddress: active.address });

    const [feeA, feeB] = [await feeOf(doneA.hash), await feeOf(doneB.hash)];
    // java-tron charges the activation (1 TRX + 0.1 TRX for the bytes) instead of the bandwidth.
    expect(feeA).toBe(1_100_000n);
    expect(units(doneA.fee)).toBe(feeA);
    expect(units(doneB.fee)).toBe(feeB);
    expect(trxFee).toBeGreaterThanOrEqual(feeA);
    expect(usdtFee).toBeGreaterThanOrEqual(feeB);
    expect(await trxOf(fresh.address)).toBe(3_000_000n);
    expect(await usdtOf(active.address)).toBe(4_000_001n);
    expect(await trxOf(w.wallet.address)).toBe(trxBefore - 3_000_000n - feeA - feeB);
    expect(await usdtOf(w.wallet.address)).toBe(usdtBefore - 4_000_001n);
    for (const id of [a!.id, b!.id]) expect((await outboundRows(w, id)).map((r) => r.stage)).toEqual(['mined']);
    await events(w, a!.id, 'withdraw.success');
    await events(w, b!.id, 'withdraw.success');
  });
});

describe('from a child address', () => {
  it('a child holding TRX pays its own fee: TRX to an inactive account, the activation counted, exact balances', async () => {
    const made = await walletApi(w, 'POST', '/addresses', { disableAutoSweep: true });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const child = made.body.data as { id: string; address: string };
    await w.s.control.fund(child.address, { trx: 5_000_000 });
    await w.s.control.produceBlocks(1);
    const to = newWallet();
    const masterBefore = await trxOf(w.wallet.address);
    const body = { assetId: w.trxId, address: to.address, amount: '2.5' };
    const estimate = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw/network-fee`, body);
    expect(estimate.status, JSON.stringify(estimate.body)).toBe(200);
    expect(units(estimate.body.data.nativeBalance)).toBe(5_000_000n);
    expect(units(estimate.body.data.networkFee)).toBeGreaterThanOrEqual(1_100_000n);

    const res = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const done = await settled(w, res.body.data.id);
    expect(done).toMatchObject({ status: 'SUCCESS', senderAddress: child.address, recipientAddress: to.address });
    const fee = await feeOf(done.hash);
    expect(fee).toBe(1_100_000n);
    expect(units(done.fee)).toBe(fee);
    expect(await trxOf(to.address)).toBe(2_500_000n);
    expect(await trxOf(child.address)).toBe(5_000_000n - 2_500_000n - fee);
    expect(await trxOf(w.wallet.address)).toBe(masterBefore);
  });

  it('a child holding USDT but no TRX: a 422 naming the missing TRX, nothing written, nothing sent', async () => {
    const made = await walletApi(w, 'POST', '/addresses', { disableAutoSweep: true });
    const child = made.body.data as { id: string; address: string };
    const payer = await activated(10_000_000n);
    expect((await sendToken(w.s, payer, w.usdt, child.address, 3_000_000n)).result).toBe(true);
    await w.s.control.produceBlocks(1);
    const before = (await walletApi(w, 'GET', '/transactions?limit=100')).body.data.length;
    const res = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw`, { assetId: w.usdtId, address: payer.address, amount: '1' });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error).toBe('INSUFFICIENT_BALANCE');
    expect(res.body.message).toMatch(/TRX/);
    expect(res.body.message).not.toMatch(/wei|gas/i);
    expect((await walletApi(w, 'GET', '/transactions?limit=100')).body.data.length).toBe(before);
    expect(await usdtOf(child.address)).toBe(3_000_000n);
  });
});

/** A fee limit (sun) above the estimate with a holder as recipient, below the call's need to a non-holder. */
const TIGHT_LIMIT = 2_000_000n;

describe('OUT_OF_ENERGY', () => {
  it('a fee limit that the call outgrows: FAILED, the fee limit burned and kept, withdraw.failed with the reason, tokens unmoved', async () => {
    // The recipient holds USDT when the withdrawal is accepted: the node estimates 19,049
    // energy (/wallet/estimateenergy; the call uses 12,721), so a fee limit of 2 TRX fits the
    // estimate; it empties its balance before the transfer runs, so the call needs the
    // zero-to-nonzero write (29,821 energy, 2.98 TRX) and runs out of energy.
    const to = await activated(1_000_000n);
    const estimate = await walletApi(w, 'POST', '/withdraw/network-fee', { assetId: w.usdtId, address: to.address, amount: '1' });
    expect(estimate.status).toBe(200);
    await w.h.stopWorker();
    let id: string;
    try {
      const tight = await walletApi(w, 'POST', '/withdraw', {
        assetId: w.usdtId,
        address: to.address,
        amount: '1',
        gasLimit: String(TIGHT_LIMIT),
      });
      expect(tight.status, JSON.stringify(tight.body)).toBe(200);
      id = tight.body.data.id;
      const away = newWallet();
      expect((await sendToken(w.s, to, w.usdt, away.address, 1_000_000n)).result).toBe(true);
      await w.s.control.produceBlocks(1);
      expect(await usdtOf(to.address)).toBe(0n);
    } finally {
      await w.h.startWorker();
    }
    const trxBefore = await trxOf(w.wallet.address);
    const usdtBefore = await usdtOf(w.wallet.address);
    const done = await settled(w, id!);
    expect(done).toMatchObject({ status: 'FAILED' });
    const tx = await info(w.s, done.hash);
    expect(tx.receipt.result).toBe('OUT_OF_ENERGY');
    const fee = BigInt(tx.fee);
    expect(BigInt(tx.receipt.energy_fee)).toBe(TIGHT_LIMIT); // the whole fee limit
    expect(units(done.fee)).toBe(fee);
    expect(done.reason).toMatch(/OUT_OF_ENERGY/);
    expect(await usdtOf(to.address)).toBe(0n);
    expect(await usdtOf(w.wallet.address)).toBe(usdtBefore);
    expect(await trxOf(w.wallet.address)).toBe(trxBefore - fee);
    const [event] = await events(w, id!, 'withdraw.failed');
    expect(event!.data).toMatchObject({ status: 'FAILED', hash: done.hash });
    expect(event!.data.reason).toMatch(/OUT_OF_ENERGY/);

    // Retried once its block is final: a new transaction whose fee limit fits the call now.
    await w.s.control.solidify();
    const retried = await eventually(
      () => walletApi(w, 'POST', '/transactions/retry', { id: id! }),
      (r) => r.status !== 409 || r.body.error !== 'NOT_FINAL',
      20_000,
    );
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    const again = await settled(w, id!);
    expect(again).toMatchObject({ status: 'SUCCESS' });
    expect(again.hash).not.toBe(done.hash);
    const retryFee = await feeOf(again.hash);
    expect(await usdtOf(to.address)).toBe(1_000_000n);
    expect(await usdtOf(w.wallet.address)).toBe(usdtBefore - 1_000_000n);
    expect(await trxOf(w.wallet.address)).toBe(trxBefore - fee - retryFee);
    expect((await outboundRows(w, id!)).map((r) => r.stage)).toEqual(['failed', 'mined']);
  });
});

describe('cancel and retry', () => {
  it('cancel before broadcast: CANCELLED at once, withdraw.failed, nothing sent; a second cancel is 409', async () => {
    const to = await activated();
    const before = await trxOf(w.wallet.address);
    await w.h.stopWorker();
    let id: string;
    try {
      const res = await walletApi(w, 'POST', '/withdraw', { assetId: w.trxId, address: to.address, amount: '1' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      id = res.body.data.id;
      const early = await walletApi(w, 'POST', '/transactions/retry', { id });
      expect(early.status).toBe(409);
      expect(early.body.error).toBe('NOT_YET_SENT');
      const cancelled = await walletApi(w, 'POST', '/transactions/cancel', { id });
      expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
      expect(cancelled.body.message).toBe('Transaction cancelled successfully');
      expect(cancelled.body.data).toMatchObject({ id, status: 'CANCELLED' });
      const again = await walletApi(w, 'POST', '/transactions/cancel', { id });
      expect(again.status).toBe(409);
      expect(again.body.error).toBe('ALREADY_CANCELLED');
    } finally {
      await w.h.startWorker();
    }
    const [event] = await events(w, id!, 'withdraw.failed');
    expect(event!.data.status).toBe('CANCELLED');
    await w.s.control.produceBlocks(2);
    expect(await trxOf(to.address)).toBe(OUTSIDE_TRX);
    expect(await trxOf(w.wallet.address)).toBe(before);
    expect((await outboundRows(w, id!)).map((r) => [r.stage, r.hash])).toEqual([['replaced', null]]);
  });

  it('expired unmined: cancel and retry answer 409 meanwhile; rebuilt and signed once, one withdraw.success, paid once', async () => {
    const to = await activated();
    const before = await trxOf(w.wallet.address);
    w.s.control.pause();
    let id: string;
    let first: { hash: string | null } | undefined;
    try {
      const res = await walletApi(w, 'POST', '/withdraw', { assetId: w.trxId, address: to.address, amount: '1.5' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      id = res.body.data.id;
      [first] = await eventually(
        () => outboundRows(w, id),
        (rows) => rows[0]?.stage === 'broadcast',
        20_000,
      );
      const cancel = await walletApi(w, 'POST', '/transactions/cancel', { id });
      expect(cancel.status).toBe(409);
      expect(cancel.body.error).toBe('NOT_CANCELLABLE');
      const retry = await walletApi(w, 'POST', '/transactions/retry', { id });
      expect(retry.status).toBe(409);
      expect(retry.body.error).toBe('NOT_RETRYABLE');
      // Past its expiration (60 s after the head it was built on): the next block drops it,
      // and once the solidified head is past the expiration too, the pipeline rebuilds it.
      await w.s.control.advanceTime(61_000);
      await w.s.control.solidify();
      expect((await info(w.s, first!.hash!)).blockNumber).toBeUndefined();
      await eventually(
        () => outboundRows(w, id),
        (rows) => rows.length === 2 && rows[1]!.stage === 'broadcast',
        20_000,
      );
    } finally {
      w.s.control.resume();
    }
    const done = await settled(w, id!);
    const rows = await outboundRows(w, id!);
    expect(rows.map((r) => r.stage)).toEqual(['replaced', 'mined']);
    expect(rows[0]!.hash).toBe(first!.hash);
    expect(done).toMatchObject({ status: 'SUCCESS', hash: rows[1]!.hash, amount: '1.5' });
    const fee = await feeOf(done.hash);
    expect(units(done.fee)).toBe(fee);
    expect(await trxOf(to.address)).toBe(OUTSIDE_TRX + 1_500_000n);
    expect(await trxOf(w.wallet.address)).toBe(before - 1_500_000n - fee);
    const successes = await events(w, id!, 'withdraw.success');
    await new Promise((r) => setTimeout(r, 500));
    expect(w.receiver.requests.filter((r) => r.body.includes(id!) && r.body.includes('withdraw.success'))).toHaveLength(successes.length);
    expect(successes).toHaveLength(1);
    // After it landed, a cancel and a retry are 409 as on any mined withdrawal.
    expect((await walletApi(w, 'POST', '/transactions/cancel', { id: id! })).body.error).toBe('ALREADY_MINED');
    expect((await walletApi(w, 'POST', '/transactions/retry', { id: id! })).body.error).toBe('ALREADY_MINED');
    expect((await txOf(w, id!)).status).toBe('SUCCESS');
  });
});
