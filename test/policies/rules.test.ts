/**
 * Policies decided live: a velocity limit held under 20 concurrent requests from two
 * senders of one wallet; a BLOCK refuses before anything is reserved; the dry run gives the
 * decision the live request then gets; the API's own rules (who may change rules, what a rule
 * may say) and the audit trail of changes; a FAILED withdrawal sent again is decided and
 * screened as a new payout.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomAddress } from '../withdrawals/world.js';
import { PolicySession } from '../../src/modules/policies/session.js';
import type { Candidate } from '../../src/modules/policies/rules.js';
import { uuidv7 } from '../../src/lib/ids.js';
import { encodeAbiParameters, keccak256, pad, toHex, type Address } from 'viem';
import { eventually } from '../support/fixtures.js';
import { setDevnetSanctioned } from '../../src/devnet/sanctions.js';
import { readDevnetFeed, setDevnetFeedPrice, setDevnetFeedRound } from '../../src/devnet/feeds.js';
import {
  ETH,
  footprint,
  fundedWallet,
  getTx,
  mintKey,
  policy,
  startPolicyWorld,
  waitStatus,
  withdraw,
  type PolicyWorld,
  type TestWallet,
} from './world.js';

let w: PolicyWorld;

beforeAll(async () => {
  w = await startPolicyWorld();
}, 120_000);
afterAll(async () => {
  await w?.stop();
});

async function child(wallet: TestWallet, usdc: string): Promise<{ id: string; address: string }> {
  const res = await w.h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } });
  expect(res.status).toBe(200);
  const c = res.body.data as { id: string; address: string };
  await w.eth.rpc('anvil_setBalance', [c.address, '0x56BC75E2D63100000']);
  await w.eth.sendToken('USDC', c.address, usdc);
  return c;
}

/** A system-initiated withdrawal of no particular asset or amount to `destination`: what a destination rule sees. */
function withdrawalTo(walletId: string, destination: string): Candidate {
  return {
    type: 'WITHDRAW',
    walletId,
    addressId: null,
    asset: null,
    amount: null,
    amountUsd: null,
    destination,
    destinationKind: null,
    initiator: { kind: 'SYSTEM' },
  };
}

async function nonceCounter(address: string): Promise<string | null> {
  const { rows } = await sql<{ next_nonce: string }>`SELECT next_nonce::text FROM nonces WHERE lower(address) = lower(${address})`.execute(
    w.h.database.db,
  );
  return rows[0]?.next_nonce ?? null;
}

describe('velocity', () => {
  it('a velocity limit holds under 20 concurrent requests from two senders of a wallet', { timeout: 90_000 }, async () => {
    const wallet = await fundedWallet(w, 'velocity', '100');
    const c = await child(wallet, '100');
    await policy(w, {
      name: 'at most 10 USDC an hour out of the wallet',
      priority: 1,
      walletId: wallet.id,
      conditions: { assets: ['USDC'], velocity: { measure: 'SUM', scope: 'WALLET', windowSeconds: 3600, limit: '10', currency: 'ASSET' } },
      action: 'BLOCK',
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '1' }, i % 2 ? { addressId: c.id } : {}),
      ),
    );
    const accepted = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(accepted).toHaveLength(10);
    expect(refused.map((r) => r.body.error)).toEqual(Array(10).fill('POLICY_BLOCKED'));
    expect(refused[0]!.body.message).toContain('at most 10 USDC an hour out of the wallet');
    const { rows } = await sql<{ n: string; total: string }>`
      SELECT count(*)::text AS n, sum(amount)::text AS total FROM transactions WHERE wallet_id = ${wallet.id}`.execute(w.h.database.db);
    expect(rows[0]).toEqual({ n: '10', total: '10000000' });
  });

  it('a COUNT limit per destination holds across the wallets of the business', { timeout: 90_000 }, async () => {
    const a = await fundedWallet(w, 'destination a', '50');
    const b = await fundedWallet(w, 'destination b', '50');
    const to = randomAddress();
    await policy(w, {
      name: 'five payouts an hour to one address',
      priority: 1,
      conditions: { types: ['WITHDRAW'], velocity: { measure: 'COUNT', scope: 'DESTINATION', windowSeconds: 3600, limit: '5' } },
      action: 'BLOCK',
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => withdraw(w, i % 2 ? a : b, { assetId: w.usdc.id, address: to, amount: '0.5' })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(results.filter((r) => r.status === 422).every((r) => r.body.error === 'POLICY_BLOCKED')).toBe(true);
    // Another destination is its own window.
    expect((await withdraw(w, a, { assetId: w.usdc.id, address: randomAddress(), amount: '0.5' })).status).toBe(200);
    const del = await w.h.api('GET', '/v1/policies', { key: w.h.businessKey });
    const rule = del.body.data.find((p: { name: string }) => p.name === 'five payouts an hour to one address');
    expect((await w.h.api('DELETE', `/v1/policies/${rule.id}`, { key: w.manager.apiKey })).status).toBe(200);
  });
});

