/**
 * A Tron sweep with energy lent holds at the master what its own steps burn (sweeps.master_fee:
 * the lend's and the give-back's bandwidth, a top-up's fee) while it is in flight. Once the lend
 * is mined, a balance read shows its fee paid; holding it still counted it twice, and a payout
 * of the master's TRX that leaves the give-back's fee was refused (422) until the sweep ended.
 * The top-up's and the lend's parts (migration 057) are let go once that step is mined before
 * the balance read. The worker is off: each row is driven by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { TronStandIn } from '../../../src/devnet/tron/index.js';
import { fundedWallet, post, sendToken, sendTrx, startForTest, type Wallet } from '../../../src/devnet/tron/testkit.js';
import type { Harness } from '../../support/harness.js';
import { eventually } from '../../support/fixtures.js';
import { createTronWallet, startTronService, tronChain, type TronWallet } from './world.js';
import { hex, stakeForEnergy, type SweepWorld } from './sweep-world.js';

let s: TronStandIn;
let h: Harness;
let wallet: TronWallet;
let payer: Wallet;
const SLUG = 'tron-sweep-master-fees-spent';

beforeAll(async () => {
  s = await startForTest({ blockTimeMs: 100 });
  h = await startTronService([tronChain(s, SLUG, 990_353)], false);
  wallet = await createTronWallet(h, s, SLUG, { trx: 10_100_000_000, usdt: 1_000_000n });
  await s.control.produceBlocks(1);
  await stakeForEnergy({ s, h } as SweepWorld, wallet, 10_000_000_000);
  payer = await fundedWallet(s, 10_000_000_000, { USDT: 1_000_000_000n });
}, 90_000);
afterAll(async () => {
  await h?.stop();
  await s?.stop();
});

const base = () => `/v1/wallets/${wallet.id}`;
const trxOf = async (address: string) => BigInt((await post(s, 'wallet/getaccount', { address: hex(address) })).balance ?? 0);

async function settle(id: string) {
  await h.services.outbound.send(id).catch(() => undefined);
  return eventually(
    async () => {
      await h.services.outbound.track(id).catch(() => undefined);
      return (await h.services.outbound.get(id))!;
    },
    (r) => !['created', 'signed', 'broadcast'].includes(r.stage),
    30_000,
  );
}
async function sweepRows(sweepId: string) {
  const { rows } = await sql<{ id: string; purpose: string; stage: string }>`
    SELECT id, purpose, stage FROM outbound_txs WHERE owner_id = ${sweepId} ORDER BY created_at, id`.execute(h.database.db);
  return rows;
}
/** Sends and settles every unsent row of the owner, one by one. */
async function drive(ownerId: string) {
  for (let i = 0; i < 6; i++) {
    const next = (await sweepRows(ownerId)).find((r) => ['created', 'signed', 'broadcast'].includes(r.stage));
    if (!next) return;
    await settle(next.id);
  }
}
async function payout(amount: bigint) {
  return h.api('POST', `${base()}/withdraw`, {
    key: wallet.apiKey,
    body: { assetId: wallet.trxId, address: payer.address, amount: (Number(amount) / 1e6).toFixed(6) },
  });
}
/** The quoted fee of a TRX payout of about `amount` to the payer (its bytes grow with the amount). */
async function payoutFee(amount: bigint): Promise<bigint> {
  const res = await h.api('POST', `${base()}/withdraw/network-fee`, {
    key: wallet.apiKey,
    body: { assetId: wallet.trxId, address: payer.address, amount: (Number(amount) / 1e6).toFixed(6) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return BigInt(Math.round(Number(res.body.data.networkFee) * 1e6));
}
/** Spends the master's free bandwidth of the day: its lend and give-back then burn TRX. */
async function spendMasterFreeBandwidth() {
  for (let i = 0; i < 4; i++) {
    const r = await post(s, 'wallet/getaccountresource', { address: hex(wallet.address) });
    if ((r.freeNetLimit ?? 0) - (r.freeNetUsed ?? 0) < 200) return;
    const res = await payout(1_000_000n);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await drive(res.body.data.id);
  }
}
/** An active child (someone sent it 1 TRX) holding a confirmed USDT deposit; returns the deposit's id. */
async function childWithDeposit(): Promise<string> {
  const res = await h.api('POST', `${base()}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const child = (res.body.data as { address: string }).address;
  expect((await sendTrx(s, payer, child, 1_000_000)).result).toBe(true);
  const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(SLUG, 'testnet')!);
  while ((await indexer.step()) === 'progress');
  const sent = await sendToken(s, payer, s.tokens[0]!.address, child, 5_000_000n);
  expect(sent.result, JSON.stringify(sent)).toBe(true);
  const rows = await eventually(
    async () => {
      await indexer.step();
      const { rows } = await sql<{ id: string; status: string }>`
        SELECT id, status FROM transactions WHERE type = 'DEPOSIT' AND hash = ${sent.txid as string}`.execute(h.database.db);
      return rows;
    },
    (r) => r[0]?.status === 'SUCCESS',
    90_000,
  );
  return rows[0]!.id;
}
async function sweepOf(depositId: string) {
  const { rows } = await sql<{ sweep_id: string | null }>`SELECT sweep_id FROM transactions WHERE id = ${depositId}`.execute(h.database.db);
  return rows[0]!.sweep_id;
}

describe("a Tron sweep's fees at the master, once spent", () => {
  it("the lend mined (its bandwidth burned, the balance shows it): only the give-back's fee is still held", async () => {
    await spendMasterFreeBandwidth();
    const deposit = await childWithDeposit();
    const swept = await h.api('POST', `${base()}/transactions/sweep/assets`, { key: wallet.apiKey, body: { transactionId: deposit } });
    expect(swept.status, JSON.stringify(swept.body)).toBe(200);
    const sweep = (await sweepOf(deposit))!;
    const { rows } = await sql<{ master_fee: string }>`SELECT master_fee::text FROM sweeps WHERE id = ${sweep}`.execute(h.database.db);
    const masterFee = BigInt(rows[0]!.master_fee);
    // The lend and the transfer mined; the give-back not sent yet.
    const [lendRow] = await sweepRows(sweep);
    expect((await settle(lendRow!.id)).stage).toBe('mined');
    const transferRow = (await sweepRows(sweep)).find((r) => r.purpose === 'sweep')!;
    expect((await settle(transferRow.id)).stage).toBe('mined');
    expect((await sweepRows(sweep)).map((r) => [r.purpose, r.stage])).toEqual([
      ['sweep-lend', 'mined'],
      ['sweep', 'mined'],
      ['sweep-give-back', 'created'],
    ]);
    // All the master's TRX but the payout's fee and the give-back's (half the two steps' fees, and a margin).
    const balance = await trxOf(wallet.address);
    const amount = balance - (await payoutFee(balance)) - masterFee / 2n - 50_000n;
    const ok = await payout(amount);
    expect(ok.status, `${masterFee} ${JSON.stringify(ok.body)}`).toBe(200);
    await drive(sweep);
    await drive(ok.body.data.id);
    expect((await sweepRows(sweep)).map((r) => r.stage)).toEqual(['mined', 'mined', 'mined']);
  }, 240_000);
});
