/**
 * PATCH of a stored rule, whose stored parts are checked again with the fields it sends: a
 * COUNT velocity (stored, before migration 064, with SUM's default currency, which the check
 * refuses for COUNT) and a rule naming an approver key revoked since can still be switched
 * off, renamed and moved; names the PATCH sends are still checked.
 */
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintKey, policy, startPolicyWorld, type PolicyWorld } from './world.js';

let w: PolicyWorld;

beforeAll(async () => {
  w = await startPolicyWorld();
}, 120_000);
afterAll(async () => {
  await w?.stop();
});

const patch = (id: string, body: Record<string, unknown>) => w.h.api('PATCH', `/v1/policies/${id}`, { key: w.manager.apiKey, body });
const stored = async (id: string) =>
  (await sql<{ conditions: Record<string, any> }>`SELECT conditions FROM policies WHERE id = ${id}`.execute(w.h.database.db)).rows[0]!
    .conditions;

describe('PATCH of a stored rule', () => {
  it('a COUNT velocity: stored without a currency, every field editable, its conditions sent back as shown', async () => {
    const wallet = Object.values(w.h.wallets)[0]!;
    const velocity = { measure: 'COUNT', scope: 'WALLET', windowSeconds: 3600, limit: '3' };
    const rule = await policy(w, {
      name: 'at most 3 payouts an hour',
      priority: 10,
      walletId: wallet.id,
      conditions: { types: ['WITHDRAW'], velocity },
      action: 'BLOCK',
    });
    expect(rule.conditions.velocity).toEqual(velocity);
    expect((await stored(rule.id)).velocity).toEqual(velocity);

    const off = await patch(rule.id, { isActive: false });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.data.isActive).toBe(false);
    const renamed = await patch(rule.id, { name: 'renamed', priority: 11 });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: 'renamed', priority: 11, isActive: false });
    const shown = await w.h.api('GET', `/v1/policies/${rule.id}`, { key: w.h.businessKey });
    const roundTrip = await patch(rule.id, { conditions: shown.body.data.conditions });
    expect(roundTrip.status, JSON.stringify(roundTrip.body)).toBe(200);
    // A currency on COUNT is still refused when sent, and nothing is written.
    const refused = await patch(rule.id, { conditions: { types: ['WITHDRAW'], velocity: { ...velocity, currency: 'USD' } } });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('conditions.velocity.currency applies to SUM only');
    expect((await stored(rule.id)).velocity).toEqual(velocity);
    // SUM keeps its default.
    const sum = await patch(rule.id, { conditions: { types: ['WITHDRAW'], velocity: { ...velocity, measure: 'SUM', limit: '5' } } });
    expect(sum.status, JSON.stringify(sum.body)).toBe(200);
    expect(sum.body.data.conditions.velocity).toEqual({ ...velocity, measure: 'SUM', limit: '5', currency: 'ASSET' });
  });

  it('migration 064: a COUNT velocity stored with a currency loses it (SUM keeps its own); run twice, the same', async () => {
    const wallet = Object.values(w.h.wallets)[0]!;
    const count = await policy(w, {
      name: 'count, as stored before',
      priority: 20,
      walletId: wallet.id,
      conditions: { velocity: { measure: 'COUNT', scope: 'DESTINATION', windowSeconds: 60, limit: '1' } },
      action: 'BLOCK',
    });
    const sum = await policy(w, {
      name: 'sum in USD',
      priority: 21,
      walletId: wallet.id,
      conditions: { velocity: { measure: 'SUM', scope: 'WALLET', windowSeconds: 60, limit: '100', currency: 'USD' } },
      action: 'BLOCK',
    });
    // As the check stored it before.
    await sql`UPDATE policies SET conditions = jsonb_set(conditions, '{velocity,currency}', '"ASSET"') WHERE id = ${count.id}`.execute(
      w.h.database.db,
    );
    expect(await stored(count.id)).toMatchObject({ velocity: { currency: 'ASSET' } });
    expect((await patch(count.id, { isActive: false })).status).toBe(400);

    const file = readFileSync(new URL('../../src/db/migrations/064_count_velocity_currency.sql', import.meta.url), 'utf8');
    for (let i = 0; i < 2; i++) await sql.raw(file).execute(w.h.database.db);
    expect((await stored(count.id)).velocity).toEqual({ measure: 'COUNT', scope: 'DESTINATION', windowSeconds: 60, limit: '1' });
    expect((await stored(sum.id)).velocity).toEqual({ measure: 'SUM', scope: 'WALLET', windowSeconds: 60, limit: '100', currency: 'USD' });
    expect((await patch(count.id, { isActive: false })).status).toBe(200);
  });

  it('an approver key revoked since: the rule can be switched off and renamed; a PATCH that sends the approvers checks them', async () => {
    const wallet = Object.values(w.h.wallets)[0]!;
    const gone = await mintKey(w.h, 'approver to revoke', ['APPROVE']);
    const approval = { approvers: { apiKeys: [w.approvers[0].id, gone.id] }, quorum: 1, ttlSeconds: 3600 };
    const rule = await policy(w, {
      name: 'two approvers',
      priority: 30,
      walletId: wallet.id,
      conditions: { types: ['WITHDRAW'] },
      action: 'REQUIRE_APPROVAL',
      approval,
    });
    const revoked = await w.h.api('DELETE', `/v1/api-keys/${gone.id}`, { key: w.h.businessKey });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);

    const off = await patch(rule.id, { isActive: false, name: 'two approvers, one gone' });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.data).toMatchObject({ isActive: false, name: 'two approvers, one gone' });
    // Sent again, the revoked key is refused, and nothing changes.
    const resent = await patch(rule.id, { approval, isActive: true });
    expect(resent.status).toBe(400);
    expect(resent.body.message).toBe(`${gone.id} is not a live business API key of this business`);
    expect((await w.h.api('GET', `/v1/policies/${rule.id}`, { key: w.h.businessKey })).body.data.isActive).toBe(false);
    const replaced = await patch(rule.id, { approval: { ...approval, approvers: { apiKeys: [w.approvers[0].id] } }, isActive: true });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(replaced.body.data.approval.approvers.apiKeys).toEqual([w.approvers[0].id]);
  });
});
