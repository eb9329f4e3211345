/**
 * The single-call form, as the described service documents its contract requests: one call
 * as top-level `address`, `method`, `parameters`, `abi` instead of `calls: [...]`, on the
 * master and on a child address, for read, write, network-fee and write/sign. It answers as
 * a one-element `calls` and obeys every rule of writes (setting, whitelist, reservation).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTransaction, parseUnits, recoverTransactionAddress, type Hex, type TransactionSerialized } from 'viem';
import type { Harness } from '../support/harness.js';
import { chainOf } from '../support/chain.js';
import { ABI } from './support.js';
import {
  child,
  expectRefused,
  freshWallet,
  randomAddress,
  settled,
  startRulesHarness,
  units,
  usdcOf,
  whitelist,
  withdraw,
  written,
  type Wallet,
} from './rules-world.js';

let h: Harness;

beforeAll(async () => {
  h = await startRulesHarness();
});
afterAll(async () => {
  await h?.stop();
});

/** POST .../contracts/{action} with the body exactly as given (no `calls` wrapper added). */
function post(w: Wallet, action: string, body: unknown, addressId?: string) {
  const base = addressId ? `/v1/wallets/${w.id}/addresses/${addressId}/contracts` : `/v1/wallets/${w.id}/contracts`;
  return h.api('POST', `${base}/${action}`, { key: w.apiKey, body });
}

/** A USDC transfer as the described service's documentation writes it: top-level fields, a pre-0.5 style ABI. */
function transferBody(to: string, usdc: number) {
  return {
    address: usdcOf(h),
    method: 'transfer',
    parameters: [to, units(usdc)],
    abi: [
      {
        constant: false,
        inputs: [
          { name: '_to', type: 'address' },
          { name: '_value', type: 'uint256' },
        ],
        name: 'transfer',
        outputs: [],
        payable: false,
        stateMutability: 'nonpayable',
        type: 'function',
      },
    ],
  };
}

