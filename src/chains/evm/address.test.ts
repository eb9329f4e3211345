import { describe, expect, it } from 'vitest';
import { parseEvmAddress } from './address.js';

// The EIP-55 test vectors (from the EIP itself).
const VECTORS = [
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];

describe('parseEvmAddress', () => {
  it('accepts a correct EIP-55 checksum and returns it as is', () => {
    for (const a of VECTORS) expect(parseEvmAddress(a)).toBe(a);
  });

  it('accepts all-lower and all-upper case (no checksum to check) and returns the checksummed form', () => {
    for (const a of VECTORS) {
      expect(parseEvmAddress(a.toLowerCase())).toBe(a);
      expect(parseEvmAddress(`0x${a.slice(2).toUpperCase()}`)).toBe(a);
    }
    // Digits only: every case at once.
    expect(parseEvmAddress(`0x${'12'.repeat(20)}`)).toBe(`0x${'12'.repeat(20)}`);
    expect(parseEvmAddress(`0x${'AB'.repeat(20)}`)).toBe(parseEvmAddress(`0x${'ab'.repeat(20)}`));
  });

  it('refuses mixed case with a wrong checksum (one letter flipped)', () => {
    for (const a of VECTORS) {
      const i = a.slice(2).search(/[a-fA-F]/) + 2;
      const flipped = a.slice(0, i) + (a[i] === a[i]!.toLowerCase() ? a[i]!.toUpperCase() : a[i]!.toLowerCase()) + a.slice(i + 1);
      expect(parseEvmAddress(flipped), flipped).toBeNull();
    }
  });

  it('refuses everything that is not 0x and 40 hex digits', () => {
    for (const bad of [
      '',
      '0x',
      `0X${'ab'.repeat(20)}`,
      `${'ab'.repeat(20)}`,
      `0x${'ab'.repeat(19)}`,
      `0x${'ab'.repeat(21)}`,
      `0x${'gg'.repeat(20)}`,
      ` 0x${'ab'.repeat(20)}`,
      null,
      42,
    ]) {
      expect(parseEvmAddress(bad), String(bad)).toBeNull();
    }
  });
});
