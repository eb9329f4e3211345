import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors.ts';
import { formatAmount, MAX_UINT256, parseAmount } from './money.ts';

describe('parseAmount', () => {
  it('converts decimal strings to base units exactly', () => {
    expect(parseAmount('0', 6)).toBe(0n);
    expect(parseAmount('1', 6)).toBe(1_000_000n);
    expect(parseAmount('12.5', 6)).toBe(12_500_000n);
    expect(parseAmount('0.000001', 6)).toBe(1n);
    expect(parseAmount('1.50', 6)).toBe(1_500_000n);
    expect(parseAmount('7.25', 18)).toBe(7_250_000_000_000_000_000n);
    expect(parseAmount('0.000000000000000001', 18)).toBe(1n);
    expect(parseAmount('42', 0)).toBe(42n);
    // Beyond 2^53: no float anywhere on the way.
    expect(parseAmount('9007199254740993', 0)).toBe(9_007_199_254_740_993n);
    expect(parseAmount('123456789012345678.123456789012345678', 18)).toBe(123456789012345678123456789012345678n);
  });

  it('accepts exactly uint256 max and nothing above it', () => {
    expect(parseAmount(MAX_UINT256.toString(), 0)).toBe(MAX_UINT256);
    expect(() => parseAmount((MAX_UINT256 + 1n).toString(), 0)).toThrow(ValidationError);
    // The limit applies to base units, so it shrinks with the decimals.
    const maxWhole18 = MAX_UINT256 / 10n ** 18n;
    expect(() => parseAmount(`${maxWhole18}`, 18)).not.toThrow();
    expect(() => parseAmount(`${maxWhole18 + 1n}`, 18)).toThrow(/too large/);
  });

  const rejected: [string, string][] = [
    ['0x10', 'hex'],
    ['1e3', 'exponent'],
    ['1E3', 'exponent'],
    ['-1', 'negative'],
    ['+1', 'explicit sign'],
    [' 1', 'leading space'],
    ['1 ', 'trailing space'],
    ['1.', 'no fraction digits'],
    ['.5', 'no whole digits'],
    ['', 'empty'],
    ['01', 'leading zero'],
    ['00.5', 'leading zeros'],
    ['1,5', 'comma'],
    ['1_000', 'separator'],
    ['1.2.3', 'two points'],
    ['NaN', 'not a number'],
    ['Infinity', 'not a number'],
    ['١٢', 'non-ASCII digits'],
    ['1\n', 'newline'],
  ];
  for (const [input, why] of rejected) {
    it(`rejects ${JSON.stringify(input)} (${why}) with a ValidationError naming the field`, () => {
      let error: unknown;
      try {
        parseAmount(input, 6, 'amount');
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).code).toBe('VALIDATION_ERROR');
      expect((error as ValidationError).details?.[0]?.field).toBe('amount');
    });
  }

  it('rejects more fraction digits than the asset has, never rounding', () => {
    expect(() => parseAmount('0.0000001', 6)).toThrow(/more than 6 decimal places/);
    expect(() => parseAmount('1.5', 0)).toThrow(/more than 0 decimal places/);
    expect(() => parseAmount(`0.${'1'.repeat(19)}`, 18)).toThrow(ValidationError);
  });

  it('names the field it was given', () => {
    expect(() => parseAmount('abc', 6, 'threshold')).toThrow(/^threshold /);
  });
});

describe('formatAmount', () => {
  it('formats base units without trailing zeros', () => {
    expect(formatAmount(0n, 6)).toBe('0');
    expect(formatAmount(1n, 6)).toBe('0.000001');
    expect(formatAmount(1_000_000n, 6)).toBe('1');
    expect(formatAmount(12_500_000n, 6)).toBe('12.5');
    expect(formatAmount(10_000_000n, 6)).toBe('10');
    expect(formatAmount(7_250_000_000_000_000_000n, 18)).toBe('7.25');
    expect(formatAmount(42n, 0)).toBe('42');
    expect(formatAmount(-1_500_000n, 6)).toBe('-1.5');
    expect(formatAmount(MAX_UINT256, 0)).toBe(MAX_UINT256.toString());
    expect(formatAmount(MAX_UINT256, 18)).toBe('115792089237316195423570985008687907853269984665640564039457.584007913129639935');
  });
});

describe('parseAmount and formatAmount are inverse', () => {
  const decimals = fc.integer({ min: 0, max: 36 });
  /** Canonical decimal strings: no leading zeros, no trailing fraction zeros, at most `d` fraction digits. */
  const canonical = (d: number) =>
    fc
      .tuple(
        fc.oneof(fc.constant('0'), fc.bigInt({ min: 1n, max: 10n ** 40n }).map(String)),
        fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: d }),
      )
      .map(([whole, fraction]) => {
        const trimmed = fraction.replace(/0+$/, '');
        return trimmed ? `${whole}.${trimmed}` : whole;
      });

  it('formatAmount(parseAmount(s, d), d) === s for canonical strings', () => {
    fc.assert(
      fc.property(
        decimals.chain((d) => canonical(d).map((s) => [s, d] as const)),
        ([s, d]) => {
          expect(formatAmount(parseAmount(s, d), d)).toBe(s);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('parseAmount(formatAmount(u, d), d) === u for every uint256', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: MAX_UINT256 }), decimals, (units, d) => {
        expect(parseAmount(formatAmount(units, d), d)).toBe(units);
      }),
      { numRuns: 2_000 },
    );
  });

  it('trailing fraction zeros (up to the asset decimals) parse to the same units', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 1, max: 18 }), (units, d) => {
        const [whole, fraction = ''] = formatAmount(units, d).split('.');
        expect(parseAmount(`${whole}.${fraction.padEnd(d, '0')}`, d)).toBe(units);
      }),
    );
  });
});
