import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { getAddressDecoder, isAddress } from '@solana/kit';
import { solanaCodec } from './codec.js';

// Well-known mainnet accounts: the System program, the SPL Token program, the USDC mint.
const KNOWN = [
  '11111111111111111111111111111111',
  'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
];

describe('solanaCodec', () => {
  it('accepts base58 of 32 bytes as is (one spelling per key)', () => {
    for (const address of KNOWN) expect(solanaCodec.normalize(address)).toBe(address);
    expect(solanaCodec.equals(KNOWN[2]!, KNOWN[2]!)).toBe(true);
    expect(solanaCodec.equals(KNOWN[1]!, KNOWN[2]!)).toBe(false);
  });

  it('formats a public key as base58, round-tripping through normalize', () => {
    expect(solanaCodec.fromPublicKey(new Uint8Array(32))).toBe(KNOWN[0]);
    for (let i = 0; i < 20; i++) {
      const publicKey = ed25519.getPublicKey(randomBytes(32));
      const address = solanaCodec.fromPublicKey(publicKey);
      expect(address).toBe(getAddressDecoder().decode(publicKey)); // @solana/kit's spelling
      expect(solanaCodec.normalize(address)).toBe(address);
    }
    expect(() => solanaCodec.fromPublicKey(new Uint8Array(33))).toThrow();
  });

  it('refuses wrong lengths, non-base58 characters and other families with null, never a throw', () => {
    const usdc = KNOWN[2]!;
    for (const bad of [
      base58.encode(new Uint8Array(31).fill(7)), // 31 bytes
      base58.encode(new Uint8Array(33).fill(7)), // 33 bytes
      `1${usdc}`, // a leading 1 is one more zero byte
      usdc.slice(0, 30), // too short to be 32 bytes
      usdc.replace('E', '0'), // 0, O, I and l are not base58
      usdc.replace('E', 'O'),
      usdc.replace('E', 'I'),
      usdc.replace('E', 'l'),
      `${usdc} `,
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      'x'.repeat(2000),
      '',
      null,
      undefined,
      32,
      [],
    ]) {
      expect(solanaCodec.normalize(bad), String(bad).slice(0, 60)).toBeNull();
    }
  });

  it("agrees with @solana/kit's isAddress on valid, mangled and random strings", () => {
    const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0OIl ';
    const inputs: string[] = [...KNOWN];
    for (let i = 0; i < 300; i++) {
      const address = base58.encode(randomBytes(32));
      inputs.push(address, address.slice(1), `1${address}`, address + 'z', address.replace(/./, '0'));
      const length = 28 + (i % 20);
      inputs.push(Array.from(randomBytes(length), (b) => alphabet[b % alphabet.length]).join(''));
    }
    for (const input of inputs) {
      let kit: boolean;
      try {
        kit = isAddress(input);
      } catch {
        kit = false;
      }
      expect(solanaCodec.normalize(input) !== null, input).toBe(kit);
    }
  });
});
