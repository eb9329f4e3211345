import { describe, expect, it } from 'vitest';
import { parseLossless } from './node.js';

describe('parseLossless (java-tron writes int64 as bare JSON numbers)', () => {
  it('keeps integers beyond 2^53 exact, as decimal strings', () => {
    const v = parseLossless('{"balance": 123456789012345678901, "small": 42, "neg": -9007199254740993}') as Record<string, unknown>;
    expect(v).toEqual({ balance: '123456789012345678901', small: 42, neg: '-9007199254740993' });
    expect(BigInt(v.balance as string)).toBe(123456789012345678901n);
  });

  it('leaves safe integers, decimals, exponents and numbers inside strings alone', () => {
    const text = '{"a": 9007199254740991, "b": 1.5, "c": 1e30, "s": "99999999999999999999 \\" 12345678901234567890", "l": [0, -1]}';
    expect(parseLossless(text)).toEqual({
      a: 9007199254740991,
      b: 1.5,
      c: 1e30,
      s: '99999999999999999999 " 12345678901234567890',
      l: [0, -1],
    });
  });

  it('refuses what is not JSON', () => {
    expect(() => parseLossless('{"a": }')).toThrow();
    expect(() => parseLossless('<html>')).toThrow();
  });
});
