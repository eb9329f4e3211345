/**
 * Item 8 of issue 15 on Tron, through HTTP against the java-tron stand-in: beneficiaries and
 * the withdrawal whitelist with T… addresses (java-tron's hex accepted and answered as T…,
 * an EVM address and the zero address refused with a 400), a key import for an outside
 * address (hex in, T… out; the imported key signs a withdrawal), the history (list and get:
 * T… addresses, java-tron transaction ids) and an auto-settlement move from a child address
 * (the master funds the child's fee in TRX; exact balances on the stand-in).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { balance, fundedWallet, info, newWallet, sendToken, tokenBalance } from '../../../src/devnet/tron/testkit.js';
import { eventually } from '../../support/fixtures.js';
import { events, hex41, settled, startTronWorld, txOf, units, walletApi, type TronWorld } from './world.js';

let w: TronWorld;

beforeAll(async () => {
  w = await startTronWorld('tron-treasury');
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

const trxOf = async (address: string) => BigInt(await balance(w.s, hex41(address)));
const usdtOf = (address: string) => tokenBalance(w.s, w.usdt, address);
/** An EVM address with the same 20 bytes as a Tron one: a client's mistake on a Tron chain. */
const evmForm = (address: string) => `0x${hex41(address).slice(2)}`;
const ZERO = 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb';

function expectBadAddress(res: { status: number; body: any }, field = 'address') {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error).toBe('VALIDATION_ERROR');
  expect(res.body.details[0].field).toBe(field);
}

describe('beneficiaries and the withdrawal whitelist', () => {
  it('a beneficiary given in hex is stored and answered as T…; the same account again is a 409; EVM and zero addresses are 400s', async () => {
    const payee = newWallet();
    const created = await walletApi(w, 'POST', '/beneficiaries', { name: 'Payee', address: payee.hex });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.data.address).toBe(payee.address);
    const got = await walletApi(w, 'GET', `/beneficiaries/${created.body.data.id}`);
    expect(got.body.data.address).toBe(payee.address);
    const twice = await walletApi(w, 'POST', '/beneficiaries', { name: 'Again', address: payee.address });
    expect(twice.status, JSON.stringify(twice.body)).toBe(409);

    expectBadAddress(await walletApi(w, 'POST', '/beneficiaries', { name: 'evm', address: evmForm(newWallet().address) }));
    expectBadAddress(await walletApi(w, 'POST', '/beneficiaries', { name: 'zero', address: ZERO }));
    expectBadAddress(
      await walletApi(w, 'POST', '/beneficiaries', {
        name: 'typo',
        address: payee.address.slice(0, -1) + (payee.address.endsWith('a') ? 'b' : 'a'),
      }),
    );
  });

  it('withdrawals: an EVM address and the zero address are 400s and write nothing', async () => {
    const before = (await walletApi(w, 'GET', '/transactions?limit=100')).body.data.length;
    const evm = await walletApi(w, 'POST', '/withdraw', { assetId: w.usdtId, address: evmForm(newWallet().address), amount: '1' });
    expectBadAddress(evm);
    // The answer says what a Tron address looks like, not EVM's checksum rule.
    expect(evm.body.message).toMatch(/not a valid Tron address .*base58check T…/);
    expect(evm.body.message).not.toMatch(/EIP-55/);
    expectBadAddress(await walletApi(w, 'POST', '/withdraw', { assetId: w.trxId, address: ZERO, amount: '1' }));
    expectBadAddress(
      await walletApi(w, 'POST', '/withdraw/network-fee', { assetId: w.trxId, address: evmForm(newWallet().address), amount: '1' }),
    );
    expect((await walletApi(w, 'GET', '/transactions?limit=100')).body.data.length).toBe(before);
  });

  it('with a whitelisted beneficiary, only it can be paid: another address is 422 NOT_WHITELISTED; its hex form is paid, T… in the record', async () => {
    const listed = newWallet();
    const b = await walletApi(w, 'POST', '/beneficiaries', { name: 'Listed', address: listed.address, isWhitelisted: true });
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    try {
      const off = await walletApi(w, 'POST', '/withdraw', { assetId: w.usdtId, address: newWallet().address, amount: '1' });
      expect(off.status, JSON.stringify(off.body)).toBe(422);
      expect(off.body.error).toBe('NOT_WHITELISTED');
      const usdtBefore = await usdtOf(w.wallet.address);
      const ok = await walletApi(w, 'POST', '/withdraw', { assetId: w.usdtId, address: listed.hex, amount: '1.5' });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body.data.recipientAddress).toBe(listed.address);
      const done = await settled(w, ok.body.data.id);
      expect(done).toMatchObject({ status: 'SUCCESS', recipientAddress: listed.address });
      expect(await usdtOf(listed.address)).toBe(1_500_000n);
      expect(await usdtOf(w.wallet.address)).toBe(usdtBefore - 1_500_000n);
    } finally {
      // Later tests pay other addresses.
      await walletApi(w, 'DELETE', `/beneficiaries/${b.body.data.id}`);
    }
  });
});