describe('BLOCK', () => {
  it('refuses before anything is reserved', { timeout: 60_000 }, async () => {
    const wallet = await fundedWallet(w, 'block', '20');
    const rule = await policy(w, {
      name: 'no payouts of 15 USDC or more',
      priority: 5,
      walletId: wallet.id,
      conditions: { amount: { min: '15', currency: 'ASSET' } },
      action: 'BLOCK',
    });
    const before = await footprint(w, wallet.id);
    const nonce = await nonceCounter(wallet.address);
    const single = await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '15' });
    expect(single.status).toBe(422);
    expect(single.body.error).toBe('POLICY_BLOCKED');
    expect(single.body.message).toContain('no payouts of 15 USDC or more');
    expect(single.body.details[0].message).toContain(rule.id);
    // Blocked before the balance is even looked at: more than it holds is still POLICY_BLOCKED.
    expect((await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '5000' })).body.error).toBe('POLICY_BLOCKED');
    // One blocked item refuses the whole batch, and names it.
    const batch = await withdraw(w, wallet, {
      assets: [
        { id: w.usdc.id, address: randomAddress(), amount: '1' },
        { id: w.usdc.id, address: randomAddress(), amount: '16' },
      ],
    });
    expect(batch.status).toBe(422);
    expect(batch.body.details[0].field).toBe('assets.1');
    expect(await footprint(w, wallet.id)).toEqual(before);
    expect(await nonceCounter(wallet.address)).toBe(nonce);
    // The funds were never held: all 20 can still go in two payouts under the limit.
    expect((await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '14' })).status).toBe(200);
    expect((await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '6' })).status).toBe(200);
  });

  it('holds however the sending address is spelt: its id in upper case in the URL', { timeout: 60_000 }, async () => {
    // UUIDs are case-insensitive (the API takes either case, PostgreSQL compares them as
    // uuid): a rule scoped to a child address must not be stepped around by spelling the
    // address's id in upper case in the URL.
    const wallet = await fundedWallet(w, 'block-id-case', '0');
    const c = await child(wallet, '10');
    await policy(w, { name: 'nothing out of this child', priority: 5, walletId: wallet.id, addressId: c.id, action: 'BLOCK' });
    for (const addressId of [c.id, c.id.toUpperCase()]) {
      const res = await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '1' }, { addressId });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.error).toBe('POLICY_BLOCKED');
    }
    expect(await footprint(w, wallet.id)).toMatchObject({ transactions: 0, outbound: 0 });
  });
});

