import { describe, expect, it } from 'vitest';
import type { SwapQuote } from '../../chains/types.js';
import { amountOut, chooseRoute, minimumOut, parValue, slippageMillionths } from './quote.js';

// Network data is opaque above the seam: a route's is only told apart from another's here.
const q = (path: string[], out: bigint, units = 160_000n): SwapQuote => ({
  path,
  amountOut: out,
  midAmountOut: out,
  network: { units: units.toString() },
});

describe('amountOut (x * y = k with a 0.3% fee)', () => {
  it('matches the formula on known values', () => {
    // 1,000 in against a 1,000,000 / 1,000,000 pool: 997,000 * 1e6 / (1e9 + 997,000).
    expect(amountOut(1_000n, 1_000_000n, 1_000_000n)).toBe(996n);
    expect(amountOut(100_000_000n, 10n ** 13n, 10n ** 13n)).toBe(99_699_006n);
  });
  it('never gives the whole reserve and is zero for empty input or pools', () => {
    expect(amountOut(10n ** 30n, 1_000n, 1_000n)).toBeLessThan(1_000n);
    expect(amountOut(0n, 1n, 1n)).toBe(0n);
    expect(amountOut(5n, 0n, 1n)).toBe(0n);
  });
});

describe('slippage', () => {
  it('reads percentages with up to 4 decimals', () => {
    expect(slippageMillionths('0.5')).toBe(5_000n);
    expect(slippageMillionths('5')).toBe(50_000n);
    expect(slippageMillionths('0.0001')).toBe(1n);
    expect(() => slippageMillionths('-1')).toThrow();
    expect(() => slippageMillionths('0.00001')).toThrow();
  });
  it('rounds the minimum up, so it is never looser than asked', () => {
    expect(minimumOut(1_000_000n, '1')).toBe(990_000n);
    expect(minimumOut(999n, '0.5')).toBe(995n); // 994.005 -> 995
    expect(minimumOut(1_000n, '0')).toBe(1_000n);
    expect(minimumOut(1_000n, '100')).toBe(0n);
  });
  it('par value scales between decimals, rounding down', () => {
    expect(parValue(1_500_000n, 6, 18)).toBe(1_500_000_000_000_000_000n);
    expect(parValue(1_500_000_000_000_000_001n, 18, 6)).toBe(1_500_000n);
  });
});

describe('route choice', () => {
  const direct = q(['A', 'B'], 1_000n);
  const viaNative = q(['A', 'W', 'B'], 1_010n, 250_000n);
  it('RECOMMENDED and NO_SLIPPAGE take the best output', () => {
    expect(chooseRoute([direct, viaNative], 'RECOMMENDED', () => null)).toBe(viaNative);
    expect(chooseRoute([direct, viaNative], 'NO_SLIPPAGE', () => null)).toBe(viaNative);
  });
  it('FASTEST takes the fewest hops', () => {
    expect(chooseRoute([viaNative, direct], 'FASTEST', () => null)).toBe(direct);
  });
  it('CHEAPEST takes the best output net of its network fee valued in the output asset', () => {
    const fee = (r: SwapQuote) => (r.network.units === '250000' ? 20n : 5n);
    expect(chooseRoute([direct, viaNative], 'CHEAPEST', fee)).toBe(direct); // 995 vs 990
    expect(chooseRoute([direct, viaNative], 'CHEAPEST', () => null)).toBe(viaNative);
  });
  it('no quotes, no route', () => {
    expect(chooseRoute([], 'RECOMMENDED', () => null)).toBeNull();
  });
});