/** The address with one letter's case swapped (the last letter that has another case). */
function caseLookAlike(address: string): string {
  let i = address.length - 1;
  while (address[i]!.toLowerCase() === address[i]!.toUpperCase()) i--;
  const c = address[i]!;
  return `${address.slice(0, i)}${c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()}${address.slice(i + 1)}`;
}

describe('the whitelist compares base58 addresses exactly', () => {
  it('a case look-alike of a whitelisted address is refused, written nowhere, paid nothing; the listed address itself is paid', async () => {
    const listed = newWallet();
    const lookAlike = caseLookAlike(listed.address);
    expect(lookAlike.toLowerCase()).toBe(listed.address.toLowerCase());
    expect(lookAlike).not.toBe(listed.address);
    const b = await walletApi(w, 'POST', '/beneficiaries', { name: 'Listed', address: listed.address, isWhitelisted: true });
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    try {
      const before = (await walletApi(w, 'GET', '/transactions?limit=100')).body.data.length;
      // Base58check: the look-alike's checksum fails, so it names no account (a 400), never the listed one.
      for (const assetId of [w.usdtId, w.trxId])
        expectBadAddress(await walletApi(w, 'POST', '/withdraw', { assetId, address: lookAlike, amount: '1' }));
      expect((await walletApi(w, 'GET', '/transactions?limit=100')).body.data.length).toBe(before);
      expect(await usdtOf(listed.address)).toBe(0n);
      const ok = await walletApi(w, 'POST', '/withdraw', { assetId: w.usdtId, address: listed.address, amount: '0.25' });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(await settled(w, ok.body.data.id)).toMatchObject({ status: 'SUCCESS', recipientAddress: listed.address });
    } finally {
      await walletApi(w, 'DELETE', `/beneficiaries/${b.body.data.id}`);
    }
  });
});

describe('key import', () => {
  it('an outside address given in hex with its key: T… answered, exported on request; a wrong key or an EVM address is a 400', async () => {
    const outside = await fundedWallet(w.s, 20_000_000);
    const wrong = await walletApi(w, 'POST', '/addresses/whitelist', { address: outside.hex, privateKey: newWallet().privateKey });
    expectBadAddress(wrong, 'privateKey');
    expectBadAddress(
      await walletApi(w, 'POST', '/addresses/whitelist', { address: evmForm(outside.address), privateKey: outside.privateKey }),
    );

    const res = await walletApi(w, 'POST', '/addresses/whitelist', {
      address: outside.hex,
      privateKey: outside.privateKey,
      disableAutoSweep: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ address: outside.address, type: 'EXTERNAL' });
    expect(JSON.stringify(res.body)).not.toContain(outside.privateKey);
    const shown = await walletApi(w, 'GET', `/addresses/${res.body.data.id}?showPrivateKey=true`);
    expect(shown.status).toBe(200);
    expect(shown.body.data.privateKey.replace(/^0x/, '')).toBe(outside.privateKey);

    // As on EVM, an imported address is swept, not sent from: the withdrawal routes need a derived child.
    const sent = await walletApi(w, 'POST', `/addresses/${res.body.data.id}/withdraw`, {
      assetId: w.trxId,
      address: newWallet().address,
      amount: '5',
    });
    expect(sent.status).toBe(422);
    expect(sent.body.error).toBe('NO_PRIVATE_KEY');
    expect(await trxOf(outside.address)).toBe(20_000_000n);
  });
});

