/**
 * Approvals through the API: a payout a REQUIRE_APPROVAL rule holds is accepted
 * PENDING_APPROVAL with nothing signed and its amount held back; it proceeds only at the
 * quorum's second distinct approver, never on its initiator's vote; a rejection or its time
 * to live (a hand-moved clock) cancels it and releases what it held.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomAddress } from '../withdrawals/world.js';
import {
  ETH,
  eventsOf,
  footprint,
  fundedWallet,
  getTx,
  mintKey,
  policy,
  startPolicyWorld,
  vote,
  waitStatus,
  withdraw,
  type PolicyWorld,
} from './world.js';
import { eventually } from '../support/fixtures.js';
import { base32 } from '@scure/base';
import { totpAt } from '../../src/lib/totp.js';
import { createDashboardUser, csrfOf, DashClient } from '../dashboard/support.js';
import { importList, parseListFile } from '../../src/modules/aml/service.js';
import { LISTED, lookupUntil, SDN } from '../aml/support.js';

let w: PolicyWorld;

beforeAll(async () => {
  w = await startPolicyWorld();
}, 120_000);
afterAll(async () => {
  await w?.stop();
});

const approvalRule = (walletId: string, quorum: number, ttlSeconds = 3600) => ({
  name: `over 100 USDC needs ${quorum} approvals`,
  priority: 10,
  walletId,
  conditions: { types: ['WITHDRAW', 'BATCH_ITEM'], assets: ['USDC'], amount: { min: '100', currency: 'ASSET' } },
  action: 'REQUIRE_APPROVAL',
  approval: { approvers: { apiKeys: w.approvers.map((k) => k.id) }, quorum, ttlSeconds },
});

async function auditActions(approvalId: string): Promise<string[]> {
  const { rows } = await sql<{ action: string }>`SELECT action FROM audit_log WHERE target_id = ${approvalId} ORDER BY seq`.execute(
    w.h.database.db,
  );
  return rows.map((r) => r.action);
}

describe('approvals', () => {
  it('a 2-of-3 approval proceeds only at the second distinct approver', { timeout: 90_000 }, async () => {
    const wallet = await fundedWallet(w, '2-of-3', '500');
    const rule = await policy(w, approvalRule(wallet.id, 2));
    const to = randomAddress();

    const res = await withdraw(w, wallet, { assetId: w.usdc.id, address: to, amount: '150' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const tx = res.body.data;
    expect(tx).toMatchObject({ status: 'PENDING_APPROVAL', type: 'WITHDRAW', hash: null, confirmed: false, amount: '150' });
    // Nothing signed, no nonce, no outbound row.
    expect(await footprint(w, wallet.id)).toEqual({ transactions: 1, outbound: 0, approvals: 1 });
    await eventually(
      async () => eventsOf(w, tx.id),
      (e) => e.includes('withdraw.pending_approval'),
    );

    // Its amount is held back: 500 - 150 = 350 is all another withdrawal can take.
    const over = await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '350.000001' });
    expect(over.status).toBe(422);
    expect(over.body.error).toBe('INSUFFICIENT_BALANCE');

    const listed = await w.h.api('GET', `/v1/approvals?status=PENDING&walletId=${wallet.id}`, { key: w.h.businessKey });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);
    const approval = listed.body.data[0];
    expect(approval).toMatchObject({ status: 'PENDING', quorum: 2, approvals: 0, policy: { id: rule.id } });
    expect(approval.transaction.id).toBe(tx.id);
    expect(approval.initiator.type).toBe('API_KEY');

    // A business key without the APPROVE scope, and a wallet key, cannot vote.
    expect((await vote(w, w.h.businessKey, approval.id, 'approve')).body.error).toBe('NOT_AN_APPROVER');
    expect((await vote(w, wallet.apiKey, approval.id, 'approve')).status).toBe(403);

    const first = await vote(w, w.approvers[0], approval.id, 'approve', 'looks right');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject({ status: 'PENDING', approvals: 1 });
    // The same approver twice is one approver.
    const again = await vote(w, w.approvers[0], approval.id, 'approve');
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('ALREADY_VOTED');
    // The transaction id works as the request's id too.
    expect((await w.h.api('GET', `/v1/approvals/${tx.id}`, { key: w.h.businessKey })).body.data.approvals).toBe(1);
    expect((await getTx(w, wallet, tx.id)).status).toBe('PENDING_APPROVAL');
    expect((await footprint(w, wallet.id)).outbound).toBe(0);

    const second = await vote(w, w.approvers[1], approval.id, 'approve');
    expect(second.status).toBe(200);
    expect(second.body.data).toMatchObject({ status: 'APPROVED', approvals: 2 });
    expect(second.body.data.decidedAt).not.toBeNull();
    // Sent as any withdrawal: one outbound row, mined, the recipient paid once.
    const done = await waitStatus(w, wallet, tx.id, 'SUCCESS');
    expect(done.hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await w.eth.balanceOf('USDC', to)).toBe(150_000_000n);
    expect((await footprint(w, wallet.id)).outbound).toBe(1);
    // A third vote on a decided request.
    expect((await vote(w, w.approvers[2], approval.id, 'approve')).body.error).toBe('APPROVAL_CLOSED');
    expect(await auditActions(approval.id)).toEqual(['approval.requested', 'approval.approved', 'approval.approved']);
    await eventually(
      async () => eventsOf(w, tx.id),
      (e) => e.includes('withdraw.success'),
    );
  });

  it('a vote of a key revoked since counts no more: the quorum needs approvers who still may approve', { timeout: 90_000 }, async () => {
    const wallet = await fundedWallet(w, 'revoked-voter', '300');
    const gone = await mintKey(w.h, 'approver revoked later', ['APPROVE']);
    const rule = approvalRule(wallet.id, 2);
    await policy(w, { ...rule, approval: { ...rule.approval, approvers: { apiKeys: [gone.id, w.approvers[1].id, w.approvers[2].id] } } });
    const to = randomAddress();
    const res = await withdraw(w, wallet, { assetId: w.usdc.id, address: to, amount: '150' });
    expect(res.body.data?.status, JSON.stringify(res.body)).toBe('PENDING_APPROVAL');
    const id = res.body.data.id as string;

    expect((await vote(w, gone, id, 'approve')).body.data).toMatchObject({ status: 'PENDING', approvals: 1 });
    // The key is revoked (lost, or its holder left): what it approved is no approval any more.
    const revoked = await w.h.api('DELETE', `/v1/api-keys/${gone.id}`, { key: w.h.businessKey });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);

    const second = await vote(w, w.approvers[1], id, 'approve');
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.data).toMatchObject({ status: 'PENDING', approvals: 1 });
    expect((await getTx(w, wallet, id)).status).toBe('PENDING_APPROVAL');
    expect((await footprint(w, wallet.id)).outbound).toBe(0);

    // A second approver who still may approve: sent, once.
    const third = await vote(w, w.approvers[2], id, 'approve');
    expect(third.body.data).toMatchObject({ status: 'APPROVED', reason: 'approved by 2 of 2 required' });
    await waitStatus(w, wallet, id, 'SUCCESS');
    expect(await w.eth.balanceOf('USDC', to)).toBe(150_000_000n);
  });

  it('the initiator never approves its own request; one rejection cancels it and releases the funds', { timeout: 60_000 }, async () => {
    const wallet = await fundedWallet(w, 'self', '200');
    await policy(w, approvalRule(wallet.id, 1));
    // The first approver initiates (a business key reaches every wallet of its business).
    const res = await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '200' }, { key: w.approvers[0].apiKey });
    expect(res.status).toBe(200);
    const id = res.body.data.id as string;
    expect(res.body.data.status).toBe('PENDING_APPROVAL');

    for (const decision of ['approve', 'reject'] as const) {
      const self = await vote(w, w.approvers[0], id, decision);
      expect(self.status).toBe(403);
      expect(self.body.error).toBe('SELF_APPROVAL');
    }
    expect((await getTx(w, wallet, id)).status).toBe('PENDING_APPROVAL');

    const rejected = await vote(w, w.approvers[1], id, 'reject', 'unknown payee');
    expect(rejected.status).toBe(200);
    expect(rejected.body.data).toMatchObject({ status: 'REJECTED' });
    const t = await getTx(w, wallet, id);
    expect(t.status).toBe('CANCELLED');
    expect(t.reason).toContain('unknown payee');
    await eventually(
      async () => eventsOf(w, id),
      (e) => e.includes('withdraw.cancelled'),
    );
    expect(eventsOf(w, id)).not.toContain('withdraw.failed');
    // Released: the whole balance can go again (under the rule's threshold, so at once).
    const all = await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '99' });
    expect(all.body.data?.status).toBe('PENDING');
    const rest = await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '101' });
    expect(rest.body.data?.status).toBe('PENDING_APPROVAL');
  });

  it('a key that may approve makes no key or wallet: its holder would approve what they pay out', async () => {
    const approver = w.approvers[0].apiKey;
    const wallets = async () => (await w.h.api('GET', '/v1/wallets', { key: w.h.businessKey })).body.meta.totalItems as number;
    const before = await wallets();
    const minted = await w.h.api('POST', '/v1/api-keys', { key: approver, body: { name: 'would pay out' } });
    expect([minted.status, minted.body.error]).toEqual([403, 'APPROVER_KEY']);
    const wallet = await w.h.api('POST', '/v1/wallets', {
      key: approver,
      body: { blockchain: ETH, network: 'testnet', name: 'would pay out' },
    });
    expect([wallet.status, wallet.body.error]).toEqual([403, 'APPROVER_KEY']);
    expect(await wallets()).toBe(before);
    const plain = await w.h.api('POST', '/v1/api-keys', { key: w.h.businessKey, body: { name: 'plain' } });
    expect(plain.status).toBe(200);
  });

  it('expiry cancels and releases (hand-moved clock)', { timeout: 60_000 }, async () => {
    const wallet = await fundedWallet(w, 'expiry', '300');
    await policy(w, approvalRule(wallet.id, 2, 600));
    const a = await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '300' });
    const b = await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '100' });
    expect(a.body.data.status).toBe('PENDING_APPROVAL');
    // The first holds all 300: the second is refused for funds, not queued for approval.
    expect(b.status).toBe(422);
    expect(b.body.error).toBe('INSUFFICIENT_BALANCE');
    const id = a.body.data.id as string;
    expect((await vote(w, w.approvers[0], id, 'approve')).body.data.approvals).toBe(1);

    // Not yet: nothing expires before its time to live.
    w.clock.advance(599_000);
    expect(await w.h.services.policies.approvals.expireDue()).toBe(0);
    w.clock.advance(2_000);
    // A vote after the time to live cancels it instead of counting.
    const late = await vote(w, w.approvers[1], id, 'approve');
    expect(late.status).toBe(409);
    expect(late.body.error).toBe('APPROVAL_EXPIRED');
    const t = await getTx(w, wallet, id);
    expect(t.status).toBe('CANCELLED');
    expect(t.reason).toContain('time to live');
    expect((await w.h.api('GET', `/v1/approvals/${id}`, { key: w.h.businessKey })).body.data.status).toBe('EXPIRED');
    await eventually(
      async () => eventsOf(w, id),
      (e) => e.includes('withdraw.cancelled'),
    );
    // Released: 300 can be held again.
    const again = await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '300' });
    expect(again.body.data.status).toBe('PENDING_APPROVAL');

    // The scheduled sweep expires what nobody voted on.
    w.clock.advance(601_000);
    expect(await w.h.services.policies.approvals.expireDue()).toBe(1);
    expect((await getTx(w, wallet, again.body.data.id)).status).toBe('CANCELLED');
    expect(await footprint(w, wallet.id)).toMatchObject({ outbound: 0, approvals: 2 });
  });

  it('the client can cancel a payout while it waits; retry is refused', { timeout: 60_000 }, async () => {
    const wallet = await fundedWallet(w, 'cancel', '150');
    await policy(w, approvalRule(wallet.id, 1));
    const res = await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '150' });
    const id = res.body.data.id as string;
    const retry = await w.h.api('POST', `/v1/wallets/${wallet.id}/transactions/retry`, { key: wallet.apiKey, body: { id } });
    expect(retry.body.error).toBe('AWAITING_APPROVAL');
    const cancel = await w.h.api('POST', `/v1/wallets/${wallet.id}/transactions/cancel`, { key: wallet.apiKey, body: { id } });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    expect(cancel.body.data.status).toBe('CANCELLED');
    expect((await w.h.api('GET', `/v1/approvals/${id}`, { key: w.h.businessKey })).body.data.status).toBe('CANCELLED');
    expect((await vote(w, w.approvers[1], id, 'approve')).body.error).toBe('APPROVAL_CLOSED');
    const { rows } = await sql<{ action: string }>`
      SELECT action FROM audit_log WHERE details->>'transactionId' = ${id} ORDER BY seq`.execute(w.h.database.db);
    expect(rows.map((r) => r.action)).toEqual(['approval.requested', 'approval.cancelled']);
  });

  it(
    'a recipient listed while its payout waited: the approving vote is refused (AML_BLOCKED), nothing sent, a rejection still cancels',
    { timeout: 60_000 },
    async () => {
      const wallet = await fundedWallet(w, 'listed-later', '200');
      await policy(w, approvalRule(wallet.id, 1));
      const res = await withdraw(w, wallet, { assetId: w.usdc.id, address: LISTED.evm, amount: '150' });
      expect(res.body.data?.status, JSON.stringify(res.body)).toBe('PENDING_APPROVAL');
      const id = res.body.data.id as string;
      // The OFAC list arrives (the operator's `aml import`) with the recipient on it.
      await importList(w.h.database.db, w.h.services.changes, 'ofac', await parseListFile(SDN));
      // Every process reloads its lists when told of the change: wait until screening sees it.
      await lookupUntil(w.h, wallet.apiKey, wallet.id, LISTED.evm, true);

      const approved = await vote(w, w.approvers[1], id, 'approve');
      expect(approved.status, JSON.stringify(approved.body)).toBe(422);
      expect(approved.body.error).toBe('AML_BLOCKED');
      expect((await getTx(w, wallet, id)).status).toBe('PENDING_APPROVAL');
      expect(await footprint(w, wallet.id)).toEqual({ transactions: 1, outbound: 0, approvals: 1 });
      const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM approval_votes v JOIN approvals a ON a.id = v.approval_id WHERE a.transaction_id = ${id}`.execute(
        w.h.database.db,
      );
      expect(rows[0]!.n).toBe(0);

      const rejected = await vote(w, w.approvers[1], id, 'reject', 'sanctioned');
      expect(rejected.status).toBe(200);
      expect((await getTx(w, wallet, id)).status).toBe('CANCELLED');
    },
  );

  it(
    'approved after the wallet was deactivated or the asset disabled: cancelled, nothing sent, what it held released',
    { timeout: 90_000 },
    async () => {
      for (const change of ['wallet deactivated', 'asset disabled'] as const) {
        const wallet = await fundedWallet(w, `stopped: ${change}`, '200');
        await policy(w, approvalRule(wallet.id, 1));
        const to = randomAddress();
        const res = await withdraw(w, wallet, { assetId: w.usdc.id, address: to, amount: '150' });
        expect(res.body.data?.status, JSON.stringify(res.body)).toBe('PENDING_APPROVAL');
        const id = res.body.data.id as string;
        // While it waits, the wallet stops paying: a new withdrawal would be refused now.
        const stopped =
          change === 'wallet deactivated'
            ? await w.h.api('PATCH', `/v1/wallets/${wallet.id}`, { key: wallet.apiKey, body: { isActive: false } })
            : await w.h.api('DELETE', `/v1/wallets/${wallet.id}/assets/${w.usdc.id}`, { key: wallet.apiKey });
        expect(stopped.status, JSON.stringify(stopped.body)).toBe(200);
        const fresh = await withdraw(w, wallet, { assetId: w.usdc.id, address: to, amount: '1' });
        expect(fresh.status).toBe(422);
        expect(fresh.body.error).toBe(change === 'wallet deactivated' ? 'WALLET_INACTIVE' : 'ASSET_NOT_ENABLED');

        const approved = await vote(w, w.approvers[1], id, 'approve');
        expect(approved.status, JSON.stringify(approved.body)).toBe(200);
        const t = await getTx(w, wallet, id);
        expect(t.status, change).toBe('CANCELLED');
        expect(t.reason).toContain(change === 'wallet deactivated' ? 'deactivated' : 'no longer enabled');
        expect((await footprint(w, wallet.id)).outbound, change).toBe(0);
        await eventually(
          async () => eventsOf(w, id),
          (e) => e.includes('withdraw.cancelled'),
        );
        expect(await w.eth.balanceOf('USDC', to)).toBe(0n);
      }
    },
  );

  it('two edits of a rule at once: each changes its own fields, neither undoes the other', async () => {
    const wallet = await fundedWallet(w, 'concurrent-edits', '0');
    const patch = (id: string, body: Record<string, unknown>) => w.h.api('PATCH', `/v1/policies/${id}`, { key: w.manager.apiKey, body });
    for (let i = 0; i < 8; i++) {
      const rule = await policy(w, { ...approvalRule(wallet.id, 1), name: `edited ${i}` });
      const raise = { ...approvalRule(wallet.id, 2).approval };
      const [a, b] = await Promise.all([patch(rule.id, { approval: raise }), patch(rule.id, { name: `renamed ${i}` })]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const now = (await w.h.api('GET', `/v1/policies/${rule.id}`, { key: w.manager.apiKey })).body.data;
      expect({ name: now.name, quorum: now.approval.quorum }).toEqual({ name: `renamed ${i}`, quorum: 2 });
      expect((await w.h.api('DELETE', `/v1/policies/${rule.id}`, { key: w.manager.apiKey })).status).toBe(200);
    }
  });

  it('a long dashboard comment is cut on a whole character: the vote is recorded, never a 500', { timeout: 60_000 }, async () => {
    const wallet = await fundedWallet(w, 'dashboard-comment', '500');
    await policy(w, {
      ...approvalRule(wallet.id, 2),
      approval: { approvers: { roles: ['approver'] }, quorum: 2, ttlSeconds: 3600 },
    });
    const res = await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '150' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const approvalId = (await w.h.api('GET', `/v1/approvals/${res.body.data.id}`, { key: w.h.businessKey })).body.data.id as string;

    const email = 'comment-approver@policies.example';
    const password = 'a long enough password';
    const user = await createDashboardUser(w.h, w.h.businessId, email, password);
    await sql`UPDATE dashboard_users SET role = 'approver' WHERE id = ${user.id}`.execute(w.h.database.db);
    const client = new DashClient(w.h.baseUrl);
    expect((await client.login(email, password)).status).toBe(303);
    const started = await client.submit('/dashboard/account', '/dashboard/account/two-factor');
    const secret = base32.decode(/data-testid="totp-secret">([A-Z2-7]+)</.exec(started.text)![1]!);
    const enrolled = await client.request('POST', '/dashboard/account/two-factor/confirm', {
      _csrf: csrfOf(started.text),
      code: totpAt(secret, w.clock.now().getTime()),
    });
    expect(enrolled.status).toBe(303);

    // 1,201 characters (the API's schema counts them so), 2,401 UTF-16 units: the form keeps
    // the first 1,000 characters, never the first 1,000 units (which end halfway through an emoji).
    const comment = `a${'\u{1F600}'.repeat(1200)}`;
    const voted = await client.submit('/dashboard/approvals', `/dashboard/approvals/${approvalId}/approve`, { comment });
    expect(voted.status, voted.text.slice(0, 300)).toBe(303);
    const approval = (await w.h.api('GET', `/v1/approvals/${approvalId}`, { key: w.h.businessKey })).body.data;
    expect(approval).toMatchObject({ status: 'PENDING', approvals: 1 });
    expect(approval.votes).toHaveLength(1);
    expect(approval.votes[0].comment).toBe(`a${'\u{1F600}'.repeat(999)}`);
  });

  it('the audit chain holds after all of it', async () => {
    const report = await w.h.services.audit.verify();
    expect(report.broken).toBeNull();
    expect(report.verified).toBeGreaterThan(10);
  });
});
