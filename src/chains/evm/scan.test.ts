import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { checksumLower } from './scan.js';

describe('checksumLower', () => {
  it('writes the EIP-55 form viem writes, for 5,000 random addresses and the edge cases', () => {
    const samples = [
      '0x0000000000000000000000000000000000000000',
      '0xffffffffffffffffffffffffffffffffffffffff',
      '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
      ...Array.from({ length: 5_000 }, () => `0x${randomBytes(20).toString('hex')}`),
    ];
    for (const lower of samples) expect(checksumLower(lower)).toBe(getAddress(lower));
  });
});

describe('keccak-256 of the runtime', () => {
  it('is the keccak-256 @noble computes (checksumLower uses node:crypto where OpenSSL has it)', async () => {
    const { getHashes, hash } = await import('node:crypto');
    const { keccak_256 } = await import('@noble/hashes/sha3');
    if (!getHashes().includes('keccak-256')) return; // the @noble fallback is then what checksumLower runs
    for (let i = 0; i < 200; i++) {
      const text = randomBytes(20).toString('hex');
      expect(hash('keccak-256', text, 'hex')).toBe(Buffer.from(keccak_256(new TextEncoder().encode(text))).toString('hex'));
    }
  });
});
