/**
 * One address rule everywhere a client gives an address (chains/evm/address.ts), as EIP-55
 * says: all-lower and all-upper case carry no checksum and are accepted (stored and
 * answered checksummed); mixed case must be a valid checksum. Withdrawals, network fees,
 * beneficiaries, whitelisted addresses, settlement rules, contract calls (target and
 * address arguments), typed data (domain and address members) and the balances filter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';
import { chainOf } from '../support/chain.js';
import { call } from '../contracts/support.js';

let h: Harness;
let w: TestWallet;
let nativeId: string;

const upper = (a: string) => `0x${a.slice(2).toUpperCase()}`;
/** The address with the case of one letter flipped: a checksum typo. */
function typo(a: string): string {
  const i = a.slice(2).search(/[a-fA-F]/) + 2;
  const c = a[i]!;
  return a.slice(0, i) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + a.slice(i + 1);
}
/**
 * A fresh outside address in checksummed form with at least two letters of each case, so that
 * typo() (one letter's case flipped) leaves it mixed: flipping the only lower-case letter of an
 * address made it all upper case, which carries no checksum and is accepted (a rare flake).
 */
function outside(): string {
  for (;;) {
    const a = privateKeyToAccount(generatePrivateKey()).address;
    if ((a.slice(2).match(/[a-f]/g) ?? []).length >= 2 && (a.slice(2).match(/[A-F]/g) ?? []).length >= 2) return a;
  }
}

beforeAll(async () => {
  h = await startHarness();
  w = h.wallets['devnet-eth']!;
  nativeId = h.services.catalogue.findChain(w.slug, 'testnet')!.assets.find((a) => a.is_native)!.id;
  expect((await h.api('PATCH', `/v1/wallets/${w.id}/assets/${nativeId}`, { key: w.apiKey, body: { isActive: true } })).status).toBe(200);
});
afterAll(async () => {
  await h?.stop();
});

const post = (path: string, body: unknown) => h.api('POST', `/v1/wallets/${w.id}${path}`, { key: w.apiKey, body });

function expectBadAddress(res: { status: number; body: any }, field: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error).toBe('VALIDATION_ERROR');
  expect(res.body.details[0].field).toBe(field);
}

describe('all-upper case is accepted and stored checksummed; a checksum typo is a 400', () => {
  it('withdrawals and their network fee', async () => {
    const to = outside();
    const fee = await post('/withdraw/network-fee', { assetId: nativeId, address: upper(to), amount: '0.000001' });
    expect(fee.status, JSON.stringify(fee.body)).toBe(200);
    const res = await post('/withdraw', { assetId: nativeId, address: upper(to), amount: '0.000001' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.recipientAddress).toBe(to);
    const lower = await post('/withdraw', { assetId: nativeId, address: to.toLowerCase(), amount: '0.000001' });
    expect(lower.body.data.recipientAddress).toBe(to);
    expectBadAddress(await post('/withdraw', { assetId: nativeId, address: typo(to), amount: '0.000001' }), 'address');
  });

  it('beneficiaries and whitelisted addresses', async () => {
    const payee = outside();
    const created = await post('/beneficiaries', { name: 'upper', address: upper(payee) });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.data.address).toBe(payee);
    expectBadAddress(await post('/beneficiaries', { name: 'typo', address: typo(outside()) }), 'address');

    const listed = outside();
    const whitelisted = await post('/addresses/whitelist', { address: upper(listed) });
    expect(whitelisted.status, JSON.stringify(whitelisted.body)).toBe(200);
    expect(whitelisted.body.data.address).toBe(listed);
    expectBadAddress(await post('/addresses/whitelist', { address: typo(outside()) }), 'address');
  });

  it('settlement rules', async () => {
    const dest = outside();
    const rule = (address: string) => ({
      name: 'r',
      source: { assets: ['USDC'], blockchain: w.slug },
      destination: { asset: 'USDC', address, blockchain: w.slug },
    });
    const res = await post('/auto-settlements/rules', rule(upper(dest)));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(JSON.stringify(res.body.data)).toContain(dest);
    const bad = await post('/auto-settlements/rules', rule(typo(outside())));
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toMatch(/destination\.address$/);
  });

  it('contract calls: the target and address arguments', async () => {
    const chain = chainOf(h, 'devnet-eth');
    const usdc = chain.token('USDC').address;
    await chain.sendToken('USDC', w.address, '2');
    const expected = (await chain.balanceOf('USDC', w.address)).toString();
    const res = await post('/contracts/read', { calls: [call(upper(usdc), 'balanceOf', [upper(w.address)])] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toBe(expected);
    expectBadAddress(await post('/contracts/read', { calls: [call(typo(usdc), 'balanceOf', [w.address])] }), 'calls.0.address');
    expectBadAddress(await post('/contracts/read', { calls: [call(usdc, 'balanceOf', [typo(w.address)])] }), 'calls.0.parameters.0');
  });

  it('typed data: the domain and address members sign the same digest in any single case', async () => {
    const contract = outside();
    const to = outside();
    const body = (c: string, t: string) => ({
      domain: { name: 'Mail', version: '1', chainId: 1, verifyingContract: c },
      types: { Mail: [{ name: 'to', type: 'address' }] },
      primaryType: 'Mail',
      message: { to: t },
    });
    const res = await post('/signing/typed-data', body(upper(contract), upper(to)));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const checksummed = await post('/signing/typed-data', body(contract, to));
    expect(res.body.data.signedTransaction.signature).toBe(checksummed.body.data.signedTransaction.signature);
    expectBadAddress(await post('/signing/typed-data', body(typo(contract), to)), 'domain.verifyingContract');
    expectBadAddress(await post('/signing/typed-data', body(contract, typo(to))), 'message.to');
  });

  it('the balances filter: the master in any single case; a checksum typo is not one of the wallet addresses (404)', async () => {
    const path = `/v1/wallets/${w.id}/balances`;
    expect((await h.api('GET', `${path}?address=${upper(w.address)}`, { key: w.apiKey })).status).toBe(200);
    expect((await h.api('GET', `${path}?address=${w.address.toLowerCase()}`, { key: w.apiKey })).status).toBe(200);
    expect((await h.api('GET', `${path}?address=${typo(w.address)}`, { key: w.apiKey })).status).toBe(404);
  });
});
