/**
 * A Tron asset recovery from a child that borrows the master's staked energy costs the master
 * two small transactions of its own, the lend (delegateresource) and the give-back
 * (undelegateresource), their bandwidth burned once the master's free bytes of the day are
 * spent; a top-up that activates the child costs it 1.1 TRX beyond the top-up's value. Those
 * are the master's spends, as a sweep's are (sweep-master-fees.test.ts): a payout of all the
 * master's TRX accepted while such a recovery is under way must leave them, and a recovery
 * asked for beside such a payout is refused, even with no top-up to send. Otherwise one of the
 * two is refused on chain and waits, unsent, until the master is refilled: the payout PENDING,
 * or the loan out. The worker is off: each row is driven by hand.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { TronStandIn } from '../../../src/devnet/tron/index.js';
import { fundedWallet, newWallet, sendTrx, startForTest, type Wallet } from '../../../src/devnet/tron/testkit.js';
import type { Harness } from '../../support/harness.js';
import { startTronService, tronChain, type TronWallet } from './world.js';
import { masterFeeKit, stakedMaster } from './master-fee-kit.js';

let s: TronStandIn;
let h: Harness;
let wallet: TronWallet;
let payer: Wallet;
const SLUG = 'tron-salvage-master-fees';

beforeAll(async () => {
  s = await startForTest({ blockTimeMs: 100 });
  h = await startTronService([tronChain(s, SLUG, 990_316)], false);
  payer = await fundedWallet(s, 10_000_000_000);
}, 90_000);
// Each case on a wallet of its own, its master staked for energy: none sees another's payouts.
beforeEach(async () => {
  wallet = await stakedMaster(s, h, SLUG);
}, 90_000);
afterAll(async () => {
  await h?.stop();
  await s?.stop();
});

const { base, trxOf, ownRows, drive, payout, payoutFee, spendMasterFreeBandwidth } = masterFeeKit(() => ({
  s,
  h,
  slug: SLUG,
  wallet,
  payer,
}));
/** A child holding 2.5 of the stand-in's USDC (a TRC-20 this chain does not list); active when `active` (someone sent it 1 TRX). */
async function childWithToken(active: boolean): Promise<string> {
  const res = await h.api('POST', `${base()}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const child = (res.body.data as { address: string }).address;
  if (active) expect((await sendTrx(s, payer, child, 1_000_000)).result).toBe(true);
  await s.control.fund(child, { tokens: { USDC: 2_500_000n } });
  await s.control.produceBlocks(1);
  return child;
}
function recover(child: string) {
  const blockchainId = h.services.catalogue.findChain(SLUG, 'testnet')!.row.blockchain_id;
  return h.api('POST', `${base()}/salvage`, {
    key: wallet.apiKey,
    body: { senderAddress: child, recipientAddress: newWallet().address, amount: '2.5', blockchainId, tokenAddress: s.tokens[1]!.address },
  });
}
async function salvagesOf(child: string) {
  const { rows } = await sql<{ id: string }>`SELECT id FROM salvages WHERE sender = ${child}`.execute(h.database.db);
  return rows;
}
/** What the recovery holds at the master beyond its top-up's value (salvages.master_fee, migration 054). */
async function masterFeeOf(id: string) {
  const { rows } = await sql<{ master_fee: string | null }>`SELECT master_fee FROM salvages WHERE id = ${id}`.execute(h.database.db);
  return BigInt(rows[0]!.master_fee ?? 0);
}
async function statusOf(id: string) {
  return (await h.api('GET', `${base()}/transactions/${id}`, { key: wallet.apiKey })).body.data.status as string;
}

describe("a Tron recovery's lend and give-back fees at the master", () => {
  it('a payout of all the TRX accepted while the recovery (no top-up) is under way leaves them: both are made', async () => {
    expect(h.services.catalogue.findChain(SLUG, 'testnet')!.assets.map((a) => a.address)).not.toContain(s.tokens[1]!.address);
    await spendMasterFreeBandwidth();
    const child = await childWithToken(true);
    const res = await recover(child);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.data.id as string;
    // No top-up: the child is active and its free bandwidth pays the bytes; energy is lent.
    expect((await ownRows(id)).map((r) => r.purpose)).toEqual(['salvage-lend']);
    // The lend's and the give-back's bytes, burned: some TRX, under 1.
    const held = await masterFeeOf(id);
    expect(held > 0n && held < 1_000_000n, String(held)).toBe(true);

    // Everything the master holds but the payout's own fee: refused, the recovery's fees are held.
    const balance = await trxOf(wallet.address);
    const all = balance - (await payoutFee(balance));
    const refused = await payout(all);
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body.error, JSON.stringify(refused.body)).toBe('INSUFFICIENT_BALANCE');

    // What the lend and the give-back may burn (a few hundred bytes each) less: accepted, and both made.
    const ok = await payout(all - 1_000_000n);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    await drive(id);
    await drive(ok.body.data.id);
    await drive(id);
    expect((await ownRows(id)).map((r) => [r.purpose, r.stage])).toEqual([
      ['salvage-lend', 'mined'],
      ['salvage', 'mined'],
      ['salvage-give-back', 'mined'],
    ]);
    expect(await statusOf(id)).toBe('SUCCESS');
    expect(await statusOf(ok.body.data.id)).toBe('SUCCESS');
  }, 240_000);

  it('a recovery (no top-up) asked for beside a pending payout of all the TRX is refused: the payout is made', async () => {
    await spendMasterFreeBandwidth();
    const child = await childWithToken(true);
    const balance = await trxOf(wallet.address);
    const all = balance - (await payoutFee(balance));
    const res = await payout(all);
    expect(res.status, JSON.stringify(res.body)).toBe(200);

    // The recovery would lend energy: the lend and the give-back burn the master's TRX the payout holds.
    const refused = await recover(child);
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body.error, JSON.stringify(refused.body)).toBe('INSUFFICIENT_BALANCE');
    expect(await salvagesOf(child)).toEqual([]);

    await drive(res.body.data.id);
    expect(await statusOf(res.body.data.id)).toBe('SUCCESS');
  }, 240_000);

  it("a payout of all the TRX but the top-up accepted while the recovery is under way leaves the top-up's fee: both are made", async () => {
    await spendMasterFreeBandwidth();
    // Never held TRX: the top-up activates it, which burns 1 TRX (and its bytes) of the master's beyond its value.
    const child = await childWithToken(false);
    const res = await recover(child);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.data.id as string;
    const [topup] = await ownRows(id);
    expect(topup!.purpose).toBe('salvage-topup');
    // Activation (1 TRX burned, 0.1 for the new account's bytes) and the three transactions' bytes.
    const held = await masterFeeOf(id);
    expect(held > 1_100_000n && held < 2_500_000n, String(held)).toBe(true);

    // All but the top-up's value (held by its row) and the payout's fee: refused, its fee and the loan's are held.
    const balance = (await trxOf(wallet.address)) - BigInt(topup!.value);
    const all = balance - (await payoutFee(balance));
    const refused = await payout(all);
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body.error, JSON.stringify(refused.body)).toBe('INSUFFICIENT_BALANCE');

    // What activation (1.1 TRX) and the loan's two transactions may burn less: accepted, and both made.
    const ok = await payout(all - 2_500_000n);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    await drive(id);
    await drive(ok.body.data.id);
    await drive(id);
    expect((await ownRows(id)).map((r) => [r.purpose, r.stage])).toEqual([
      ['salvage-topup', 'mined'],
      ['salvage-lend', 'mined'],
      ['salvage', 'mined'],
      ['salvage-give-back', 'mined'],
    ]);
    expect(await statusOf(id)).toBe('SUCCESS');
    expect(await statusOf(ok.body.data.id)).toBe('SUCCESS');
  }, 240_000);
});
