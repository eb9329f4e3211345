/**
 * Sweeps on Solana, end to end through HTTP, the worker and the real indexer, on the
 * validator stand-in: a child's USDC (and SOL) swept to the master with the master as fee
 * payer (no top-up: the child never holds SOL), the master's token account created when
 * missing (its rent in the sweep's fee), and, where the chain's `sweepCloseAccounts` allows
 * it, the child's emptied token account closed with its rent back to the master, shown in
 * the record and the webhook; a later deposit's sender creates the account again and the
 * deposit is found and swept.
 */
import type { TxIntent } from '../../../src/chains/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { verifyWebhook } from '../../../packages/sdk/src/webhooks/index.js';
import { startReceiver, type Receiver } from '../../support/receiver.js';
import { eventually } from '../../support/fixtures.js';
import {
  CLOSE,
  OPEN,
  TOKEN_ACCOUNT_RENT,
  confirmed,
  feeOf,
  lamports,
  lamportsOf,
  newChild,
  newWallet,
  sendSol,
  sendUsdc,
  startSweepWorld,
  swept,
  sweepRows,
  tokenAccountOf,
  usdcOf,
  type SolWallet,
  type SweepWorld,
} from './sweep-world.js';

let w: SweepWorld;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  w = await startSweepWorld();
}, 60_000);
afterAll(async () => {
  await w?.stop();
  await receiver?.close();
});

async function sweptEvent(wallet: SolWallet, id: string) {
  const read = async () =>
    receiver.requests
      .filter((r) => r.body.includes(id))
      .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey: wallet.apiKey, replay: false }))
      .filter((e) => e.event === 'deposit.swept.success' && e.data.id === id);
  return (await eventually(read, (list) => list.length >= 1, 20_000))[0]!;
}

describe('a USDC sweep on Solana, the master paying every fee', () => {
  it("needs no top-up: the child only signs as owner, the master's token account is created, the fee recorded is what the master paid", async () => {
    const wallet = await newWallet(w, OPEN, 2_000_000_000n, receiver.url);
    const child = await newChild(w, wallet);
    expect(await tokenAccountOf(w, wallet.address)).toBeNull();
    const masterBefore = await lamportsOf(w, wallet.address);
    const id = await confirmed(w, OPEN, await sendUsdc(w, child.address, 7_654_321n));
    expect(await lamportsOf(w, child.address)).toBe(0n);

    const done = await swept(w, wallet, id);
    expect(done.assetSwept, JSON.stringify(done.assetSweptResponse)).toBe(true);
    const rows = await sweepRows(w, id);
    // One transaction: no top-up, the master named as fee payer on the child's transfer.
    expect(rows.map((r) => [r.purpose, r.stage, r.from_address, r.fee_payer])).toEqual([['sweep', 'mined', child.address, wallet.address]]);
    const chainTx = await feeOf(w, rows[0]!.hash!);
    expect(chainTx.feePayer).toBe(wallet.address);
    expect(chainTx.signers).toEqual([wallet.address, child.address]);

    // Exactly the deposit on the master; the child holds no USDC and never held SOL.
    expect(await usdcOf(w, wallet.address)).toBe(7_654_321n);
    expect(await usdcOf(w, child.address)).toBe(0n);
    expect(await lamportsOf(w, child.address)).toBe(0n);
    // Not closed by default: the child's account stays for the next deposit.
    expect(await tokenAccountOf(w, child.address)).toBe(TOKEN_ACCOUNT_RENT);
    // The fee recorded is what the master paid: the transaction's fee and the new account's rent.
    const paid = masterBefore - (await lamportsOf(w, wallet.address));
    expect(paid).toBe(chainTx.fee + TOKEN_ACCOUNT_RENT);
    expect(lamports(done.assetSweptGasFee)).toBe(paid);
    expect(done).toMatchObject({ assetSweptAmount: '7.654321', assetSweptHash: rows[0]!.hash, assetSweptSenderAddress: child.address });
    expect(done.assetSweptRecipientAddress).toBe(wallet.address);
    expect(done.assetSweptResponse).toMatchObject({ status: 'success', rentPaid: TOKEN_ACCOUNT_RENT.toString() });
    expect(done.assetSweptResponse.rentReclaimed).toBeUndefined();
    expect(done.assetSweptResponse.topupHash).toBeNull();
    const event = await sweptEvent(wallet, id);
    expect(event.data).toMatchObject({ assetSwept: true, assetSweptHash: rows[0]!.hash, assetSweptGasFee: done.assetSweptGasFee });
    expect(event.data.assetSweptResponse).toMatchObject({ rentPaid: TOKEN_ACCOUNT_RENT.toString() });

    // The master's account exists now: the next sweep costs the fee alone.
    const child2 = await newChild(w, wallet);
    const before2 = await lamportsOf(w, wallet.address);
    const id2 = await confirmed(w, OPEN, await sendUsdc(w, child2.address, 1_000_000n));
    const done2 = await swept(w, wallet, id2);
    expect(done2.assetSwept).toBe(true);
    const [row2] = await sweepRows(w, id2);
    const paid2 = before2 - (await lamportsOf(w, wallet.address));
    expect(paid2).toBe((await feeOf(w, row2!.hash!)).fee);
    expect(lamports(done2.assetSweptGasFee)).toBe(paid2);
    expect(done2.assetSweptResponse.rentPaid).toBeUndefined();
    expect(await usdcOf(w, wallet.address)).toBe(8_654_321n);
    expect(await lamportsOf(w, child2.address)).toBe(0n);
  });

  it("sweeps a child's SOL whole: the master pays the fee, the child is left with nothing", async () => {
    const wallet = await newWallet(w, OPEN);
    const child = await newChild(w, wallet);
    const masterBefore = await lamportsOf(w, wallet.address);
    const id = await confirmed(w, OPEN, await sendSol(w, child.address, 1_500_000_000n));
    const done = await swept(w, wallet, id);
    expect(done.assetSwept, JSON.stringify(done.assetSweptResponse)).toBe(true);
    const rows = await sweepRows(w, id);
    expect(rows.map((r) => [r.purpose, r.stage, r.fee_payer])).toEqual([['sweep', 'mined', wallet.address]]);
    const { fee } = await feeOf(w, rows[0]!.hash!);
    expect(await lamportsOf(w, child.address)).toBe(0n);
    expect(await lamportsOf(w, wallet.address)).toBe(masterBefore + 1_500_000_000n - fee);
    expect(done.assetSweptAmount).toBe('1.5');
    expect(lamports(done.assetSweptGasFee)).toBe(fee);
  });
});