describe('dry run', () => {
  it('matches the live decision', { timeout: 90_000 }, async () => {
    const wallet = await fundedWallet(w, 'dry run', '5000');
    const beneficiary = randomAddress();
    const b = await w.h.api('POST', `/v1/wallets/${wallet.id}/beneficiaries`, {
      key: wallet.apiKey,
      body: { name: 'supplier', address: beneficiary },
    });
    expect(b.status).toBe(200);
    const block = await policy(w, {
      name: 'large payouts only to beneficiaries',
      priority: 10,
      walletId: wallet.id,
      conditions: { amount: { min: '1000', currency: 'USD' }, destination: 'NON_BENEFICIARY' },
      action: 'BLOCK',
    });
    const approve = await policy(w, {
      name: 'over 100 needs an approver',
      priority: 20,
      walletId: wallet.id,
      conditions: { types: ['WITHDRAW'], amount: { min: '100', currency: 'ASSET' } },
      action: 'REQUIRE_APPROVAL',
      approval: { approvers: { apiKeys: [w.approvers[0].id] }, quorum: 1, ttlSeconds: 3600 },
    });
    const velocity = await policy(w, {
      name: 'three small payouts an hour',
      priority: 30,
      walletId: wallet.id,
      conditions: { velocity: { measure: 'COUNT', scope: 'WALLET', windowSeconds: 3600, limit: '3' } },
      action: 'BLOCK',
    });
    const cases: { amount: string; to: string; expect: string; rule: string | null }[] = [
      { amount: '2000', to: randomAddress(), expect: 'BLOCK', rule: block.id },
      { amount: '2000', to: beneficiary, expect: 'REQUIRE_APPROVAL', rule: approve.id },
      { amount: '150', to: randomAddress(), expect: 'REQUIRE_APPROVAL', rule: approve.id },
      { amount: '5', to: randomAddress(), expect: 'ALLOW', rule: null },
      // The window now holds 3 (two held for approval count, and the one allowed).
      { amount: '5', to: randomAddress(), expect: 'BLOCK', rule: velocity.id },
    ];
    for (const c of cases) {
      const dry = await w.h.api('POST', '/v1/policies/evaluate', {
        key: w.h.businessKey,
        body: { walletId: wallet.id, type: 'WITHDRAW', assetId: w.usdc.id, amount: c.amount, address: c.to },
      });
      expect(dry.status, JSON.stringify(dry.body)).toBe(200);
      expect(dry.body.data.action, `${c.amount} to ${c.to}`).toBe(c.expect);
      expect(dry.body.data.policy?.id ?? null).toBe(c.rule);
      expect(dry.body.data.steps.at(-1)?.matched ?? false).toBe(c.rule !== null);
      // The dry run wrote nothing; now the real request.
      const live = await withdraw(w, wallet, { assetId: w.usdc.id, address: c.to, amount: c.amount });
      if (c.expect === 'BLOCK') {
        expect(live.body.error).toBe('POLICY_BLOCKED');
        expect(live.body.details[0].message).toContain(c.rule);
      } else if (c.expect === 'REQUIRE_APPROVAL') {
        expect(live.body.data.status).toBe('PENDING_APPROVAL');
        const a = await w.h.api('GET', `/v1/approvals/${live.body.data.id}`, { key: w.h.businessKey });
        expect(a.body.data.policy.id).toBe(c.rule);
      } else {
        expect(live.status).toBe(200);
        expect(live.body.data.status).toBe('PENDING');
      }
    }
    // Why each rule did or did not match, in order (the other tests' rules are other wallets').
    const why = await w.h.api('POST', '/v1/policies/evaluate', {
      key: w.h.businessKey,
      body: { walletId: wallet.id, type: 'WITHDRAW', assetId: w.usdc.id, amount: '5', address: beneficiary },
    });
    const reasons = why.body.data.steps.map((s: { reason: string }) => s.reason);
    expect(reasons.filter((r: string) => r !== 'it applies to another wallet')).toEqual([
      '5 USD is below its minimum 1000',
      '5 USDC is below its minimum 100',
      'it would be transaction 4 of this wallet in 1 hour, over the limit of 3',
    ]);
  });
});

