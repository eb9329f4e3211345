import { describe, expect, it } from 'vitest';
import { thresholdUnits } from './records.js';

describe('thresholdUnits: the auto-sweep threshold (a JSON number) in base units, never through a float', () => {
  it('reads what the client wrote, not the binary double', () => {
    expect(thresholdUnits(0.1, 18)).toBe(10n ** 17n);
    expect(thresholdUnits(0.3, 18)).toBe(3n * 10n ** 17n);
    expect(thresholdUnits(1.1, 18)).toBe(11n * 10n ** 17n);
    expect(thresholdUnits(123.456789, 6)).toBe(123_456_789n);
    expect(thresholdUnits(10, 6)).toBe(10_000_000n);
  });

  it('expands exponent forms', () => {
    expect(thresholdUnits(1e-7, 18)).toBe(10n ** 11n);
    expect(thresholdUnits(1.5e-7, 9)).toBe(150n);
    expect(thresholdUnits(1e15, 6)).toBe(10n ** 21n);
    expect(thresholdUnits(1.5e21, 2)).toBe(15n * 10n ** 22n);
  });

  it('rounds digits past the asset decimals up: a deposit reaches the threshold only at or above it', () => {
    expect(thresholdUnits(0.0000015, 6)).toBe(2n);
    expect(thresholdUnits(1e-7, 6)).toBe(1n);
    expect(thresholdUnits(2.5, 0)).toBe(3n);
  });

  it('is 0 for zero, negatives and non-finite numbers', () => {
    expect(thresholdUnits(0, 6)).toBe(0n);
    expect(thresholdUnits(-1, 6)).toBe(0n);
    expect(thresholdUnits(Number.NaN, 6)).toBe(0n);
    expect(thresholdUnits(Number.POSITIVE_INFINITY, 6)).toBe(0n);
  });
});
