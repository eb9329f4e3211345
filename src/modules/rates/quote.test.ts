import { describe, expect, it } from 'vitest';
import type { PriceFeedRound } from '../../chains/types.js';
import { judgeRound, PEG_QUOTE, rateText, usdValue, type UsdQuote } from './quote.js';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const nowS = NOW / 1000;
const round = (over: Partial<PriceFeedRound> = {}): PriceFeedRound => ({
  roundId: 10n,
  answer: 99_970_000n,
  decimals: 8,
  startedAt: nowS - 60,
  updatedAt: nowS - 60,
  answeredInRound: 10n,
  ...over,
});
const quote = (rate: bigint, decimals: number): UsdQuote => ({ rate, decimals, source: 'feed', updatedAt: nowS, validUntil: Infinity });

describe('judgeRound', () => {
  it('accepts a fresh round, valid until its heartbeat and grace run out', () => {
    const r = judgeRound(round(), 86_400, 600, NOW);
    expect(r.quote).toEqual({
      rate: 99_970_000n,
      decimals: 8,
      source: 'feed',
      updatedAt: nowS - 60,
      validUntil: (nowS - 60 + 87_000) * 1000,
    });
  });

  it('refuses a round older than heartbeat + grace, and accepts one just inside', () => {
    expect(judgeRound(round({ updatedAt: nowS - 87_001 }), 86_400, 600, NOW)).toMatchObject({ quote: null, reason: 'STALE' });
    expect(judgeRound(round({ updatedAt: nowS - 87_000 }), 86_400, 600, NOW).quote).not.toBeNull();
  });

  it('refuses an answer carried over from an earlier round, unless the feed does not report it (0)', () => {
    expect(judgeRound(round({ answeredInRound: 9n }), 86_400, 600, NOW)).toMatchObject({ quote: null, reason: 'STALE' });
    expect(judgeRound(round({ answeredInRound: 0n }), 86_400, 600, NOW).quote).not.toBeNull();
    expect(judgeRound(round({ answeredInRound: 11n }), 86_400, 600, NOW).quote).not.toBeNull();
  });

  it('refuses zero and negative answers, incomplete rounds, future stamps and absurd decimals', () => {
    for (const bad of [{ answer: 0n }, { answer: -1n }, { updatedAt: 0 }, { updatedAt: nowS + 301 }, { decimals: 37 }]) {
      expect(
        judgeRound(round(bad), 86_400, 600, NOW),
        JSON.stringify(bad, (_k, v) => String(v)),
      ).toMatchObject({
        quote: null,
        reason: 'INVALID',
      });
    }
    expect(judgeRound(round({ updatedAt: nowS + 299 }), 86_400, 600, NOW).quote).not.toBeNull();
  });
});

describe('usdValue', () => {
  it('at a rate of exactly 1 is the amount itself, digit for digit (6 and 18 decimals, and the peg)', () => {
    expect(usdValue(123_456_789n, 6, quote(100_000_000n, 8))).toBe('123.456789');
    expect(usdValue(1_000_000_000_000_000_001n, 18, quote(100_000_000n, 8))).toBe('1.000000000000000001');
    expect(usdValue(42_000_042n, 6, PEG_QUOTE)).toBe('42.000042');
    expect(usdValue(0n, 6, quote(99_970_000n, 8))).toBe('0');
  });

  it('multiplies in bigint and rounds down to the asset decimals', () => {
    // 10.5 USDT at 0.9997 = 10.49685
    expect(usdValue(10_500_000n, 6, quote(99_970_000n, 8))).toBe('10.49685');
    // 0.000001 at 0.9997 = 0.0000009997 -> 0 at 6 decimals (down, never up)
    expect(usdValue(1n, 6, quote(99_970_000n, 8))).toBe('0');
    // 1.000000000000000001 (18 dec) at 0.9997 = 0.9997000000000000009997 -> cut at 18 digits
    expect(usdValue(1_000_000_000_000_000_001n, 18, quote(99_970_000n, 8))).toBe('0.9997');
    // A volatile asset: 1.5 ETH at 2500.12345678
    expect(usdValue(1_500_000_000_000_000_000n, 18, quote(250_012_345_678n, 8))).toBe('3750.18518517');
    // A huge amount keeps every digit (no float anywhere).
    expect(usdValue(123_456_789_012_345_678_901_234_567_890n, 6, quote(100_000_001n, 8))).toBe('123456790246913569024691.356902');
  });
});

describe('rateText', () => {
  it('gives the feed answer with its own precision, every digit, as a decimal string', () => {
    expect(rateText(quote(100_000_000n, 8))).toBe('1');
    expect(rateText(quote(99_970_000n, 8))).toBe('0.9997');
    expect(rateText(quote(250_012_345_678n, 8))).toBe('2500.12345678');
    expect(rateText(PEG_QUOTE)).toBe('1');
    // 18 decimals: nothing is cut (a JSON number would have lost the last digits).
    expect(rateText(quote(999_712_345_678_901_234n, 18))).toBe('0.999712345678901234');
    expect(rateText(quote(1_234_567n, 18))).toBe('0.000000000001234567');
  });
});