describe('contract calls, single form', () => {
  it('read: a top-level call answers with the value as a string, as calls: [call] does', async () => {
    const w = await freshWallet(h, '42');
    const body = { address: usdcOf(h), method: 'balanceOf', parameters: [w.address], abi: [ABI.balanceOf] };
    const res = await post(w, 'read', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ statusCode: 200, data: units(42) });
    expect((await post(w, 'read', { calls: [body] })).body.data).toBe(res.body.data);

    const c = await child(h, w);
    const onChild = await post(w, 'read', { ...body, parameters: [c.address] }, c.id);
    expect(onChild.status, JSON.stringify(onChild.body)).toBe(200);
    expect(onChild.body.data).toBe('0');
  });

  it('write: one PENDING CUSTOM_SMART_CONTRACT Transaction (not an array), mined, the token moved', async () => {
    const w = await freshWallet(h, '100');
    const to = randomAddress();
    const res = await post(w, 'write', transferBody(to, 7));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Array.isArray(res.body.data)).toBe(false);
    expect(res.body.data).toMatchObject({ type: 'CUSTOM_SMART_CONTRACT', status: 'PENDING', senderAddress: w.address });
    expect(JSON.parse(res.body.data.reason)).toMatchObject({ method: 'transfer', parameters: [to, units(7)] });
    await settled(h, w, res.body.data.id);
    expect(await chainOf(h, 'devnet-eth').balanceOf('USDC', to)).toBe(parseUnits('7', 6));

    const c = await child(h, w);
    await chainOf(h, 'devnet-eth').sendToken('USDC', c.address, '5');
    const fromChild = await post(w, 'write', transferBody(to, 2), c.id);
    expect(fromChild.status, JSON.stringify(fromChild.body)).toBe(200);
    expect(fromChild.body.data).toMatchObject({ senderAddress: c.address, address: { id: c.id } });
    await settled(h, w, fromChild.body.data.id);
    expect(await chainOf(h, 'devnet-eth').balanceOf('USDC', to)).toBe(parseUnits('9', 6));
  });

  it('network-fee: { balance, fee } for a top-level call, on the master and on a child', async () => {
    const w = await freshWallet(h, '10');
    const res = await post(w, 'network-fee', transferBody(randomAddress(), 1));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({ balance: '10', fee: expect.stringMatching(/^0\.\d+$/) });
    const c = await child(h, w);
    await chainOf(h, 'devnet-eth').sendToken('USDC', c.address, '3');
    const onChild = await post(w, 'network-fee', transferBody(randomAddress(), 1), c.id);
    expect(onChild.status, JSON.stringify(onChild.body)).toBe(200);
    expect(onChild.body.data).toEqual({ balance: '10', fee: expect.stringMatching(/^0\.\d+$/) });
  });

  it('write/sign on the master (new) and on a child: one SIGNED Transaction whose raw transaction the sender signed', async () => {
    const w = await freshWallet(h, '20');
    const chain = chainOf(h, 'devnet-eth');
    const to = randomAddress();
    const before = await written(h, w);
    const res = await post(w, 'write/sign', transferBody(to, 4));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const t = res.body.data;
    expect(t).toMatchObject({ type: 'SIGNED', status: 'SUCCESS', confirmed: true, senderAddress: w.address });
    expect(await recoverTransactionAddress({ serializedTransaction: t.signedTransaction as TransactionSerialized })).toBe(w.address);
    expect(parseTransaction(t.signedTransaction as Hex)).toMatchObject({ to: usdcOf(h).toLowerCase(), chainId: chain.config.chainId });
    // Nothing queued: only the SIGNED row.
    expect(await written(h, w)).toMatchObject({ transactions: before.transactions + 1, outbound: before.outbound });
    expect((await chain.sendRaw(t.signedTransaction as Hex)).status).toBe('success');
    expect(await chain.balanceOf('USDC', to)).toBe(parseUnits('4', 6));

    const c = await child(h, w);
    await chain.sendToken('USDC', c.address, '5');
    const fromChild = await post(w, 'write/sign', transferBody(to, 1), c.id);
    expect(fromChild.status, JSON.stringify(fromChild.body)).toBe(200);
    expect(await recoverTransactionAddress({ serializedTransaction: fromChild.body.data.signedTransaction as TransactionSerialized })).toBe(
      c.address,
    );
  });

  it('keeps every rule of writes: the contract-write setting, the whitelist and the reservation, naming the fields sent', async () => {
    const w = await freshWallet(h, '10');
    const to = randomAddress();

    // Reservation: a single-form approve lets a spender take 8 of the 10 USDC and holds them
    // while it stands; a single-form transfer of 5 (which the chain would accept) does not fit.
    const spender = randomAddress();
    const held = await post(w, 'write', { address: usdcOf(h), method: 'approve', parameters: [spender, units(8)], abi: [ABI.approve] });
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    await settled(h, w, held.body.data.id);
    for (const action of ['write', 'write/sign']) {
      const before = await written(h, w);
      const res = await post(w, action, transferBody(to, 5));
      expectRefused(res, 422, 'INSUFFICIENT_BALANCE');
      expect(res.body.details).toEqual([{ field: 'parameters', message: 'insufficient balance' }]);
      expect(await written(h, w)).toEqual(before);
    }
    // A withdrawal is judged against the same hold.
    expectRefused(await withdraw(h, w, randomAddress(), '5'), 422, 'INSUFFICIENT_BALANCE');

    // Whitelist: once a beneficiary is whitelisted, a transfer to anyone else is refused.
    await whitelist(h, w, randomAddress());
    for (const action of ['write', 'write/sign']) {
      const res = await post(w, action, transferBody(to, 1));
      expectRefused(res, 422, 'NOT_WHITELISTED');
      expect(res.body.details[0].field).toBe('parameters');
    }
    await whitelist(h, w, to);
    const ok = await post(w, 'write', transferBody(to, 1));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    await settled(h, w, ok.body.data.id);

    // The wallet setting, and its allow-list naming `address` (not `calls.0.address`).
    const other = randomAddress();
    const patch = await h.api('PATCH', `/v1/wallets/${w.id}`, {
      key: h.businessKey,
      body: { configurations: { contractWrites: { isActive: true, allowedContracts: [other] } } },
    });
    expect(patch.status, JSON.stringify(patch.body)).toBe(200);
    const notAllowed = await post(w, 'write', transferBody(to, 1));
    expectRefused(notAllowed, 422, 'CONTRACT_NOT_ALLOWED');
    expect(notAllowed.body.details).toEqual([{ field: 'address', message: 'not an allowed contract' }]);
    const off = await h.api('PATCH', `/v1/wallets/${w.id}`, {
      key: w.apiKey,
      body: { configurations: { contractWrites: { isActive: false } } },
    });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    for (const action of ['write', 'write/sign'])
      expectRefused(await post(w, action, transferBody(to, 1)), 422, 'CONTRACT_WRITES_DISABLED');
    // Reads and estimates still work.
    expect((await post(w, 'network-fee', transferBody(to, 1))).status).toBe(200);
  });

  it('a `value` on a non-payable function is a 400 naming `value`', async () => {
    const w = await freshWallet(h, '1');
    const res = await post(w, 'write', { ...transferBody(randomAddress(), 1), value: '0.1' });
    expectRefused(res, 400, 'VALIDATION_ERROR');
    expect(res.body.details[0].field).toBe('value');
    expect(res.body.message).not.toContain('calls.0');
  });

  it('bad bodies are 400s that name the field, and write nothing', async () => {
    const w = await freshWallet(h, '1');
    const body = transferBody(randomAddress(), 1);
    const before = await written(h, w);
    for (const action of ['read', 'write', 'network-fee', 'write/sign']) {
      const both = await post(w, action, { ...body, calls: [body] });
      expectRefused(both, 400, 'VALIDATION_ERROR');
      expect(both.body.details[0].field).toBe('address');
      expect(both.body.message).toContain('cannot be combined with calls');

      const { abi: _abi, ...noAbi } = body;
      const missing = await post(w, action, noAbi);
      expectRefused(missing, 400, 'VALIDATION_ERROR');
      expect(missing.body.details).toEqual([{ field: 'abi', message: 'is required (or send calls)' }]);

      expectRefused(await post(w, action, {}), 400, 'VALIDATION_ERROR');
      // Strict bodies: unknown fields stay refused.
      const unknown = await post(w, action, { ...body, gas: '100000' });
      expectRefused(unknown, 400, 'VALIDATION_ERROR');
    }
    const badParam = await post(w, 'write', { ...body, parameters: ['0x1234', '1'] });
    expectRefused(badParam, 400, 'VALIDATION_ERROR');
    expect(badParam.body.details[0].field).toMatch(/^parameters\.0/);
    expect(await written(h, w)).toEqual(before);
  });

  it('the OpenAPI document shows both forms, and the master write/sign route', async () => {
    const spec = await fetch(`${h.baseUrl}/openapi.json`).then((r) => r.json());
    const route = spec.paths['/v1/wallets/{walletId}/contracts/write/sign'];
    expect(route?.post).toBeDefined();
    for (const path of ['/v1/wallets/{walletId}/contracts/write', '/v1/wallets/{walletId}/addresses/{addressId}/contracts/read']) {
      const props = spec.paths[path].post.requestBody.content['application/json'].schema.properties;
      expect(Object.keys(props).sort()).toEqual(['abi', 'address', 'calls', 'method', 'parameters', 'value']);
    }
  });
});