describe('managing rules', () => {
  it('needs the MANAGE_POLICIES grant, checks what a rule says, and puts every change on the audit log', async () => {
    const body = { name: 'r', priority: 1, action: 'BLOCK' };
    expect((await w.h.api('POST', '/v1/policies', { key: w.h.businessKey, body })).body.error).toBe('POLICY_MANAGEMENT_NOT_ALLOWED');
    expect((await w.h.api('POST', '/v1/policies', { key: w.approvers[0].apiKey, body })).body.error).toBe('POLICY_MANAGEMENT_NOT_ALLOWED');
    const wallet = Object.values(w.h.wallets)[0]!;
    expect((await w.h.api('GET', '/v1/policies', { key: wallet.apiKey })).status).toBe(403);
    // A key cannot hand out grants; only the operator can.
    const mint = await w.h.api('POST', '/v1/api-keys', { key: w.manager.apiKey, body: { name: 'x', scopes: ['APPROVE'] } });
    expect(mint.status).toBe(403);
    expect(mint.body.error).toBe('KEY_GRANT_NOT_ALLOWED');

    const bad = async (b: Record<string, unknown>, field: string) => {
      const res = await w.h.api('POST', '/v1/policies', { key: w.manager.apiKey, body: { name: 'bad', priority: 1, ...b } });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.details[0].field).toBe(field);
    };
    await bad({ action: 'REQUIRE_APPROVAL', conditions: { types: ['WITHDRAW'] } }, 'approval');
    await bad(
      {
        action: 'REQUIRE_APPROVAL',
        conditions: { types: ['SIGN_ONLY'] },
        approval: { approvers: { roles: ['owner'] }, quorum: 1, ttlSeconds: 60 },
      },
      'conditions.types',
    );
    await bad(
      {
        action: 'REQUIRE_APPROVAL',
        conditions: { types: ['WITHDRAW'] },
        approval: { approvers: { roles: ['viewer'] }, quorum: 1, ttlSeconds: 60 },
      },
      'approval.approvers.roles',
    );
    await bad({ action: 'BLOCK', conditions: { amount: { min: '5', max: '1', currency: 'ASSET' } } }, 'conditions.amount.min');
    await bad(
      { action: 'BLOCK', conditions: { velocity: { measure: 'COUNT', scope: 'WALLET', windowSeconds: 60, limit: '1.5' } } },
      'conditions.velocity.limit',
    );
    await bad({ action: 'BLOCK', conditions: { colour: 'red' } }, 'conditions.colour');
    await bad({ action: 'BLOCK', addressId: wallet.id }, 'addressId');
    const foreignKey = await mintKey(w.h, 'not listed', []);
    const stranger = await w.h.api('POST', '/v1/policies', {
      key: w.manager.apiKey,
      body: {
        name: 'x',
        priority: 1,
        action: 'REQUIRE_APPROVAL',
        conditions: { types: ['WITHDRAW'] },
        approval: { approvers: { apiKeys: ['01900000-0000-7000-8000-000000000000'] }, quorum: 1, ttlSeconds: 60 },
      },
    });
    expect(stranger.status).toBe(400);
    expect(foreignKey.id).toBeTruthy();

    const created = await w.h.api('POST', '/v1/policies', {
      key: w.manager.apiKey,
      body: { name: 'audited', priority: 99, action: 'ALLOW', isActive: false },
    });
    const id = created.body.data.id as string;
    const patched = await w.h.api('PATCH', `/v1/policies/${id}`, {
      key: w.manager.apiKey,
      body: { priority: 100, conditions: { assets: ['usdt'] } },
    });
    expect(patched.body.data).toMatchObject({ priority: 100, conditions: { assets: ['USDT'] }, isActive: false });
    expect((await w.h.api('DELETE', `/v1/policies/${id}`, { key: w.manager.apiKey })).status).toBe(200);
    expect((await w.h.api('GET', `/v1/policies/${id}`, { key: w.h.businessKey })).status).toBe(404);
    const { rows } = await sql<{ action: string; details: { before?: { priority: number }; after?: { priority: number } } }>`
      SELECT action, details FROM audit_log WHERE target_id = ${id} ORDER BY seq`.execute(w.h.database.db);
    expect(rows.map((r) => r.action)).toEqual(['policy.created', 'policy.updated', 'policy.deleted']);
    expect(rows[1]!.details.before!.priority).toBe(99);
    expect(rows[1]!.details.after!.priority).toBe(100);
  });
});

