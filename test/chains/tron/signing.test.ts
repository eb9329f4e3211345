/**
 * Signing on a Tron chain through HTTP, against the java-tron stand-in: sign-only withdrawals
 * (no nonce, a fresh expiration; the hex /wallet/broadcasthex takes, which the test
 * broadcasts and which moves exactly the amount) from the master and from a child; TIP-191
 * messages verified with tronweb's verifyMessageV2; typed data refused with 422
 * TYPED_DATA_NOT_SUPPORTED, writing nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Trx } from 'tronweb';
import { hexToBytes } from 'viem';
import { balance, info, newWallet, tokenBalance } from '../../../src/devnet/tron/testkit.js';
import { tronHex } from '../../../src/chains/tron/codec.js';
import { eventually } from '../../support/fixtures.js';
import { broadcastHex, childOf, startTronWorld, writtenRows, type TronWorld } from './world.js';

let w: TronWorld;

beforeAll(async () => {
  w = await startTronWorld('tron-signing', { chainId: 990_302 });
}, 60_000);

afterAll(async () => {
  await w?.stop();
});

const landed = (txid: string) =>
  eventually(
    () => info(w.s, txid),
    (i) => i.blockNumber !== undefined,
    10_000,
  );

describe('sign-only withdrawals on Tron', () => {
  it('TRX from the master: a SIGNED hex without nonce; broadcast with broadcasthex it moves exactly the amount', async () => {
    const to = newWallet();
    const before = BigInt(await balance(w.s, tronHex(w.wallet.address)!));
    const rows = await writtenRows(w);
    const res = await w.h.api('POST', `/v1/wallets/${w.wallet.id}/withdraw/sign`, {
      key: w.wallet.apiKey,
      body: { assetId: w.trxId, address: to.address, amount: '1.500001' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const t = res.body.data;
    expect(t).toMatchObject({ type: 'SIGNED', status: 'SUCCESS', confirmed: true, amount: '1.500001', recipientAddress: to.address });
    expect(t.signedTransaction).toMatch(/^[0-9a-f]+$/);
    expect(t.hash).toMatch(/^[0-9a-f]{64}$/);
    // Only the SIGNED row: nothing queued for broadcast, and no nonce taken.
    expect(await writtenRows(w)).toEqual({ transactions: rows.transactions + 1, outbound: rows.outbound });
    const { rows: stored } = await w.h.database.db
      .selectFrom('transactions')
      .select(['nonce'])
      .where('id', '=', t.id)
      .execute()
      .then((r) => ({ rows: r }));
    expect(stored[0]!.nonce).toBeNull();
    // Nothing on chain until the client broadcasts it.
    expect(await balance(w.s, to.hex)).toBe(0);

    const sent = await broadcastHex(w, t.signedTransaction);
    expect(sent.result, JSON.stringify(sent)).toBe(true);
    expect(sent.txid).toBe(t.hash);
    const fee = BigInt((await landed(t.hash)).fee ?? 0);
    expect(BigInt(await balance(w.s, to.hex))).toBe(1_500_001n);
    expect(BigInt(await balance(w.s, tronHex(w.wallet.address)!))).toBe(before - 1_500_001n - fee);
  });

  it('USDT from a child: broadcast by the client it moves exactly the amount, the fee burned from the child', async () => {
    const child = await childOf(w);
    await w.s.control.fund(child.address, { trx: 20_000_000, tokens: { USDT: 9_000_000n } });
    await w.s.control.produceBlocks(1);
    const to = newWallet();
    const res = await w.h.api('POST', `/v1/wallets/${w.wallet.id}/addresses/${child.id}/withdraw/sign`, {
      key: w.wallet.apiKey,
      body: { assetId: w.usdtId, address: to.address, amount: '4.25' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const t = res.body.data;
    expect(t).toMatchObject({ type: 'SIGNED', status: 'SUCCESS', senderAddress: child.address, amount: '4.25' });

    const sent = await broadcastHex(w, t.signedTransaction);
    expect(sent.result, JSON.stringify(sent)).toBe(true);
    const done = await landed(t.hash);
    expect(done.receipt?.result).toBe('SUCCESS');
    expect(await tokenBalance(w.s, w.usdt, to.address)).toBe(4_250_000n);
    expect(await tokenBalance(w.s, w.usdt, child.address)).toBe(4_750_000n);
    expect(BigInt(await balance(w.s, tronHex(child.address)!))).toBe(20_000_000n - BigInt(done.fee ?? 0));
  });
});

describe('message signing on Tron (TIP-191)', () => {
  it("the master's signature of a text verifies with tronweb's verifyMessageV2", async () => {
    const message = 'Pay 12.50 USDT to order #1042';
    const res = await w.h.api('POST', `/v1/wallets/${w.wallet.id}/signing/message`, { key: w.wallet.apiKey, body: { message } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const t = res.body.data;
    expect(t).toMatchObject({ type: 'SIGNED', status: 'SUCCESS', senderAddress: w.wallet.address });
    expect(t.response).toMatchObject({ kind: 'TIP-191', encoding: 'text', message });
    const { signature, v } = t.signedTransaction as { signature: string; v: number };
    expect(signature).toMatch(/^0x[0-9a-f]{130}$/);
    expect([27, 28]).toContain(v);
    expect(Trx.verifyMessageV2(message, signature)).toBe(w.wallet.address);
    // Another text does not verify to the signer.
    expect(Trx.verifyMessageV2(`${message}.`, signature)).not.toBe(w.wallet.address);
  });

  it("a child's signature of bytes (0x hex) verifies with verifyMessageV2 given the bytes", async () => {
    const child = await childOf(w);
    const res = await w.h.api('POST', `/v1/wallets/${w.wallet.id}/addresses/${child.id}/signing/message`, {
      key: w.wallet.apiKey,
      body: { message: '0x48656c6c6f2054726f6e' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { signature } = res.body.data.signedTransaction as { signature: string };
    expect(Trx.verifyMessageV2(hexToBytes('0x48656c6c6f2054726f6e'), signature)).toBe(child.address);
  });
});

describe('typed data on Tron', () => {
  it('answers 422 TYPED_DATA_NOT_SUPPORTED and writes nothing', async () => {
    const before = await writtenRows(w);
    const res = await w.h.api('POST', `/v1/wallets/${w.wallet.id}/signing/typed-data`, {
      key: w.wallet.apiKey,
      body: {
        domain: { name: 'Example', version: '1', chainId: 1, verifyingContract: '0x0000000000000000000000000000000000000001' },
        types: { Mail: [{ name: 'contents', type: 'string' }] },
        message: { contents: 'hello' },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body).toMatchObject({ statusCode: 422, error: 'TYPED_DATA_NOT_SUPPORTED' });
    expect(res.body.message).toMatch(/Typed data \(EIP-712\) signing is not available/);
    expect(await writtenRows(w)).toEqual(before);
  });
});
