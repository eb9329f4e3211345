/**
 * Withdrawal happy paths on both devnets (6 and 18 decimals): master and child, token and
 * native, single and batch, sign-only and network fee. Balances are checked on chain to
 * the base unit, events as a receiver verifies them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeFunctionData, erc20Abi, parseEther, parseTransaction, parseUnits, type Address, type Hex } from 'viem';
import {
  assetOf,
  chainOf,
  enableNative,
  eventsOf,
  getTx,
  newChild,
  outboundOf,
  randomAddress,
  receiptOf,
  settledTx,
  startWorld,
  waitForEvent,
  withdraw,
  type TestChain,
  type World,
} from './world.js';

let w: World;
let eth: TestChain;
let bsc: TestChain;
const ETH = 'devnet-eth';
const BSC = 'devnet-bsc';

beforeAll(async () => {
  w = await startWorld();
  eth = chainOf(w.h, ETH);
  bsc = chainOf(w.h, BSC);
});
afterAll(async () => {
  await w?.stop();
});

const master = (slug: string) => w.h.wallets[slug]!.address as Address;
const gasCost = (t: Record<string, any>) => BigInt(t.gasUsed) * BigInt(t.gasPrice);

describe('broadcast withdrawals', () => {
  it('master, 6-decimal token: PENDING WITHDRAW, then SUCCESS with receipt figures, exact balances, withdraw.success', async () => {
    await eth.sendToken('USDC', master(ETH), '100');
    const usdc = assetOf(w.h, ETH, 'USDC');
    const to = randomAddress();
    const [tokens0, native0] = [await eth.balanceOf('USDC', master(ETH)), await eth.pub.getBalance({ address: master(ETH) })];

    const res = await withdraw(w.h, ETH, { assetId: usdc.id, address: to, amount: '12.345678', note: 'payout 1', metadata: { order: 7 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ statusCode: 200, message: expect.any(String) });
    const pending = res.body.data;
    expect(pending).toMatchObject({
      type: 'WITHDRAW',
      status: 'PENDING',
      confirmed: false,
      amount: '12.345678',
      currency: 'USDC',
      senderAddress: master(ETH),
      recipientAddress: to,
      tokenAddress: usdc.address,
      note: 'payout 1',
      metadata: { order: 7 },
      network: 'testnet',
      asset: { id: usdc.id, symbol: 'USDC', decimals: 6 },
      wallet: { id: w.h.wallets[ETH]!.id },
    });

    const done = await settledTx(w.h, ETH, pending.id);
    expect(done).toMatchObject({ status: 'SUCCESS', confirmed: true, id: pending.id, reference: pending.reference });
    const receipt = await receiptOf(eth, done.hash);
    expect(receipt.status).toBe('success');
    expect(done).toMatchObject({
      blockNumber: Number(receipt.blockNumber),
      blockHash: receipt.blockHash,
      gasUsed: receipt.gasUsed.toString(),
      gasPrice: receipt.effectiveGasPrice.toString(),
    });
    const fee = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(parseEther(done.gasFee)).toBe(fee);
    expect(parseEther(done.fee)).toBe(fee);

    expect(await eth.balanceOf('USDC', to)).toBe(12_345_678n);
    expect(await eth.balanceOf('USDC', master(ETH))).toBe(tokens0 - 12_345_678n);
    expect(await eth.pub.getBalance({ address: master(ETH) })).toBe(native0 - fee);

    const events = await waitForEvent(w, ETH, pending.id, 'withdraw.success');
    const success = events.filter((e) => e.event === 'withdraw.success');
    expect(success).toHaveLength(1);
    expect(success[0]!.data).toMatchObject({ status: 'SUCCESS', hash: done.hash, amount: '12.345678', type: 'WITHDRAW' });
  });

  it('child address, 18-decimal token: the child pays its own gas; amounts exact to 1 wei', async () => {
    const child = await newChild(w.h, BSC);
    await bsc.sendToken('USDT', child.address, '5');
    await bsc.sendNative(child.address, '1');
    const usdt = assetOf(w.h, BSC, 'USDT');
    const to = randomAddress();
    const res = await withdraw(w.h, BSC, { assetId: usdt.id, address: to, amount: '1.000000000000000001' }, { addressId: child.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'PENDING', senderAddress: child.address, address: { id: child.id } });

    const done = await settledTx(w.h, BSC, res.body.data.id);
    expect(done.status).toBe('SUCCESS');
    expect(await bsc.balanceOf('USDT', to)).toBe(parseUnits('1.000000000000000001', 18));
    expect(await bsc.balanceOf('USDT', child.address)).toBe(parseUnits('5', 18) - parseUnits('1.000000000000000001', 18));
    expect(await bsc.pub.getBalance({ address: child.address })).toBe(parseEther('1') - gasCost(done));
    await waitForEvent(w, BSC, done.id, 'withdraw.success');
  });

  it('native coin from the master: recipient gets the amount exactly, the master pays amount + fee', async () => {
    const nativeId = await enableNative(w.h, BSC);
    const to = randomAddress();
    const before = await bsc.pub.getBalance({ address: master(BSC) });
    const res = await withdraw(w.h, BSC, { assetId: nativeId, address: to, amount: '0.5' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ currency: 'BNB', tokenAddress: null, amount: '0.5' });
    const done = await settledTx(w.h, BSC, res.body.data.id);
    expect(done.status).toBe('SUCCESS');
    expect(await bsc.pub.getBalance({ address: to })).toBe(parseEther('0.5'));
    expect(await bsc.pub.getBalance({ address: master(BSC) })).toBe(before - parseEther('0.5') - gasCost(done));
  });

  it('native coin from a child address: exact to the wei on both sides', async () => {
    const nativeId = await enableNative(w.h, ETH);
    const child = await newChild(w.h, ETH);
    await eth.sendNative(child.address, '1');
    const to = randomAddress();
    const res = await withdraw(w.h, ETH, { assetId: nativeId, address: to, amount: '0.400000000000000001' }, { addressId: child.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const done = await settledTx(w.h, ETH, res.body.data.id);
    expect(done.status).toBe('SUCCESS');
    expect(await eth.pub.getBalance({ address: to })).toBe(400_000_000_000_000_001n);
    expect(await eth.pub.getBalance({ address: child.address })).toBe(parseEther('1') - 400_000_000_000_000_001n - gasCost(done));
    await waitForEvent(w, ETH, done.id, 'withdraw.success');
  });

  it('batch: data is an array in request order, every item is its own transaction and is paid exactly', async () => {
    const nativeId = await enableNative(w.h, ETH);
    await eth.sendToken('USDT', master(ETH), '50');
    const [usdc, usdt] = [assetOf(w.h, ETH, 'USDC'), assetOf(w.h, ETH, 'USDT')];
    const to = [randomAddress(), randomAddress(), randomAddress()];
    const items = [
      { id: usdt.id, amount: '3.5', address: to[0], reference: `b-${Date.now()}-0`, note: 'first' },
      { id: nativeId, amount: '0.001', address: to[1], metadata: { k: 'v' } },
      { id: usdc.id, amount: '0.000001', address: to[2] },
    ];
    const res = await withdraw(w.h, ETH, { assets: items, note: 'batch note' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const data = res.body.data as Record<string, any>[];
    expect(data.map((t) => [t.currency, t.amount, t.recipientAddress])).toEqual([
      ['USDT', '3.5', to[0]],
      ['ETH', '0.001', to[1]],
      ['USDC', '0.000001', to[2]],
    ]);
    expect(data[0]).toMatchObject({ reference: items[0]!.reference, note: 'first' });
    expect(data[1]).toMatchObject({ note: 'batch note', metadata: { k: 'v' } });
    expect(new Set(data.map((t) => t.id)).size).toBe(3);

    const done = await Promise.all(data.map((t) => settledTx(w.h, ETH, t.id)));
    expect(done.map((t) => t.status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
    expect(await eth.balanceOf('USDT', to[0]!)).toBe(3_500_000n);
    expect(await eth.pub.getBalance({ address: to[1]! })).toBe(parseEther('0.001'));
    expect(await eth.balanceOf('USDC', to[2]!)).toBe(1n);
    const nonces = await Promise.all(data.map(async (t) => BigInt((await outboundOf(w.h, t.id))[0]!.nonce)));
    expect(nonces[1]).toBe(nonces[0]! + 1n);
    expect(nonces[2]).toBe(nonces[1]! + 1n);
  });
});

describe('sign-only withdrawals', () => {
  it('returns SUCCESS SIGNED with a raw transaction a node accepts; nothing is broadcast by us; signed.success', async () => {
    const child = await newChild(w.h, ETH);
    await eth.sendToken('USDC', child.address, '10');
    await eth.sendNative(child.address, '0.1');
    const usdc = assetOf(w.h, ETH, 'USDC');
    const to = randomAddress();
    const res = await withdraw(w.h, ETH, { assetId: usdc.id, address: to, amount: '2.5' }, { addressId: child.id, sign: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const t = res.body.data;
    expect(t).toMatchObject({ type: 'SIGNED', status: 'SUCCESS', confirmed: true, amount: '2.5', senderAddress: child.address });
    expect(t.signedTransaction).toMatch(/^0x02[0-9a-f]+$/);
    const parsed = parseTransaction(t.signedTransaction as Hex);
    expect(parsed.to?.toLowerCase()).toBe(usdc.address.toLowerCase());
    expect(parsed.nonce).toBe(0);
    expect(parsed.chainId).toBe(eth.config.chainId);
    expect(decodeFunctionData({ abi: erc20Abi, data: parsed.data! })).toEqual({ functionName: 'transfer', args: [to, 2_500_000n] });
    expect(await outboundOf(w.h, t.id)).toHaveLength(0);
    expect(await eth.pub.getTransactionCount({ address: child.address })).toBe(0);
    await waitForEvent(w, ETH, t.id, 'signed.success');

    // Whoever holds it can broadcast it: the node accepts it and it pays.
    const receipt = await eth.sendRaw(t.signedTransaction as Hex);
    expect(receipt.status).toBe('success');
    expect(receipt.transactionHash).toBe(t.hash);
    expect(await eth.balanceOf('USDC', to)).toBe(2_500_000n);
  });

  it('a signed batch takes consecutive nonces after the ones the pipeline and the chain have used', async () => {
    const child = await newChild(w.h, BSC);
    await bsc.sendToken('USDC', child.address, '10');
    await bsc.sendNative(child.address, '0.1');
    const usdc = assetOf(w.h, BSC, 'USDC');
    const sent = await withdraw(w.h, BSC, { assetId: usdc.id, address: randomAddress(), amount: '1' }, { addressId: child.id });
    expect(sent.status).toBe(200);
    await settledTx(w.h, BSC, sent.body.data.id, 'SUCCESS');
    const res = await withdraw(
      w.h,
      BSC,
      { assets: [1, 2].map((n) => ({ id: usdc.id, amount: String(n), address: randomAddress() })) },
      { addressId: child.id, sign: true },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.map((t: Record<string, any>) => parseTransaction(t.signedTransaction).nonce)).toEqual([1, 2]);
    for (const t of res.body.data) expect((await bsc.sendRaw(t.signedTransaction)).status).toBe('success');
  });
});

describe('network fee', () => {
  it('estimates the fee of the same body, with the sender native balance, on the wallet and on an address', async () => {
    const usdc = assetOf(w.h, ETH, 'USDC');
    const body = { assetId: usdc.id, address: randomAddress(), amount: '1' };
    const res = await withdraw(w.h, ETH, body, { fee: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({
      networkFee: expect.stringMatching(/^0\.\d+$/),
      nativeBalance: expect.stringMatching(/^\d+(\.\d+)?$/),
      nativeBalanceInUSD: null,
      balance: res.body.data.nativeBalance,
      fee: res.body.data.networkFee,
    });
    expect(parseEther(res.body.data.balance)).toBe(await eth.pub.getBalance({ address: master(ETH) }));

    const child = await newChild(w.h, ETH);
    await eth.sendToken('USDC', child.address, '3');
    const onChild = await withdraw(w.h, ETH, body, { fee: true, addressId: child.id });
    expect(onChild.status, JSON.stringify(onChild.body)).toBe(200);
    expect(onChild.body.data.balance).toBe('0');
    const batch = await withdraw(
      w.h,
      ETH,
      { assets: [1, 2].map(() => ({ id: usdc.id, amount: '1', address: randomAddress() })) },
      { fee: true },
    );
    expect(parseEther(batch.body.data.fee)).toBeGreaterThan(parseEther(res.body.data.fee));
  });
});

describe('reference and Idempotency-Key', () => {
  it('a reused reference returns the original transaction, once paid; a different payment under it is a 409', async () => {
    const usdc = assetOf(w.h, ETH, 'USDC');
    const body = { assetId: usdc.id, address: randomAddress(), amount: '0.25', reference: `ref-${Date.now()}` };
    const first = await withdraw(w.h, ETH, body);
    expect(first.status).toBe(200);
    const again = await withdraw(w.h, ETH, body);
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(await outboundOf(w.h, first.body.data.id)).toHaveLength(1);
    const other = await withdraw(w.h, ETH, { ...body, amount: '0.26' });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('REFERENCE_IN_USE');
    await settledTx(w.h, ETH, first.body.data.id, 'SUCCESS');
    expect(await eth.balanceOf('USDC', body.address)).toBe(250_000n);
  });

  it('a reused reference is answered with the original even once its funds are spent', async () => {
    const child = await newChild(w.h, ETH);
    await eth.sendToken('USDC', child.address, '2');
    await eth.sendNative(child.address, '0.01');
    const usdc = assetOf(w.h, ETH, 'USDC');
    const body = { assetId: usdc.id, address: randomAddress(), amount: '2', reference: `all-${Date.now()}` };
    const first = await withdraw(w.h, ETH, body, { addressId: child.id });
    expect(first.status).toBe(200);
    await settledTx(w.h, ETH, first.body.data.id, 'SUCCESS');
    expect(await eth.balanceOf('USDC', child.address)).toBe(0n);
    const again = await withdraw(w.h, ETH, body, { addressId: child.id });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.data).toMatchObject({ id: first.body.data.id, status: 'SUCCESS' });
    const signAgain = await withdraw(w.h, ETH, body, { addressId: child.id, sign: true });
    expect(signAgain.status).toBe(409); // the reference names a broadcast withdrawal, not a signed one
  });

  it('a reused reference is answered with the original after its destination left the whitelist (it was paid)', async () => {
    const wallet = w.h.wallets[ETH]!;
    const usdc = assetOf(w.h, ETH, 'USDC');
    const payee = randomAddress();
    const beneficiary = async (address: string) => {
      const res = await w.h.api('POST', `/v1/wallets/${wallet.id}/beneficiaries`, {
        key: wallet.apiKey,
        body: { name: `Payee ${address.slice(2, 8)}`, address, isWhitelisted: true },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.id as string;
    };
    await eth.sendToken('USDC', master(ETH), '0.2');
    // Two whitelisted: the whitelist stays on once the payee's entry is gone.
    const ids = [await beneficiary(payee), await beneficiary(randomAddress())];
    try {
      const body = { assetId: usdc.id, address: payee, amount: '0.1', reference: `wl-${Date.now()}` };
      const first = await withdraw(w.h, ETH, body);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect((await w.h.api('DELETE', `/v1/wallets/${wallet.id}/beneficiaries/${ids[0]}`, { key: wallet.apiKey })).status).toBe(200);
      // A client retrying after a lost answer learns the payment was made, not that it was refused.
      const again = await withdraw(w.h, ETH, body);
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body.data.id).toBe(first.body.data.id);
      expect(await outboundOf(w.h, first.body.data.id)).toHaveLength(1);
      // A new payment to it is refused, as the whitelist says.
      const fresh = await withdraw(w.h, ETH, { ...body, reference: `wl2-${Date.now()}` });
      expect([fresh.status, fresh.body.error]).toEqual([422, 'NOT_WHITELISTED']);
      await settledTx(w.h, ETH, first.body.data.id, 'SUCCESS');
    } finally {
      for (const id of ids) await w.h.api('DELETE', `/v1/wallets/${wallet.id}/beneficiaries/${id}`, { key: wallet.apiKey });
    }
  });

  it('same key and body: the stored response; same key, other body: 422; keys are per wallet', async () => {
    const usdc = assetOf(w.h, ETH, 'USDC');
    const key = `key-${Date.now()}`;
    const headers = { 'idempotency-key': key };
    const body = { assetId: usdc.id, address: randomAddress(), amount: '0.5' };
    const first = await withdraw(w.h, ETH, body, { headers });
    expect(first.status).toBe(200);
    await settledTx(w.h, ETH, first.body.data.id, 'SUCCESS');
    const again = await withdraw(w.h, ETH, { amount: '0.5', address: body.address, assetId: usdc.id }, { headers });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data); // the response as first given, PENDING
    const other = await withdraw(w.h, ETH, { ...body, amount: '0.6' }, { headers });
    expect(other.status).toBe(422);
    expect(other.body.error).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await eth.balanceOf('USDC', body.address)).toBe(500_000n);

    await bsc.sendToken('USDC', master(BSC), '10');
    const onBsc = await withdraw(w.h, BSC, { assetId: assetOf(w.h, BSC, 'USDC').id, address: randomAddress(), amount: '0.5' }, { headers });
    expect(onBsc.status, JSON.stringify(onBsc.body)).toBe(200);
    expect(onBsc.body.data.id).not.toBe(first.body.data.id);
    expect(eventsOf(w, ETH, first.body.data.id).filter((e) => e.event === 'withdraw.success')).toHaveLength(1);
    expect((await getTx(w.h, ETH, first.body.data.id)).status).toBe('SUCCESS');
  });
});
