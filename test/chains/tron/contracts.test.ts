/**
 * Contract calls on a Tron chain through HTTP, against the java-tron stand-in: read
 * (triggerconstantcontract, T… in and out), network-fee (energy x price + bandwidth, in TRX),
 * write through the outbound pipeline (a USDT transfer with exact balances, its fee the one the
 * chain burned) and write/sign (the signed hex a Tron client broadcasts with
 * /wallet/broadcasthex lands). Refusals (revert, no contract, a bad T… argument) write nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc20Abi } from 'viem';
import { balance, info, newWallet, tokenBalance } from '../../../src/devnet/tron/testkit.js';
import { tronHex } from '../../../src/chains/tron/codec.js';
import { eventually } from '../../support/fixtures.js';
import { broadcastHex, childOf, startTronWorld, units, writtenRows, type TronWorld } from './world.js';

let w: TronWorld;

beforeAll(async () => {
  w = await startTronWorld('tron-contracts');
}, 60_000);

afterAll(async () => {
  await w?.stop();
});

const transfer = (to: string, amount: string) => ({ address: w.usdt, method: 'transfer', parameters: [to, amount], abi: erc20Abi });

async function contracts(op: 'read' | 'write' | 'write/sign' | 'network-fee', body: unknown, addressId?: string) {
  const base = addressId ? `/v1/wallets/${w.wallet.id}/addresses/${addressId}` : `/v1/wallets/${w.wallet.id}`;
  return w.h.api('POST', `${base}/contracts/${op}`, { key: w.wallet.apiKey, body });
}

async function settled(id: string): Promise<Record<string, any>> {
  return eventually(
    async () => (await w.h.api('GET', `/v1/wallets/${w.wallet.id}/transactions/${id}`, { key: w.wallet.apiKey })).body.data,
    (t) => t.status !== 'PENDING' && t.confirmed === true,
    40_000,
  );
}

describe('contract reads on Tron', () => {
  it('balanceOf with a T… argument (or its 41… hex) answers the exact balance; an address result comes back T…', async () => {
    const expected = (await tokenBalance(w.s, w.usdt, w.wallet.address)).toString();
    const res = await contracts('read', {
      calls: [{ address: w.usdt, method: 'balanceOf', parameters: [w.wallet.address], abi: erc20Abi }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toBe(expected);

    const several = await contracts('read', {
      calls: [
        { address: w.usdt, method: 'balanceOf', parameters: [tronHex(w.wallet.address)], abi: erc20Abi },
        { address: w.usdt, method: 'decimals', parameters: [], abi: erc20Abi },
        {
          address: w.s.multicall.address,
          method: 'getCurrentBlockCoinbase',
          parameters: [],
          abi: [
            {
              type: 'function',
              name: 'getCurrentBlockCoinbase',
              stateMutability: 'view',
              inputs: [],
              outputs: [{ name: '', type: 'address' }],
            },
          ],
        },
      ],
    });
    expect(several.status, JSON.stringify(several.body)).toBe(200);
    expect(several.body.data[0]).toBe(expected);
    expect(several.body.data[1]).toBe('6');
    expect(several.body.data[2]).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  });

  it('refuses an address that is no contract (422 NOT_A_CONTRACT) and a bad T… argument (400)', async () => {
    const nobody = newWallet().address;
    const none = await contracts('read', { calls: [{ address: nobody, method: 'balanceOf', parameters: [nobody], abi: erc20Abi }] });
    expect(none.status, JSON.stringify(none.body)).toBe(422);
    expect(none.body.error).toBe('NOT_A_CONTRACT');

    const typo = w.wallet.address.slice(0, -1) + (w.wallet.address.endsWith('a') ? 'b' : 'a');
    const bad = await contracts('read', { calls: [{ address: w.usdt, method: 'balanceOf', parameters: [typo], abi: erc20Abi }] });
    expect(bad.status, JSON.stringify(bad.body)).toBe(400);
    expect(bad.body.details[0].field).toBe('calls.0.parameters.0');
  });
});

describe('contract writes on Tron', () => {
  it('network-fee, then write: a USDT transfer lands, moves exact balances, and the estimate covers the fee the chain burned', async () => {
    const to = newWallet();
    const body = { calls: [transfer(to.address, '2500000')] };
    const fee = await contracts('network-fee', body);
    expect(fee.status, JSON.stringify(fee.body)).toBe(200);
    const trxBefore = BigInt(await balance(w.s, tronHex(w.wallet.address)!));
    const usdtBefore = await tokenBalance(w.s, w.usdt, w.wallet.address);
    expect(units(fee.body.data.balance)).toBe(trxBefore);

    const res = await contracts('write', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({
      type: 'CUSTOM_SMART_CONTRACT',
      status: 'PENDING',
      senderAddress: w.wallet.address,
      recipientAddress: w.usdt,
    });
    const done = await settled(res.body.data.id);
    expect(done).toMatchObject({ status: 'SUCCESS' });
    expect(done.hash).toMatch(/^[0-9a-f]{64}$/);
    // Tron has no nonce: the settled response says so rather than 0.
    expect(done.response).toMatchObject({ outcome: 'success', hash: done.hash, nonce: null });

    const burned = BigInt((await info(w.s, done.hash)).fee ?? 0);
    expect(burned).toBeGreaterThan(0n);
    expect(units(done.fee)).toBe(burned);
    expect(units(fee.body.data.fee)).toBeGreaterThanOrEqual(burned);
    expect(await tokenBalance(w.s, w.usdt, to.address)).toBe(2_500_000n);
    expect(await tokenBalance(w.s, w.usdt, w.wallet.address)).toBe(usdtBefore - 2_500_000n);
    expect(BigInt(await balance(w.s, tronHex(w.wallet.address)!))).toBe(trxBefore - burned);
  });

  it('a transfer of more than the balance reverts in simulation: 422 CONTRACT_REVERTED with the decoded reason, nothing written', async () => {
    const before = await writtenRows(w);
    const res = await contracts('write', { calls: [transfer(newWallet().address, (10n ** 30n).toString())] });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error).toBe('CONTRACT_REVERTED');
    // The revert data decoded with the well-known ERC-20 errors, its address in T… form.
    expect(res.body.details[0].message).toMatch(new RegExp(`^ERC20InsufficientBalance\\(${w.wallet.address}, \\d+, ${10n ** 30n}\\)$`));
    expect(await writtenRows(w)).toEqual(before);
  });

  it('write/sign from a child: a SIGNED hex, nothing queued; broadcast by the client with broadcasthex it lands with exact balances', async () => {
    const child = await childOf(w);
    await w.s.control.fund(child.address, { trx: 20_000_000, tokens: { USDT: 5_000_000n } });
    await w.s.control.produceBlocks(1);
    const to = newWallet();
    const before = await writtenRows(w);
    const res = await contracts('write/sign', { calls: [transfer(to.address, '1250000')] }, child.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const t = res.body.data;
    expect(t).toMatchObject({ type: 'SIGNED', status: 'SUCCESS', confirmed: true, senderAddress: child.address });
    expect(t.response.nonce).toBeNull();
    expect(t.signedTransaction).toMatch(/^[0-9a-f]+$/);
    expect(t.response.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await writtenRows(w)).toEqual({ transactions: before.transactions + 1, outbound: before.outbound });

    const sent = await broadcastHex(w, t.signedTransaction);
    expect(sent.result, JSON.stringify(sent)).toBe(true);
    expect(sent.txid).toBe(t.response.hash);
    const landed = await eventually(
      () => info(w.s, t.response.hash),
      (i) => i.blockNumber !== undefined,
      10_000,
    );
    expect(landed.receipt?.result).toBe('SUCCESS');
    expect(await tokenBalance(w.s, w.usdt, to.address)).toBe(1_250_000n);
    expect(await tokenBalance(w.s, w.usdt, child.address)).toBe(3_750_000n);
    expect(BigInt(await balance(w.s, tronHex(child.address)!))).toBe(20_000_000n - BigInt(landed.fee ?? 0));
  });
});
