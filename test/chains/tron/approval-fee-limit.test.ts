/**
 * A Tron TRC-20 payout held for approval is signed, once approved, with a fee limit estimated
 * then, within the fee its acceptance reserved:
 * - the recipient emptied its USDT while it waited, so the call writes to a zero balance
 *   and needs more energy than at acceptance. It was signed with the acceptance's fee limit
 *   (stored as if the client had fixed it) and ran out of energy on chain, its fee burned;
 * - the energy price rose while it waited: the limit estimated then was signed whatever the
 *   acceptance had reserved, so the payout could burn TRX held for other payouts. It is now
 *   lowered to fit the reserved fee, and a payout whose energy no longer fits fails unsigned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { newWallet, post, sendToken, tokenBalance } from '../../../src/devnet/tron/testkit.js';
import type { TronSender } from '../../../src/chains/tron/sender.js';
import { mintKey } from '../../policies/world.js';
import { eventually } from '../../support/fixtures.js';
import { startTronWorld, txOf, walletApi, type TronWorld } from './world.js';

let w: TronWorld;
let approver: { id: string; apiKey: string };
beforeAll(async () => {
  w = await startTronWorld('tron-approval-limit');
  const manager = await mintKey(w.h, 'manager', ['MANAGE_POLICIES']);
  approver = await mintKey(w.h, 'approver', ['APPROVE']);
  const p = await w.h.api('POST', '/v1/policies', {
    key: manager.apiKey,
    body: {
      name: 'USDT needs approval',
      priority: 10,
      walletId: w.wallet.id,
      conditions: { types: ['WITHDRAW'], assets: ['USDT'], amount: { min: '0.5', currency: 'ASSET' } },
      action: 'REQUIRE_APPROVAL',
      approval: { approvers: { apiKeys: [approver.id] }, quorum: 1, ttlSeconds: 3600 },
    },
  });
  expect(p.status, JSON.stringify(p.body)).toBe(200);
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

describe('approved Tron payout and its fee limit', () => {
  it('is signed with a fee limit that fits the call at approval time (not the acceptance-time one)', { timeout: 120_000 }, async () => {
    // A recipient holding USDT when the payout is accepted (the cheaper nonzero write).
    const to = newWallet();
    await w.s.control.fund(to.address, { trx: 50_000_000n, tokens: { USDT: 1_000_000n } });
    await w.s.control.produceBlocks(1);

    const res = await walletApi(w, 'POST', '/withdraw', { assetId: w.usdtId, address: to.address, amount: '1' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.data.id as string;
    expect(res.body.data.status).toBe('PENDING_APPROVAL');
    // Only what the client fixed is kept for the approval (nothing here): the rest is estimated then.
    const { rows } = await sql<{ n: unknown }>`SELECT send_network AS n FROM transactions WHERE id = ${id}`.execute(w.h.database.db);
    expect(rows[0]!.n).toEqual({});

    // While it waits, the recipient empties its USDT balance.
    const away = newWallet();
    expect((await sendToken(w.s, to, w.usdt, away.address, 1_000_000n)).result).toBe(true);
    await w.s.control.produceBlocks(1);
    expect(await tokenBalance(w.s, w.usdt, to.address)).toBe(0n);

    const voted = await w.h.api('POST', `/v1/approvals/${id}/approve`, { key: approver.apiKey, body: {} });
    expect(voted.status, JSON.stringify(voted.body)).toBe(200);
    const done = await eventually(
      () => txOf(w, id),
      (t) => t.status === 'SUCCESS' || t.status === 'FAILED',
      60_000,
    );
    expect(done.status).toBe('SUCCESS');
    expect(await tokenBalance(w.s, w.usdt, to.address)).toBe(1_000_000n);
  });
  /** The master's TRX, in sun, as the node reports it. */
  const trxOf = async (address: string) =>
    BigInt((await post<{ balance?: number }>(w.s, 'wallet/getaccount', { address, visible: true })).balance ?? 0);

  /**
   * A USDT payout to a fresh address accepted at today's energy price, the price then set to
   * `percent` of it (a governance change) and seen by the service (any fresh quote reads it;
   * here the sender's own fresh read), then approved. Returns the payout once it ends.
   */
  async function approvedAfterPriceChange(percent: number) {
    const res = await walletApi(w, 'POST', '/withdraw', { assetId: w.usdtId, address: newWallet().address, amount: '1' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.data.id as string;
    expect(res.body.data.status).toBe('PENDING_APPROVAL');
    const { rows } = await sql<{ r: string }>`SELECT reserved_fee AS r FROM transactions WHERE id = ${id}`.execute(w.h.database.db);
    const reserved = BigInt(rows[0]!.r);
    const before = w.s.params.energyFee;
    const sender = w.h.services.catalogue.findChain(w.slug, 'testnet')!.adapter.sender as unknown as TronSender;
    const trxBefore = await trxOf(w.wallet.address);
    try {
      w.s.params.energyFee = (before * percent) / 100;
      await sender.chainFees({ fresh: true });
      const voted = await w.h.api('POST', `/v1/approvals/${id}/approve`, { key: approver.apiKey, body: {} });
      expect(voted.status, JSON.stringify(voted.body)).toBe(200);
      const done = await eventually(
        () => txOf(w, id),
        (t) => t.status === 'SUCCESS' || t.status === 'FAILED',
        60_000,
      );
      await w.s.control.produceBlocks(1);
      return { done, reserved, spent: trxBefore - (await trxOf(w.wallet.address)), id };
    } finally {
      w.s.params.energyFee = before;
      await sender.chainFees({ fresh: true });
    }
  }

  it('a price rise the reserved fee still covers: signed with a fee limit lowered to fit it, and paid', { timeout: 120_000 }, async () => {
    const { done, reserved, spent, id } = await approvedAfterPriceChange(110);
    expect(done.status).toBe('SUCCESS');
    // What the transaction could burn (its fee limit and bandwidth) is within what was held.
    const { rows } = await sql<{ n: { fee: string; feeLimit: string } }>`
      SELECT network_data AS n FROM outbound_txs WHERE owner_id = ${id} AND hash IS NOT NULL`.execute(w.h.database.db);
    expect(rows).toHaveLength(1);
    expect(BigInt(rows[0]!.n.fee)).toBeLessThanOrEqual(reserved);
    expect(spent).toBeGreaterThan(0n);
    expect(spent).toBeLessThanOrEqual(reserved);
  });

  it('a price rise beyond the reserved fee: the payout fails unsigned, nothing burned', { timeout: 120_000 }, async () => {
    const { done, reserved, spent } = await approvedAfterPriceChange(200);
    expect(done.status).toBe('FAILED');
    expect(done.reason).toContain(`more than the ${reserved} sun reserved`);
    expect(done.hash ?? null).toBeNull();
    expect(spent).toBe(0n);
  });
});
