/**
 * Item 8 of issue 16 through HTTP against the Solana validator stand-in: beneficiaries and
 * the withdrawal whitelist with base58 addresses (an EVM 0x or a Tron T… address refused with
 * a 400 that writes nothing), a whitelisted beneficiary paid from the master (the master is
 * the sender and pays its own fee: no fee payer), the history (list and get: base58
 * addresses, the transaction's signature as hash, found on chain), the webhook bodies, and a
 * key import for an outside address in the forms Solana wallets export (base58 of the
 * 64-byte secret key, or the 32-byte seed), checked against the address, exported back as
 * Solana wallets take it, and lent to sign beside the master (a sweep's fee payer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSolanaRpc } from '@solana/kit';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { events, outsideAccount, settled, startSolanaWorld, txOf, walletApi, waitBalance, type SolanaWorld } from './misc-world.js';

let w: SolanaWorld;

beforeAll(async () => {
  w = await startSolanaWorld('solana-treasury', 990_402);
  await w.sol.control.fund(w.wallet.address, 5_000_000_000n);
  await w.sol.control.mintTo(w.usdc, w.wallet.address, 100_000_000n);
  await waitBalance(w, w.wallet.address, w.usdc, 100_000_000n);
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{86,88}$/;

const balanceOf = async (owner: string, token: string | null) => (await w.adapter.getBalances([{ owner, token }]))[0]!;
const rowCount = async () => (await walletApi(w, 'GET', '/transactions?limit=100')).body.data.length as number;

function expectBadAddress(res: { status: number; body: any }, field = 'address') {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error).toBe('VALIDATION_ERROR');
  expect(res.body.details[0].field).toBe(field);
}

describe('beneficiaries and the withdrawal whitelist', () => {
  it('a beneficiary with a base58 address is stored as given; the same account again is a 409; EVM, Tron and mangled addresses are 400s', async () => {
    const payee = outsideAccount();
    const created = await walletApi(w, 'POST', '/beneficiaries', { name: 'Payee', address: payee.address });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.data.address).toBe(payee.address);
    const got = await walletApi(w, 'GET', `/beneficiaries/${created.body.data.id}`);
    expect(got.body.data.address).toBe(payee.address);
    const twice = await walletApi(w, 'POST', '/beneficiaries', { name: 'Again', address: payee.address });
    expect(twice.status, JSON.stringify(twice.body)).toBe(409);

    const before = (await walletApi(w, 'GET', '/beneficiaries')).body.data.length;
    expectBadAddress(await walletApi(w, 'POST', '/beneficiaries', { name: 'evm', address: EVM }));
    expectBadAddress(await walletApi(w, 'POST', '/beneficiaries', { name: 'tron', address: TRON }));
    expectBadAddress(await walletApi(w, 'POST', '/beneficiaries', { name: 'short', address: payee.address.slice(0, -2) }));
    expectBadAddress(await walletApi(w, 'POST', '/beneficiaries', { name: 'l', address: `l${payee.address.slice(1)}` }));
    expect((await walletApi(w, 'GET', '/beneficiaries')).body.data.length).toBe(before);
  });

  it('withdrawals and their fee estimate: EVM and Tron addresses are 400s naming a Solana address, and write nothing', async () => {
    const before = await rowCount();
    for (const address of [EVM, TRON]) {
      const res = await walletApi(w, 'POST', '/withdraw', { assetId: w.usdcId, address, amount: '1' });
      expectBadAddress(res);
      expect(res.body.message).not.toMatch(/EIP-55/);
      expectBadAddress(await walletApi(w, 'POST', '/withdraw/network-fee', { assetId: w.solId, address, amount: '1' }));
    }
    expect(await rowCount()).toBe(before);
  });

  it('a whitelisted outside address (no key) is watched as EXTERNAL; a Tron address is a 400', async () => {
    const outside = outsideAccount();
    const res = await walletApi(w, 'POST', '/addresses/whitelist', { address: outside.address, disableAutoSweep: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ address: outside.address, type: 'EXTERNAL' });
    expectBadAddress(await walletApi(w, 'POST', '/addresses/whitelist', { address: TRON }));
  });

  it('with a whitelisted beneficiary only it can be paid (422 NOT_WHITELISTED otherwise); USDC from the master lands exactly, the master paying fee and the new token account', async () => {
    const listed = outsideAccount();
    const b = await walletApi(w, 'POST', '/beneficiaries', { name: 'Listed', address: listed.address, isWhitelisted: true });
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    try {
      const before = await rowCount();
      const off = await walletApi(w, 'POST', '/withdraw', { assetId: w.usdcId, address: outsideAccount().address, amount: '1' });
      expect(off.status, JSON.stringify(off.body)).toBe(422);
      expect(off.body.error).toBe('NOT_WHITELISTED');
      expect(await rowCount()).toBe(before);

      const [usdcBefore, solBefore] = [await balanceOf(w.wallet.address, w.usdc), await balanceOf(w.wallet.address, null)];
      const ok = await walletApi(w, 'POST', '/withdraw', { assetId: w.usdcId, address: listed.address, amount: '1.500001' });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body.data).toMatchObject({ recipientAddress: listed.address, senderAddress: w.wallet.address });
      const done = await settled(w, ok.body.data.id);
      expect(done, JSON.stringify(done)).toMatchObject({ status: 'SUCCESS', recipientAddress: listed.address, amount: '1.500001' });
      expect(done.hash).toMatch(SIGNATURE);
      await waitBalance(w, listed.address, w.usdc, 1_500_001n);
      expect(await balanceOf(w.wallet.address, w.usdc)).toBe(usdcBefore - 1_500_001n);
      // The master paid the transaction fee and the rent of the recipient's new token account.
      const onChain = await createSolanaRpc(w.sol.url)
        .getTransaction(done.hash as never, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
        .send();
      expect(onChain?.meta?.err).toBeNull();
      expect(onChain!.transaction.message.accountKeys[0]).toBe(w.wallet.address);
      expect(await balanceOf(w.wallet.address, null)).toBe(solBefore - BigInt(onChain!.meta!.fee) - 2_039_280n);
      expect(await balanceOf(listed.address, null)).toBe(0n);
    } finally {
      await walletApi(w, 'DELETE', `/beneficiaries/${b.body.data.id}`);
    }
  });
});

/** The address with one letter's case swapped (the last one whose other case is base58 too): another account. */
function caseLookAlike(address: string): string {
  for (let i = address.length - 1; i >= 0; i--) {
    const c = address[i]!;
    const swapped = c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
    if (swapped !== c && BASE58.test(`${address.slice(0, i)}${swapped}${address.slice(i + 1)}`)) {
      return `${address.slice(0, i)}${swapped}${address.slice(i + 1)}`;
    }
  }
  throw new Error(`no letter of ${address} has a base58 other case`);
}

