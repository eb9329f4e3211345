/**
 * A destination rule (`destination: WHITELISTED | BENEFICIARY | NON_BENEFICIARY`) reads the
 * wallet's beneficiaries: whoever changes who is a beneficiary changes what the rule does. So
 * while such a rule applies to a wallet, only a caller who may manage policies may make an
 * address a beneficiary, whitelist it or take that away; a wallet key (or a plain business
 * key) is refused with 403 POLICY_MANAGEMENT_NOT_ALLOWED and nothing is written, and its
 * payout to the address stays held by the rule. Changes that touch no rule's input (a name)
 * and wallets no destination rule covers are free as before.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomAddress } from '../withdrawals/world.js';
import { footprint, fundedWallet, policy, startPolicyWorld, withdraw, type PolicyWorld } from './world.js';

let w: PolicyWorld;

beforeAll(async () => {
  w = await startPolicyWorld();
}, 120_000);
afterAll(async () => {
  await w?.stop();
});

const beneficiaries = (walletId: string) => `/v1/wallets/${walletId}/beneficiaries`;

async function beneficiaryRows(walletId: string): Promise<{ address: string; is_whitelisted: boolean; is_active: boolean }[]> {
  const { rows } = await sql<{ address: string; is_whitelisted: boolean; is_active: boolean }>`
    SELECT address, is_whitelisted, is_active FROM beneficiaries WHERE wallet_id = ${walletId} AND deleted_at IS NULL
     ORDER BY created_at`.execute(w.h.database.db);
  return rows;
}

describe('beneficiaries read by a destination rule', () => {
  it('cannot be changed by a key that may not manage policies, which would lift the rule', { timeout: 90_000 }, async () => {
    const wallet = await fundedWallet(w, 'destination rule', '50');
    await policy(w, {
      name: 'payouts only to beneficiaries',
      priority: 1,
      walletId: wallet.id,
      conditions: { types: ['WITHDRAW', 'BATCH_ITEM'], destination: 'NON_BENEFICIARY' },
      action: 'BLOCK',
    });
    const attacker = randomAddress();

    // The wallet's own key makes its destination a whitelisted beneficiary: refused, nothing written.
    const added = await w.h.api('POST', beneficiaries(wallet.id), {
      key: wallet.apiKey,
      body: { name: 'mine now', address: attacker, isWhitelisted: true },
    });
    expect([added.status, added.body.error], JSON.stringify(added.body)).toEqual([403, 'POLICY_MANAGEMENT_NOT_ALLOWED']);
    expect(added.body.message).toContain('payouts only to beneficiaries');
    // A plain business key neither.
    const byBusiness = await w.h.api('POST', beneficiaries(wallet.id), {
      key: w.h.businessKey,
      body: { name: 'mine now', address: attacker },
    });
    expect([byBusiness.status, byBusiness.body.error]).toEqual([403, 'POLICY_MANAGEMENT_NOT_ALLOWED']);
    expect(await beneficiaryRows(wallet.id)).toEqual([]);

    // So the payout to it is still what the rule says: blocked, nothing written or moved.
    const before = await footprint(w, wallet.id);
    const paid = await withdraw(w, wallet, { assetId: w.usdc.id, address: attacker, amount: '40' });
    expect([paid.status, paid.body.error], JSON.stringify(paid.body)).toEqual([422, 'POLICY_BLOCKED']);
    expect(await footprint(w, wallet.id)).toEqual(before);
    expect(await w.eth.balanceOf('USDC', attacker)).toBe(0n);

    // Whoever may manage the rules may change what they read.
    const supplier = randomAddress();
    const managed = await w.h.api('POST', beneficiaries(wallet.id), {
      key: w.manager.apiKey,
      body: { name: 'supplier', address: supplier },
    });
    expect(managed.status, JSON.stringify(managed.body)).toBe(200);
    const id = managed.body.data.id as string;
    expect((await withdraw(w, wallet, { assetId: w.usdc.id, address: supplier, amount: '1' })).status).toBe(200);

    // The wallet key may rename it (no rule reads a name), but not whitelist, deactivate or delete it.
    const renamed = await w.h.api('PATCH', `${beneficiaries(wallet.id)}/${id}`, { key: wallet.apiKey, body: { name: 'supplier ltd' } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    for (const body of [{ isWhitelisted: true }, { isActive: false }]) {
      const patched = await w.h.api('PATCH', `${beneficiaries(wallet.id)}/${id}`, { key: wallet.apiKey, body });
      expect([patched.status, patched.body.error], JSON.stringify(body)).toEqual([403, 'POLICY_MANAGEMENT_NOT_ALLOWED']);
    }
    const removed = await w.h.api('DELETE', `${beneficiaries(wallet.id)}/${id}`, { key: wallet.apiKey });
    expect([removed.status, removed.body.error]).toEqual([403, 'POLICY_MANAGEMENT_NOT_ALLOWED']);
    expect(await beneficiaryRows(wallet.id)).toEqual([{ address: supplier, is_whitelisted: false, is_active: true }]);

    // A wallet no destination rule covers keeps its beneficiaries in its own key's hands.
    const other = await fundedWallet(w, 'no destination rule', '0');
    const free = await w.h.api('POST', beneficiaries(other.id), {
      key: other.apiKey,
      body: { name: 'x', address: attacker, isWhitelisted: true },
    });
    expect(free.status, JSON.stringify(free.body)).toBe(200);
  });
});