describe('history and webhooks', () => {
  it('list and get: T… addresses, java-tron transaction ids, type and status filters; the webhook carries the same', async () => {
    const to = newWallet();
    const sent = await walletApi(w, 'POST', '/withdraw', {
      assetId: w.trxId,
      address: to.address,
      amount: '0.25',
      reference: 'tron-history-1',
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const done = await settled(w, sent.body.data.id);
    expect(done.hash).toMatch(/^[0-9a-f]{64}$/);
    expect((await info(w.s, done.hash)).id).toBe(done.hash);

    const list = await walletApi(w, 'GET', '/transactions?type=WITHDRAW&status=SUCCESS&limit=100');
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    const row = (list.body.data as Record<string, any>[]).find((t) => t.id === done.id);
    expect(row).toMatchObject({
      hash: done.hash,
      senderAddress: w.wallet.address,
      recipientAddress: to.address,
      amount: '0.25',
      reference: 'tron-history-1',
    });
    for (const t of list.body.data as Record<string, any>[]) {
      expect(t.senderAddress).toMatch(/^T/);
      expect(t.recipientAddress).toMatch(/^T/);
    }
    expect((await txOf(w, done.id)).hash).toBe(done.hash);
    const [event] = await events(w, done.id, 'withdraw.success');
    expect(event!.data).toMatchObject({ hash: done.hash, senderAddress: w.wallet.address, recipientAddress: to.address, amount: '0.25' });
  });
});

describe('auto-settlement', () => {
  it('a USDT deposit to a child with a move rule goes to the destination from the child; the master funds its fee in TRX', async () => {
    const made = await walletApi(w, 'POST', '/addresses', { disableAutoSweep: true });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const child = made.body.data as { id: string; address: string };
    expect((await walletApi(w, 'PATCH', '/auto-settlements', { isActive: true })).status).toBe(200);
    const dest = newWallet();
    const rule = await walletApi(w, 'POST', `/addresses/${child.id}/auto-settlements/rules`, {
      name: 'to treasury',
      order: 'RECOMMENDED',
      slippageTolerance: '1',
      source: { assets: ['USDT'], blockchain: w.slug, minAmount: '0', maxAmount: null },
      // The destination in java-tron's hex: stored as T….
      destination: { asset: 'USDT', address: dest.hex, blockchain: w.slug },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(200);
    expect(JSON.stringify(rule.body.data)).toContain(dest.address);
    const evmRule = await walletApi(w, 'POST', `/addresses/${child.id}/auto-settlements/rules`, {
      name: 'evm',
      source: { assets: ['USDT'], blockchain: w.slug },
      destination: { asset: 'USDT', address: evmForm(dest.address), blockchain: w.slug },
    });
    expect(evmRule.status).toBe(400);

    const payer = await fundedWallet(w.s, 200_000_000, { USDT: 50_000_000n });
    const masterBefore = await trxOf(w.wallet.address);
    const paid = await sendToken(w.s, payer, w.usdt, child.address, 9_876_543n);
    expect(paid.result, JSON.stringify(paid)).toBe(true);
    const indexer = w.h.services.deposits.indexer(w.h.services.catalogue.findChain(w.slug, 'testnet')!);
    const settlement = await eventually(
      async () => {
        await indexer.step();
        const { rows } = await sql<{ status: string; stage: string; settle_transaction_id: string | null; error: string | null }>`
          SELECT s.status, s.stage, s.settle_transaction_id, s.error FROM auto_settlements s
            JOIN transactions d ON d.id = s.deposit_id WHERE d.hash = ${paid.txid}`.execute(w.h.database.db);
        return rows;
      },
      (rows) => rows[0] !== undefined && rows[0].status !== 'pending',
      50_000,
    );
    expect(settlement[0], JSON.stringify(settlement)).toMatchObject({ status: 'success', stage: 'done' });
    const t = await txOf(w, settlement[0]!.settle_transaction_id!);
    expect(t).toMatchObject({
      type: 'AUTO_SETTLEMENT',
      status: 'SUCCESS',
      amount: '9.876543',
      senderAddress: child.address,
      recipientAddress: dest.address,
    });
    expect(await usdtOf(dest.address)).toBe(9_876_543n);
    expect(await usdtOf(child.address)).toBe(0n);
    // The master sent the child TRX for its fee (and its activation); the child burned its fee.
    const topup = masterBefore - (await trxOf(w.wallet.address));
    expect(topup).toBeGreaterThan(0n);
    const fee = BigInt((await info(w.s, t.hash)).fee ?? 0);
    expect(units(t.fee)).toBe(fee);
    expect(await trxOf(child.address)).toBeLessThanOrEqual(topup - fee);
    await events(w, t.id, 'auto-settlement.success');
  });
});
