/**
 * A settlement from a Tron child needs the master to send the child TRX first (the
 * transfer's fee limit and bandwidth; the transfer also creates the child, 1.1 TRX more to
 * the master). That top-up is the master's spend: it must fit beside what the master's own
 * pending payouts hold, as a sweep's, a recovery's and a swap's top-up are judged. It was not
 * judged at all: with the master's TRX held by a payout waiting for approval, the settlement
 * sent the top-up anyway, and the approved payout then found too little TRX on chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { fundedWallet, post, sendToken } from '../../../src/devnet/tron/testkit.js';
import { mintKey } from '../../policies/world.js';
import { eventually } from '../../support/fixtures.js';
import { childOf, startTronWorld, txOf, walletApi, type TronWorld } from './world.js';

let w: TronWorld;
let approver: { id: string; apiKey: string };
beforeAll(async () => {
  w = await startTronWorld('tron-settle-master-topup', { chainId: 990_344, masterSun: 100_000_000 });
  const manager = await mintKey(w.h, 'manager', ['MANAGE_POLICIES']);
  approver = await mintKey(w.h, 'approver', ['APPROVE']);
  const p = await w.h.api('POST', '/v1/policies', {
    key: manager.apiKey,
    body: {
      name: 'TRX payouts need approval',
      priority: 10,
      walletId: w.wallet.id,
      conditions: { types: ['WITHDRAW'], assets: ['TRX'] },
      action: 'REQUIRE_APPROVAL',
      approval: { approvers: { apiKeys: [approver.id] }, quorum: 1, ttlSeconds: 3600 },
    },
  });
  expect(p.status, JSON.stringify(p.body)).toBe(200);
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

const trxOf = async (address: string) =>
  BigInt((await post<{ balance?: number }>(w.s, 'wallet/getaccount', { address, visible: true })).balance ?? 0);

describe("a child settlement's top-up and the master's payout held for approval", () => {
  it('the top-up is not sent out of TRX the payout holds: the settlement fails, the payout is paid', async () => {
    const child = await childOf(w);
    expect((await walletApi(w, 'PATCH', '/auto-settlements', { isActive: true })).status).toBe(200);
    const dest = await fundedWallet(w.s, 10_000_000, { USDT: 1_000_000n });
    const rule = await walletApi(w, 'POST', `/addresses/${child.id}/auto-settlements/rules`, {
      name: 'to treasury',
      source: { assets: ['USDT'], blockchain: w.slug },
      destination: { asset: 'USDT', address: dest.address, blockchain: w.slug },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(200);

    // A payout of all the master's TRX but 1 TRX (and its fee), waiting for approval.
    const recipient = await fundedWallet(w.s, 1_000_000);
    const master = await trxOf(w.wallet.address);
    const amount = master - 1_000_000n - 1_000_000n;
    const res = await walletApi(w, 'POST', '/withdraw', {
      assetId: w.trxId,
      address: recipient.address,
      amount: (Number(amount) / 1e6).toFixed(6),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.status).toBe('PENDING_APPROVAL');
    const payoutId = res.body.data.id as string;

    // A USDT deposit to the child: its settlement needs a top-up of several TRX (fee limit, bandwidth, activation).
    const indexer = w.h.services.deposits.indexer(w.h.services.catalogue.findChain(w.slug, 'testnet')!);
    for (let i = 0; i < 1000 && (await indexer.step()) !== 'idle'; i++);
    const payer = await fundedWallet(w.s, 200_000_000, { USDT: 50_000_000n });
    const paid = await sendToken(w.s, payer, w.usdt, child.address, 9_000_000n);
    expect(paid.result, JSON.stringify(paid)).toBe(true);
    await w.s.control.produceBlocks(25);
    const settlementOf = async () => {
      const { rows } = await sql<{ id: string; status: string; stage: string; error: string | null }>`
        SELECT s.id, s.status, s.stage, s.error FROM auto_settlements s
          JOIN transactions d ON d.id = s.deposit_id WHERE d.hash = ${paid.txid}`.execute(w.h.database.db);
      return rows[0];
    };
    const planned = await eventually(
      async () => {
        await indexer.step();
        return settlementOf();
      },
      (s) => s !== undefined && s.stage !== 'queued',
      60_000,
    );
    const { rows: topups } = await sql<{ stage: string }>`
      SELECT stage FROM outbound_txs WHERE owner_id = ${planned!.id} AND purpose = 'autosettle-topup'`.execute(w.h.database.db);
    expect({ status: planned!.status, topups: topups.length }, JSON.stringify(planned)).toEqual({ status: 'failed', topups: 0 });
    expect(planned!.error).toMatch(/master address first sends/);

    // Approved, the payout finds its TRX and is paid.
    const voted = await w.h.api('POST', `/v1/approvals/${payoutId}/approve`, { key: approver.apiKey, body: {} });
    expect(voted.status, JSON.stringify(voted.body)).toBe(200);
    const done = await eventually(
      () => txOf(w, payoutId),
      (t) => t.status === 'SUCCESS' || t.status === 'FAILED',
      60_000,
    );
    expect(done.status, JSON.stringify(done)).toBe('SUCCESS');
    expect(await trxOf(recipient.address)).toBe(1_000_000n + amount);
  }, 180_000);
});
