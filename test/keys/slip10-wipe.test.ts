import { describe, expect, it, vi } from 'vitest';
import { hexToBytes } from '@noble/hashes/utils';

/*
 * Records every HMAC-SHA512 SLIP-0010 computes (node:crypto's createHmac): its key (the
 * parent's chain code, or the constant "ed25519 seed" for the master), its input
 * (0x00 || parent key || index) and its output (the child's key and chain code). After a
 * derivation every one of them must be zero but the node handed back.
 */
const calls: { key: Uint8Array; data: Uint8Array; out: Uint8Array<ArrayBufferLike> }[] = [];
vi.mock('node:crypto', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:crypto')>();
  const createHmac = ((algorithm: string, key: Uint8Array) => {
    const real = original.createHmac(algorithm, key);
    const call: (typeof calls)[number] = { key, data: new Uint8Array(0), out: new Uint8Array(0) };
    const recorder = {
      update(data: Uint8Array) {
        call.data = data;
        real.update(data);
        return recorder;
      },
      digest() {
        call.out = real.digest();
        calls.push(call);
        return call.out;
      },
    };
    return recorder;
  }) as unknown as typeof original.createHmac;
  return { ...original, default: { ...original, createHmac }, createHmac };
});

const { slip10FromSeed } = await import('../../src/keys/slip10.js');
const { solanaDerivation } = await import('../../src/chains/solana/derivation.js');

const zero = (bytes: Uint8Array) => bytes.every((b) => b === 0);

describe('SLIP-0010 leaves no secret behind', () => {
  it('a path derivation zeroes every HMAC output, every HMAC input and every parent chain code', () => {
    calls.length = 0;
    const seed = hexToBytes('000102030405060708090a0b0c0d0e0f');
    const node = slip10FromSeed(seed, "m/44'/501'/0'/0'");
    expect(calls).toHaveLength(5); // master + 4 levels
    for (const call of calls) expect(zero(call.out)).toBe(true);
    for (const call of calls.slice(1)) {
      expect(zero(call.data)).toBe(true);
      expect(zero(call.key)).toBe(true); // a parent's chain code
    }
    expect(zero(node.privateKey)).toBe(false); // the node asked for is the caller's
    expect(zero(seed)).toBe(false); // and so is the seed
  });

  it("Solana's batch derivation zeroes everything, the prefix node included", () => {
    calls.length = 0;
    const seed = hexToBytes('000102030405060708090a0b0c0d0e0f');
    const keys = solanaDerivation.publicKeysFromSeed(seed, [0, 1, 2]);
    expect(keys).toHaveLength(3);
    expect(calls).toHaveLength(3 + 3 * 2); // master, 44', 501', then two levels per address
    for (const call of calls) expect(zero(call.out)).toBe(true);
    for (const call of calls.slice(1)) {
      expect(zero(call.data)).toBe(true);
      expect(zero(call.key)).toBe(true);
    }
    const privateKey = solanaDerivation.privateKeyFromSeed(seed, 1);
    expect(zero(privateKey)).toBe(false);
  });
});