describe('initiators', () => {
  it("a rule may name a wallet's own key as the initiator it holds; an approver must be a business key", async () => {
    const wallet = await fundedWallet(w, 'initiator wallet');
    const { rows } = await sql<{ id: string }>`SELECT id FROM api_keys WHERE wallet_id = ${wallet.id} AND revoked_at IS NULL`.execute(
      w.h.database.db,
    );
    const walletKeyId = rows[0]!.id;
    const rule = await policy(w, {
      name: 'not by this wallet key',
      priority: 1,
      walletId: wallet.id,
      action: 'BLOCK',
      conditions: { types: ['WITHDRAW'], initiators: { apiKeys: [walletKeyId] } },
    });
    try {
      const body = () => ({ assetId: w.usdc.id, amount: '1', address: randomAddress() });
      const byWalletKey = await withdraw(w, wallet, body());
      expect(byWalletKey.status, JSON.stringify(byWalletKey.body)).toBe(422);
      expect(byWalletKey.body.error).toBe('POLICY_BLOCKED');
      // Another initiator (the business key) is not this rule's.
      expect((await withdraw(w, wallet, body(), { key: w.h.businessKey })).status).toBe(200);
    } finally {
      expect((await w.h.api('DELETE', `/v1/policies/${rule.id}`, { key: w.manager.apiKey })).status).toBe(200);
    }
    // A wallet key approves nothing: as an approver it is refused, nothing written.
    const approver = await w.h.api('POST', '/v1/policies', {
      key: w.manager.apiKey,
      body: {
        name: 'approved by a wallet key',
        priority: 1,
        action: 'REQUIRE_APPROVAL',
        conditions: { types: ['WITHDRAW'] },
        approval: { approvers: { apiKeys: [walletKeyId] }, quorum: 1, ttlSeconds: 60 },
      },
    });
    expect(approver.status, JSON.stringify(approver.body)).toBe(400);
    expect(approver.body.details[0].field).toBe('apiKeys');
  });
});

describe('destination kinds compare addresses as their family does', () => {
  it('a case look-alike of a whitelisted base58 address is not whitelisted (a rule allowing whitelisted destinations does not let it through)', async () => {
    const wallet = await fundedWallet(w, 'look-alike', '10');
    await policy(w, {
      name: 'whitelisted destinations go',
      priority: 1,
      walletId: wallet.id,
      conditions: { types: ['WITHDRAW'], destination: 'WHITELISTED' },
      action: 'ALLOW',
    });
    await policy(w, {
      name: 'everything else stops',
      priority: 2,
      walletId: wallet.id,
      conditions: { types: ['WITHDRAW'] },
      action: 'BLOCK',
    });
    // A Solana-style account: its case is part of the address.
    const listed = '6wNCxWrdpjRrFwiLpDXjhrbu8ShGjuKqDjLTFzApXRFw';
    const lookAlike = '6wNCxWrdpjRrFwiLpDXjhrbu8ShGjuKqDjLTFzApXRFW';
    await sql`INSERT INTO beneficiaries (id, wallet_id, name, address, is_whitelisted) VALUES (${uuidv7()}, ${wallet.id}, 'payee', ${listed}, true)`.execute(
      w.h.database.db,
    );
    const businessId = w.h.businessId;
    const candidate = (destination: string) => withdrawalTo(wallet.id, destination);
    const session = await PolicySession.open(w.h.database.db, businessId, [candidate(listed), candidate(lookAlike)], { lock: false });
    const [exact, alike] = session.decide([candidate(listed), candidate(lookAlike)]);
    expect(exact!.action).toBe('ALLOW');
    expect(alike!.action).toBe('BLOCK');
  });
});