describe('the whitelist compares base58 addresses exactly', () => {
  it('a case look-alike of a whitelisted address is another account: refused (422 NOT_WHITELISTED), nothing written, nothing sent', async () => {
    const listed = outsideAccount();
    const lookAlike = caseLookAlike(listed.address);
    // A valid Solana address of its own (any 32 bytes are one), not the listed one.
    expect(w.adapter.normalizeAddress(lookAlike)).toBe(lookAlike);
    expect(lookAlike.toLowerCase()).toBe(listed.address.toLowerCase());
    expect(lookAlike).not.toBe(listed.address);
    const b = await walletApi(w, 'POST', '/beneficiaries', { name: 'Listed', address: listed.address, isWhitelisted: true });
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    try {
      const before = await rowCount();
      for (const assetId of [w.usdcId, w.solId]) {
        const off = await walletApi(w, 'POST', '/withdraw', { assetId, address: lookAlike, amount: '1' });
        expect(off.status, JSON.stringify(off.body)).toBe(422);
        expect(off.body.error).toBe('NOT_WHITELISTED');
        expect(off.body.details[0].field).toBe('address');
      }
      expect(await rowCount()).toBe(before);
      expect(await balanceOf(lookAlike, null)).toBe(0n);
    } finally {
      await walletApi(w, 'DELETE', `/beneficiaries/${b.body.data.id}`);
    }
  });
});

