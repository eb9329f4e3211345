/**
 * Money is bigint base units inside and decimal strings outside. These two functions
 * are the only crossing points; neither ever touches a float.
 */
import { ValidationError } from './errors.js';

/** Largest value an EVM uint256 (and our numeric(78,0) columns) can hold. */
export const MAX_UINT256 = (1n << 256n) - 1n;

const DECIMAL = /^(0|[1-9]\d*)(?:\.(\d+))?$/;

/**
 * Parse a client's decimal string ("12.5") into base units for an asset with `decimals`.
 * Refuses signs, exponents, spaces, more fraction digits than the asset has, and values
 * above uint256: each is a client mistake that must never be rounded away silently.
 */
export function parseAmount(input: string, decimals: number, field = 'amount'): bigint {
  const match = DECIMAL.exec(input);
  if (!match) {
    throw new ValidationError(`${field} must be a plain decimal string such as "10.5"`, [
      { field, message: 'not a plain non-negative decimal number' },
    ]);
  }
  const whole = match[1] ?? '0';
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) {
    throw new ValidationError(`${field} has more than ${decimals} decimal places`, [
      { field, message: `at most ${decimals} decimal places for this asset` },
    ]);
  }
  const units = BigInt(whole + fraction.padEnd(decimals, '0'));
  if (units > MAX_UINT256) {
    throw new ValidationError(`${field} is too large`, [{ field, message: 'exceeds uint256' }]);
  }
  return units;
}

/** Format base units as a decimal string without trailing zeros ("1.5", "0", "1000"). */
export function formatAmount(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = decimals > 0 ? digits.slice(digits.length - decimals).replace(/0+$/, '') : '';
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}