describe('velocity windows per destination compare addresses as their family does', () => {
  it('a base58 destination and its case look-alike are two windows; hex spellings of one address are one', async () => {
    const wallet = await fundedWallet(w, 'window look-alike', '0');
    await policy(w, {
      name: 'one payout a day to one address',
      priority: 1,
      walletId: wallet.id,
      conditions: { types: ['WITHDRAW'], velocity: { measure: 'COUNT', scope: 'DESTINATION', windowSeconds: 86_400, limit: '1' } },
      action: 'BLOCK',
    });
    const listed = '6wNCxWrdpjRrFwiLpDXjhrbu8ShGjuKqDjLTFzApXRFw';
    const lookAlike = '6wNCxWrdpjRrFwiLpDXjhrbu8ShGjuKqDjLTFzApXRFW';
    const hex = randomAddress().toLowerCase();
    const chain = w.h.services.catalogue.findChain(ETH, 'testnet')!;
    // One payout already in each window: to the base58 address, and to the hex address in upper case.
    for (const to of [listed, `0x${hex.slice(2).toUpperCase()}`]) {
      const id = uuidv7();
      await sql`
        INSERT INTO transactions (id, wallet_id, asset_id, chain_id, reference, type, status, stage, confirmed, amount, currency,
                                  sender_address, recipient_address, network, created_channel,
                                  policy_type, policy_asset_id, policy_amount, policy_destination)
        VALUES (${id}, ${wallet.id}, ${w.usdc.id}, ${chain.id}, ${`window-${id}`}, 'WITHDRAW', 'PENDING', 'created',
                false, '1', 'USDC', ${wallet.address}, ${to}, 'testnet', 'api', 'WITHDRAW', ${w.usdc.id}, '1', ${to})`.execute(
        w.h.database.db,
      );
    }
    const candidate = (destination: string) => withdrawalTo(wallet.id, destination);
    const tried = [listed, lookAlike, hex];
    const session = await PolicySession.open(w.h.database.db, w.h.businessId, tried.map(candidate), { lock: false });
    // Each decided alone: the listed address's window is full, its look-alike's is empty, and
    // the hex address's window counts its upper-case spelling.
    const actions = tried.map((to) => session.decide([candidate(to)])[0]!.action);
    expect(actions).toEqual(['BLOCK', 'ALLOW', 'BLOCK']);
    await sql`DELETE FROM transactions WHERE wallet_id = ${wallet.id}`.execute(w.h.database.db);
  });
});