describe('closing the swept child token account (sweepCloseAccounts)', () => {
  it('gives the rent back to the master, shown apart from the fee; the next sender creates the account again and is swept', async () => {
    const wallet = await newWallet(w, CLOSE, 2_000_000_000n, receiver.url);
    const child = await newChild(w, wallet);
    // The master holds USDC already (its account exists): the sweep's only rent is the one reclaimed.
    await w.sol.control.mintTo(w.usdc, wallet.address, 1n);
    const masterBefore = await lamportsOf(w, wallet.address);
    const id = await confirmed(w, CLOSE, await sendUsdc(w, child.address, 3_000_000n));
    const done = await swept(w, wallet, id);
    expect(done.assetSwept, JSON.stringify(done.assetSweptResponse)).toBe(true);
    const [row] = await sweepRows(w, id);
    const { fee } = await feeOf(w, row!.hash!);
    expect(await tokenAccountOf(w, child.address)).toBeNull();
    expect(await lamportsOf(w, child.address)).toBe(0n);
    expect(await usdcOf(w, wallet.address)).toBe(3_000_001n);
    // The master paid the fee and got the child's account rent back.
    expect(await lamportsOf(w, wallet.address)).toBe(masterBefore - fee + TOKEN_ACCOUNT_RENT);
    expect(lamports(done.assetSweptGasFee)).toBe(fee);
    expect(done.assetSweptResponse).toMatchObject({ rentReclaimed: TOKEN_ACCOUNT_RENT.toString() });
    expect((await sweptEvent(wallet, id)).data.assetSweptResponse).toMatchObject({ rentReclaimed: TOKEN_ACCOUNT_RENT.toString() });

    // A later deposit: its sender creates the account again (paying its rent) and the indexer finds it.
    const payerBefore = await lamportsOf(w, w.payer.address);
    const again = await sendUsdc(w, child.address, 2_500_000n);
    const id2 = await confirmed(w, CLOSE, again);
    expect(payerBefore - (await lamportsOf(w, w.payer.address))).toBe((await feeOf(w, again)).fee + TOKEN_ACCOUNT_RENT);
    const done2 = await swept(w, wallet, id2);
    expect(done2.assetSwept, JSON.stringify(done2.assetSweptResponse)).toBe(true);
    expect(done2.assetSweptAmount).toBe('2.5');
    expect(await usdcOf(w, wallet.address)).toBe(5_500_001n);
    expect(await tokenAccountOf(w, child.address)).toBeNull();
    expect(await lamportsOf(w, child.address)).toBe(0n);

    // The rent the first sweep returned to the master (its fee payer) is the wallet's own
    // movement, not a SOL deposit, though the master's lamports rose (SOL is enabled here, and
    // the indexer has read past that sweep: it found the later deposit).
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM transactions WHERE type = 'DEPOSIT' AND hash = ${row!.hash}`.execute(w.h.database.db);
    expect(rows[0]!.n).toBe(0);
  });
});

describe('exactly once', () => {
  it('two sweep requests at once (and the job) make one sweep: one transaction, the deposit moved and paid for once', async () => {
    const wallet = await newWallet(w, OPEN);
    const child = await newChild(w, wallet, { disableAutoSweep: true });
    await w.sol.control.mintTo(w.usdc, wallet.address, 1n);
    const id = await confirmed(w, OPEN, await sendUsdc(w, child.address, 4_200_000n));
    const masterBefore = await lamportsOf(w, wallet.address);
    const addressId = (await w.h.database.db.selectFrom('transactions').select('address_id').where('id', '=', id).executeTakeFirstOrThrow())
      .address_id!;
    const assetId = (await w.h.database.db.selectFrom('transactions').select('asset_id').where('id', '=', id).executeTakeFirstOrThrow())
      .asset_id!;
    const ask = () =>
      w.h.api('POST', `/v1/wallets/${wallet.id}/transactions/sweep/assets`, { key: wallet.apiKey, body: { transactionId: id } });
    const [a, b, c] = await Promise.all([ask(), ask(), w.h.services.sweeps.sweepAddress(addressId, assetId)]);
    expect([a.status, b.status], JSON.stringify([a.body, b.body])).toEqual([200, 200]);
    expect(['started', 'in-flight']).toContain(c);
    const done = await swept(w, wallet, id);
    expect(done.assetSwept, JSON.stringify(done.assetSweptResponse)).toBe(true);
    const rows = await sweepRows(w, id);
    expect(rows.map((r) => [r.purpose, r.stage])).toEqual([['sweep', 'mined']]);
    const sweeps = await w.h.database.db.selectFrom('sweeps').select(['status']).where('address_id', '=', addressId).execute();
    expect(sweeps).toEqual([{ status: 'success' }]);
    expect(await usdcOf(w, wallet.address)).toBe(4_200_001n);
    expect(await usdcOf(w, child.address)).toBe(0n);
    expect(masterBefore - (await lamportsOf(w, wallet.address))).toBe((await feeOf(w, rows[0]!.hash!)).fee);
    // Asked again once swept: a clear 409, nothing sent.
    const again = await ask();
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('ALREADY_SWEPT');
  });
});

describe('when a sweep closes the token account', () => {
  it('only on a sweepCloseAccounts chain, only for a whole-balance transfer that still empties the account', async () => {
    const wallet = await newWallet(w, CLOSE);
    const child = await newChild(w, wallet, { disableAutoSweep: true });
    await w.sol.control.mintTo(w.usdc, child.address, 5_000_000n);
    await w.sol.control.produceSlots(2);
    const quote = async (slug: string, amount: bigint, wholeBalance: boolean) => {
      const adapter = w.h.services.catalogue.findChain(slug, 'testnet')!.adapter;
      const intent: TxIntent = { kind: 'token', from: child.address, token: w.usdc, to: wallet.address, amount, feePayer: wallet.address };
      return adapter.sender.quote(intent, {}, { fresh: true, wholeBalance });
    };
    expect((await quote(CLOSE, 5_000_000n, true)).fixed).toEqual({ closeSource: '1' });
    // Not all of it (a deposit arrived since the balance was read): the account stays open.
    expect((await quote(CLOSE, 4_999_999n, true)).fixed).toEqual({});
    expect((await quote(CLOSE, 5_000_000n, false)).fixed).toEqual({});
    expect((await quote(OPEN, 5_000_000n, true)).fixed).toEqual({});
    // Prepared later with the close asked for, after a deposit: the transfer goes without it.
    const adapter = w.h.services.catalogue.findChain(CLOSE, 'testnet')!.adapter;
    await w.sol.control.mintTo(w.usdc, child.address, 1n);
    const intent: TxIntent = {
      kind: 'token',
      from: child.address,
      token: w.usdc,
      to: wallet.address,
      amount: 5_000_000n,
      feePayer: wallet.address,
    };
    expect((await adapter.sender.prepare(intent, { closeSource: '1' })).closeSource).toBeUndefined();
    expect((await adapter.sender.prepare({ ...intent, amount: 5_000_001n }, { closeSource: '1' })).closeSource).toBe('1');
  });
});
