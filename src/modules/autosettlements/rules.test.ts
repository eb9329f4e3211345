import { describe, expect, it } from 'vitest';
import { pickRule, sameTerms, withinBounds, type StoredRule } from './rules.js';

let n = 0;
function rule(over: Partial<StoredRule> & { assets?: string[]; min?: string; max?: string | null }): StoredRule {
  n += 1;
  return {
    id: `00000000-0000-0000-0000-${String(n).padStart(12, '0')}`,
    wallet_id: 'w',
    address_id: null,
    name: `rule ${n}`,
    is_active: true,
    order: 'RECOMMENDED',
    slippage_tolerance: '1',
    source: { assets: over.assets ?? ['USDC'], blockchain: 'eth', minAmount: over.min ?? '0', maxAmount: over.max ?? null },
    destination: { asset: 'USDC', address: '0xd', blockchain: 'eth' },
    created_at: new Date(1_000 + n),
    updated_at: new Date(1_000 + n),
    ...over,
  };
}
const facts = (over: Partial<Parameters<typeof pickRule>[1]> = {}) => ({
  addressId: 'a1',
  chainSlug: 'eth',
  assetSymbol: 'USDC',
  decimals: 6,
  amount: 10_000_000n,
  ...over,
});
const on = { wallet: true, address: true };

describe('pickRule', () => {
  it('prefers an address rule over a wallet rule', () => {
    const wallet = rule({});
    const address = rule({ address_id: 'a1' });
    expect(pickRule([wallet, address], facts(), on)).toBe(address);
    expect(pickRule([wallet, address], facts({ addressId: 'a2' }), on)).toBe(wallet);
    expect(pickRule([wallet, address], facts({ addressId: null }), on)).toBe(wallet);
  });
  it('falls back to the wallet rule when the address switch is off, and to nothing when the wallet switch is', () => {
    const wallet = rule({});
    const address = rule({ address_id: 'a1' });
    expect(pickRule([wallet, address], facts(), { wallet: true, address: false })).toBe(wallet);
    expect(pickRule([wallet, address], facts(), { wallet: false, address: true })).toBeNull();
  });
  it('takes the oldest matching rule of a level; inactive, other-asset and other-chain rules do not match', () => {
    const older = rule({});
    const newer = rule({});
    expect(pickRule([newer, older], facts(), on)).toBe(older);
    expect(pickRule([rule({ is_active: false })], facts(), on)).toBeNull();
    expect(pickRule([rule({ assets: ['USDT'] })], facts(), on)).toBeNull();
    expect(pickRule([rule({ assets: ['usdt', 'usdc'] })], facts(), on)).not.toBeNull();
    expect(pickRule([rule({})], facts({ chainSlug: 'bsc' }), on)).toBeNull();
  });
  it('an address rule whose bounds exclude the amount leaves the deposit alone (no fallback)', () => {
    const wallet = rule({});
    const address = rule({ address_id: 'a1', min: '20' });
    expect(pickRule([wallet, address], facts(), on)).toBeNull();
  });
});

describe('withinBounds', () => {
  it('is inclusive at both ends, in the asset decimals', () => {
    expect(withinBounds({ minAmount: '10', maxAmount: '10' }, 10_000_000n, 6)).toBe(true);
    expect(withinBounds({ minAmount: '10', maxAmount: '20' }, 9_999_999n, 6)).toBe(false);
    expect(withinBounds({ minAmount: '10', maxAmount: '20' }, 20_000_001n, 6)).toBe(false);
    expect(withinBounds({ minAmount: '0', maxAmount: null }, 1n, 18)).toBe(true);
  });
});

describe('sameTerms', () => {
  it('ignores the name, timestamps, key order and symbol case; sees the destination, bounds, order and slippage', () => {
    const r = rule({});
    const copy = JSON.parse(JSON.stringify({ ...r, name: 'renamed', updated_at: new Date(9e12) })) as StoredRule;
    copy.source = { maxAmount: null, minAmount: '0', blockchain: 'eth', assets: ['usdc'] } as StoredRule['source'];
    expect(sameTerms(r, copy)).toBe(true);
    expect(sameTerms(r, { ...r, destination: { ...r.destination, address: '0xe' } })).toBe(false);
    expect(sameTerms(r, { ...r, source: { ...r.source, maxAmount: '5' } })).toBe(false);
    expect(sameTerms(r, { ...r, order: 'FASTEST' })).toBe(false);
    expect(sameTerms(r, { ...r, slippage_tolerance: '2' })).toBe(false);
    expect(sameTerms(r, rule({}))).toBe(false); // another rule
  });
});
