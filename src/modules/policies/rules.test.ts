import { describe, expect, it } from 'vitest';
import { decide, scaled, staticMatch, velocityMatch, type Candidate, type Rule } from './rules.js';

const rule = (over: Partial<Rule>): Rule => ({
  id: over.id ?? 'r',
  name: over.name ?? 'rule',
  priority: over.priority ?? 10,
  walletId: null,
  addressId: null,
  isActive: true,
  conditions: {},
  action: 'BLOCK',
  approval: null,
  ...over,
});
const usdc = { id: 'usdc', symbol: 'USDC', decimals: 6 };
const candidate = (over: Partial<Candidate> = {}): Candidate => ({
  type: 'WITHDRAW',
  walletId: 'w',
  addressId: null,
  asset: usdc,
  amount: 150_000_000n,
  amountUsd: '150',
  destination: '0xabc',
  destinationKind: 'NON_BENEFICIARY',
  initiator: { kind: 'API_KEY', id: 'k' },
  ...over,
});
const none = () => ({ count: 0, sumAsset: 0n, sumUsd: '0' });

describe('policy rules', () => {
  it('the first matching rule by priority decides; none matching allows', () => {
    const rules = [
      rule({ id: 'b', priority: 20, action: 'ALLOW' }),
      rule({ id: 'a', priority: 10, conditions: { amount: { min: '1000', currency: 'ASSET' } } }),
      rule({ id: 'c', priority: 20, action: 'REQUIRE_APPROVAL' }),
    ];
    const d = decide(rules, candidate(), none);
    expect(d.action).toBe('ALLOW');
    expect(d.rule!.id).toBe('b'); // ties: the older (lower id) first
    expect(d.steps.map((s) => [s.policyId, s.matched])).toEqual([
      ['a', false],
      ['b', true],
    ]);
    expect(decide([], candidate(), none)).toMatchObject({ action: 'ALLOW', rule: null });
  });

  it('amount bounds are inclusive and exact at any number of decimals', () => {
    const r = (min?: string, max?: string) =>
      rule({ conditions: { amount: { ...(min ? { min } : {}), ...(max ? { max } : {}), currency: 'ASSET' } } });
    expect(staticMatch(r('150'), candidate()).ok).toBe(true);
    expect(staticMatch(r('150.000001'), candidate()).ok).toBe(false);
    expect(staticMatch(r(undefined, '150'), candidate()).ok).toBe(true);
    expect(staticMatch(r(undefined, '149.999999999999999999'), candidate()).ok).toBe(false);
    // USD needs a rate.
    const usd = rule({ conditions: { amount: { min: '1', currency: 'USD' } } });
    expect(staticMatch(usd, candidate({ amountUsd: null }))).toEqual({ ok: false, why: 'no USD rate for the asset' });
  });

  it('scope, types, assets, destinations and initiators', () => {
    expect(staticMatch(rule({ walletId: 'other' }), candidate()).ok).toBe(false);
    expect(staticMatch(rule({ conditions: { types: ['BATCH_ITEM'] } }), candidate()).ok).toBe(false);
    expect(staticMatch(rule({ conditions: { assets: ['USDT'] } }), candidate()).ok).toBe(false);
    expect(staticMatch(rule({ conditions: { destination: 'WHITELISTED' } }), candidate({ destinationKind: 'WHITELISTED' })).ok).toBe(true);
    expect(
      staticMatch(rule({ conditions: { destination: 'BENEFICIARY' } }), candidate({ destinationKind: 'BENEFICIARY_NOT_WHITELISTED' })).ok,
    ).toBe(true);
    expect(staticMatch(rule({ conditions: { destination: 'BENEFICIARY' } }), candidate()).ok).toBe(false);
    expect(staticMatch(rule({ conditions: { initiators: { system: true } } }), candidate()).ok).toBe(false);
    expect(staticMatch(rule({ conditions: { initiators: { apiKeys: ['k'] } } }), candidate()).ok).toBe(true);
    expect(staticMatch(rule({ isActive: false }), candidate()).ok).toBe(false);
  });

  it('velocity: the window with this transaction over the limit', () => {
    const sum = { measure: 'SUM' as const, scope: 'WALLET' as const, windowSeconds: 3600, limit: '200', currency: 'ASSET' as const };
    expect(velocityMatch(sum, candidate(), { count: 1, sumAsset: 50_000_000n, sumUsd: '50' }).ok).toBe(false); // 200: not over
    expect(velocityMatch(sum, candidate(), { count: 1, sumAsset: 50_000_001n, sumUsd: '50' }).ok).toBe(true);
    expect(velocityMatch({ ...sum, currency: 'USD', limit: '199.99' }, candidate(), none()).ok).toBe(false);
    expect(velocityMatch({ ...sum, currency: 'USD', limit: '149.99' }, candidate(), none()).ok).toBe(true);
    const count = { measure: 'COUNT' as const, scope: 'DESTINATION' as const, windowSeconds: 60, limit: '2' };
    expect(velocityMatch(count, candidate(), { count: 1, sumAsset: 0n, sumUsd: '0' }).ok).toBe(false);
    expect(velocityMatch(count, candidate(), { count: 2, sumAsset: 0n, sumUsd: '0' })).toEqual({
      ok: true,
      why: 'it would be transaction 3 of this destination in 1 minute, over the limit of 2',
    });
    expect(scaled('1.5') > scaled('1.49999999999999999999999')).toBe(true);
  });
});
