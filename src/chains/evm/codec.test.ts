import { describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1';
import { hexToBytes } from '@noble/hashes/utils';
import { evmCodec } from './codec.js';

// The EIP-55 test vectors (from the EIP itself).
const EIP55 = [
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];

describe('evmCodec', () => {
  it('normalizes to EIP-55: checksummed input as is, one-case input checksummed, a wrong checksum refused', () => {
    for (const a of EIP55) {
      expect(evmCodec.normalize(a)).toBe(a);
      expect(evmCodec.normalize(a.toLowerCase())).toBe(a);
      expect(evmCodec.normalize(`0x${a.slice(2).toUpperCase()}`)).toBe(a);
      const i = a.slice(2).search(/[a-fA-F]/) + 2;
      const flipped = a.slice(0, i) + (a[i] === a[i]!.toLowerCase() ? a[i]!.toUpperCase() : a[i]!.toLowerCase()) + a.slice(i + 1);
      expect(evmCodec.normalize(flipped), flipped).toBeNull();
    }
  });

  it('refuses wrong lengths, odd hex, other families and non-strings with null, never a throw', () => {
    for (const bad of [
      '',
      '0x',
      `0x${'ab'.repeat(19)}`,
      `0x${'ab'.repeat(21)}`,
      `0x${'a'.repeat(39)}`,
      `0x${'zz'.repeat(20)}`,
      `41${'ab'.repeat(20)}`,
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
      ` ${EIP55[0]}`,
      null,
      undefined,
      42,
      {},
    ]) {
      expect(evmCodec.normalize(bad), String(bad)).toBeNull();
    }
  });

  it('formats a public key (compressed or not) as the address of its key: anvil account 0', () => {
    const privateKey = hexToBytes('ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
    for (const compressed of [true, false]) {
      expect(evmCodec.fromPublicKey(secp256k1.getPublicKey(privateKey, compressed))).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    }
    expect(() => evmCodec.fromPublicKey(new Uint8Array(32))).toThrow();
  });

  it('compares spellings of one account', () => {
    expect(evmCodec.equals(EIP55[0]!, EIP55[0]!.toLowerCase())).toBe(true);
    expect(evmCodec.equals(EIP55[0]!, EIP55[1]!)).toBe(false);
    expect(evmCodec.equals('junk', 'junk')).toBe(false);
  });
});