describe('history and webhooks', () => {
  it('list and get: base58 addresses, the signature as hash, type and status filters; the webhook carries the same', async () => {
    const to = outsideAccount();
    const solBefore = await balanceOf(w.wallet.address, null);
    const sent = await walletApi(w, 'POST', '/withdraw', {
      assetId: w.solId,
      address: to.address,
      amount: '0.25',
      reference: 'sol-history-1',
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const done = await settled(w, sent.body.data.id);
    expect(done.status).toBe('SUCCESS');
    expect(done.hash).toMatch(SIGNATURE);
    await waitBalance(w, to.address, null, 250_000_000n);
    const onChain = await createSolanaRpc(w.sol.url)
      .getTransaction(done.hash as never, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send();
    expect(onChain?.transaction.signatures[0]).toBe(done.hash);
    expect(await balanceOf(w.wallet.address, null)).toBe(solBefore - 250_000_000n - BigInt(onChain!.meta!.fee));

    const list = await walletApi(w, 'GET', '/transactions?type=WITHDRAW&status=SUCCESS&limit=100');
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    const rows = list.body.data as Record<string, any>[];
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows.find((t) => t.id === done.id)).toMatchObject({
      hash: done.hash,
      senderAddress: w.wallet.address,
      recipientAddress: to.address,
      amount: '0.25',
      reference: 'sol-history-1',
    });
    for (const t of rows) {
      expect(t.type).toBe('WITHDRAW');
      expect(t.senderAddress).toMatch(BASE58);
      expect(t.recipientAddress).toMatch(BASE58);
      expect(t.hash).toMatch(SIGNATURE);
    }
    expect((await txOf(w, done.id)).hash).toBe(done.hash);

    const [event] = await events(w, done.id, 'withdraw.success');
    expect(event!.data).toMatchObject({
      id: done.id,
      hash: done.hash,
      senderAddress: w.wallet.address,
      recipientAddress: to.address,
      amount: '0.25',
    });
  });
});

describe('key import', () => {
  it('an outside address with its base58 64-byte secret key: EXTERNAL, exported back the same; a wrong, inconsistent or malformed key is a 400 writing nothing', async () => {
    const outside = outsideAccount();
    const secret = base58.encode(new Uint8Array([...outside.seed, ...ed25519.getPublicKey(outside.seed)]));
    const other = outsideAccount();
    const inconsistent = base58.encode(new Uint8Array([...outside.seed, ...ed25519.getPublicKey(other.seed)]));
    const before = (await walletApi(w, 'GET', '/addresses?limit=100')).body.data.length;
    for (const privateKey of [
      base58.encode(new Uint8Array([...other.seed, ...ed25519.getPublicKey(other.seed)])), // another account's key
      inconsistent, // seed and public key halves that do not match
      `0x${'11'.repeat(31)}`, // too short
      'not a key',
    ]) {
      expectBadAddress(await walletApi(w, 'POST', '/addresses/whitelist', { address: outside.address, privateKey }), 'privateKey');
    }
    expect((await walletApi(w, 'GET', '/addresses?limit=100')).body.data.length).toBe(before);

    const res = await walletApi(w, 'POST', '/addresses/whitelist', {
      address: outside.address,
      privateKey: secret,
      disableAutoSweep: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ address: outside.address, type: 'EXTERNAL' });
    expect(JSON.stringify(res.body)).not.toContain(secret);
    const shown = await walletApi(w, 'GET', `/addresses/${res.body.data.id}?showPrivateKey=true`);
    expect(shown.status, JSON.stringify(shown.body)).toBe(200);
    expect(shown.body.data.privateKey).toBe(secret);

    // The imported key signs beside the master's, in one use (a sweep of it: the master pays the fee).
    const message = new TextEncoder().encode('both keys');
    const [payerSig, ownerSig] = await w.h.services.signer.withKeys(
      w.wallet.id,
      [
        { index: 0, from: w.wallet.address },
        { index: null, from: outside.address },
      ],
      (keys) => keys.map((k) => k.signMessage!(message)),
    );
    expect(ed25519.verify(payerSig!, message, base58.decode(w.wallet.address))).toBe(true);
    expect(ed25519.verify(ownerSig!, message, base58.decode(outside.address))).toBe(true);
  });

  it('the 32-byte seed alone (hex) is taken too, and exported as the 64-byte secret key', async () => {
    const outside = outsideAccount();
    const res = await walletApi(w, 'POST', '/addresses/whitelist', {
      address: outside.address,
      privateKey: Buffer.from(outside.seed).toString('hex'),
      disableAutoSweep: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const shown = await walletApi(w, 'GET', `/addresses/${res.body.data.id}?showPrivateKey=true`);
    expect(base58.decode(shown.body.data.privateKey)).toEqual(new Uint8Array([...outside.seed, ...ed25519.getPublicKey(outside.seed)]));
  });
});
