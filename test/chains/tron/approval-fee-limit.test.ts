/**
 * A Tron TRC-20 payout held for approval is signed, once approved, with a fee limit estimated
 * then: the recipient emptied its USDT while it waited, so the call writes to a zero balance
 * and needs more energy than at acceptance. It was signed with the acceptance's fee limit
 * (stored as if the client had fixed it) and ran out of energy on chain, its fee burned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { newWallet, sendToken, tokenBalance } from '../../../src/devnet/tron/testkit.js';
import { mintKey } from '../../policies/world.js';
import { eventually } from '../../support/fixtures.js';
import { startTronWorld, txOf, walletApi, type TronWorld } from './world.js';

let w: TronWorld;
beforeAll(async () => {
  w = await startTronWorld('tron-approval-limit');
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

describe('approved Tron payout and its fee limit', () => {
  it('is signed with a fee limit that fits the call at approval time (not the acceptance-time one)', { timeout: 120_000 }, async () => {
    const manager = await mintKey(w.h, 'manager', ['MANAGE_POLICIES']);
    const approver = await mintKey(w.h, 'approver', ['APPROVE']);
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
});