describe('a FAILED withdrawal sent again (retry)', () => {
  /** The devnet token's balance slot of `owner` (balanceOf is its 4th slot). */
  const balanceSlot = (owner: string) => keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner as Address, 3n]));
  const retry = (wallet: TestWallet, id: string) =>
    w.h.api('POST', `/v1/wallets/${wallet.id}/transactions/retry`, { key: wallet.apiKey, body: { id } });

  /** A withdrawal of `amount` USDC that reverts on chain (the funds vanish between signing and mining), final. */
  async function failedWithdrawal(wallet: TestWallet, to: string, amount: string): Promise<string> {
    const token = w.eth.token('USDC').address;
    const slot = balanceSlot(wallet.address);
    const held = await w.eth.balanceOf('USDC', wallet.address);
    await w.eth.rpc('evm_setAutomine', [false]);
    let id = '';
    try {
      const res = await withdraw(w, wallet, { assetId: w.usdc.id, address: to, amount });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      id = res.body.data.id;
      await eventually(
        () => getTx(w, wallet, id),
        (t) => t.hash !== null,
        20_000,
      );
      await w.eth.rpc('anvil_setStorageAt', [token, slot, pad(toHex(0n))]);
      await w.eth.mine();
    } finally {
      await w.eth.rpc('evm_setAutomine', [true]);
    }
    await waitStatus(w, wallet, id, 'FAILED');
    await w.eth.rpc('anvil_setStorageAt', [token, slot, pad(toHex(held))]);
    await w.eth.mine();
    await w.eth.mine();
    await eventually(
      () => getTx(w, wallet, id),
      (t) => t.confirmations >= 2,
      20_000,
    );
    return id;
  }

  it(
    'is decided by the policies and screened again, as a new payout is: a window it would exceed, or a destination listed since, refuses it',
    { timeout: 120_000 },
    async () => {
      const wallet = await fundedWallet(w, 'retry', '50');
      const rule = await policy(w, {
        name: 'at most 10 USDC an hour',
        priority: 1,
        walletId: wallet.id,
        conditions: { types: ['WITHDRAW'], velocity: { measure: 'SUM', scope: 'WALLET', windowSeconds: 3600, limit: '10' } },
        action: 'BLOCK',
      });
      const to = randomAddress();
      const id = await failedWithdrawal(wallet, to, '6');
      // The failed payout moved nothing, so the window has room for another 6...
      const second = await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '6' });
      expect(second.status, JSON.stringify(second.body)).toBe(200);
      await waitStatus(w, wallet, second.body.data.id, 'SUCCESS');
      // ...and none for the first one sent again: refused, nothing sent, still FAILED.
      const before = await footprint(w, wallet.id);
      const refused = await retry(wallet, id);
      expect([refused.status, refused.body.error], JSON.stringify(refused.body)).toEqual([422, 'POLICY_BLOCKED']);
      expect(refused.body.message).toContain('at most 10 USDC an hour');
      expect(await footprint(w, wallet.id)).toEqual(before);
      expect((await getTx(w, wallet, id)).status).toBe('FAILED');

      // Room again (the rule switched off), but the destination was listed meanwhile.
      expect((await w.h.api('PATCH', `/v1/policies/${rule.id}`, { key: w.manager.apiKey, body: { isActive: false } })).status).toBe(200);
      await setDevnetSanctioned(w.eth.config.rpcUrl, w.eth.config.chainId, [to]);
      w.h.services.aml.clearCache(); // the first attempt's screening (CLEAR) is cached for a minute
      try {
        const listed = await retry(wallet, id);
        expect([listed.status, listed.body.error], JSON.stringify(listed.body)).toEqual([422, 'AML_BLOCKED']);
        expect(await footprint(w, wallet.id)).toEqual(before);
      } finally {
        await setDevnetSanctioned(w.eth.config.rpcUrl, w.eth.config.chainId, [to], false);
        w.h.services.aml.clearCache();
      }
      const sent = await retry(wallet, id);
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      await waitStatus(w, wallet, id, 'SUCCESS');
      expect(await w.eth.balanceOf('USDC', to)).toBe(6n * 10n ** 6n);
    },
  );

  it('is weighed at its USD value even when the process answering it holds no quote of the asset', { timeout: 120_000 }, async () => {
    const wallet = await fundedWallet(w, 'retry-usd', '50');
    const id = await failedWithdrawal(wallet, randomAddress(), '6');
    await policy(w, {
      name: 'no payout of 5 USD or more',
      priority: 1,
      walletId: wallet.id,
      conditions: { types: ['WITHDRAW'], amount: { min: '5', currency: 'USD' } },
      action: 'BLOCK',
    });
    // The process forgets its quote of USDC (as after a restart, or a quiet spell past the
    // feed's staleness limit): the feed answered one bad round, then a good one again.
    const feed = w.eth.config.priceFeeds!.USDC!.address;
    const { rpcUrl, chainId } = w.eth.config;
    const latest = (await readDevnetFeed(rpcUrl, chainId, feed))!;
    const next = latest.roundId + 1n;
    await setDevnetFeedRound(rpcUrl, chainId, feed, { ...latest, roundId: next, answeredInRound: next, answer: 0n });
    await w.h.services.rates.prefetch([w.usdc.id]);
    expect(w.h.services.rates.cached(w.usdc.id)).toBeNull();
    await setDevnetFeedPrice(rpcUrl, chainId, feed, '1');

    const before = await footprint(w, wallet.id);
    const refused = await retry(wallet, id);
    expect([refused.status, refused.body.error], JSON.stringify(refused.body)).toEqual([422, 'POLICY_BLOCKED']);
    expect(refused.body.message).toContain('no payout of 5 USD or more');
    expect(await footprint(w, wallet.id)).toEqual(before);
    expect((await getTx(w, wallet, id)).status).toBe('FAILED');
    expect(await w.eth.balanceOf('USDC', wallet.address)).toBe(50n * 10n ** 6n);
  });

  it('counts in the windows from its retry on, however long ago it was created', { timeout: 120_000 }, async () => {
    const wallet = await fundedWallet(w, 'retry-window', '50');
    await policy(w, {
      name: 'at most 10 USDC an hour (retries)',
      priority: 1,
      walletId: wallet.id,
      conditions: { types: ['WITHDRAW'], velocity: { measure: 'SUM', scope: 'WALLET', windowSeconds: 3600, limit: '10' } },
      action: 'BLOCK',
    });
    const id = await failedWithdrawal(wallet, randomAddress(), '6');
    // It failed two hours ago, as far as its creation time says: out of the window.
    await sql`UPDATE transactions SET created_at = created_at - interval '2 hours' WHERE id = ${id}`.execute(w.h.database.db);
    const sent = await retry(wallet, id);
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    await waitStatus(w, wallet, id, 'SUCCESS');
    // Sent again just now, it holds 6 of this hour's 10.
    const next = await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '6' });
    expect([next.status, next.body.error], JSON.stringify(next.body)).toEqual([422, 'POLICY_BLOCKED']);
    expect((await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '4' })).status).toBe(200);
  });
});
