/**
 * TEST DOUBLE, part of the abacus family: its addresses. `ab` + base58 of a 20-byte key hash
 * (sha256 of the compressed secp256k1 public key, first 20 bytes) and a 4-byte checksum
 * (sha256 of those 20, first 4). Base58 is case-sensitive: spellings that differ in case are
 * different strings, and one of them at most carries the checksum.
 */
import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { base58 } from '@scure/base';
import type { AddressCodec } from '../../../src/chains/types.js';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest();
const PREFIX = 'ab';

function fromHash(hash20: Uint8Array): string {
  return PREFIX + base58.encode(Buffer.concat([hash20, sha256(hash20).subarray(0, 4)]));
}

/** The address of a secp256k1 public key (33 or 65 bytes). */
export function abacusAddress(publicKey: Uint8Array): string {
  const compressed = secp256k1.ProjectivePoint.fromHex(publicKey).toRawBytes(true);
  return fromHash(sha256(compressed).subarray(0, 20));
}

export const ABACUS_ZERO = fromHash(new Uint8Array(20));

export const abacusCodec: AddressCodec = {
  family: 'abacus',
  normalize(input) {
    if (typeof input !== 'string' || !input.startsWith(PREFIX)) return null;
    try {
      const bytes = base58.decode(input.slice(PREFIX.length));
      if (bytes.length !== 24) return null;
      const body = bytes.subarray(0, 20);
      return Buffer.from(sha256(body).subarray(0, 4)).equals(Buffer.from(bytes.subarray(20))) ? input : null;
    } catch {
      return null;
    }
  },
  fromPublicKey: abacusAddress,
  equals(a, b) {
    const x = abacusCodec.normalize(a);
    return x !== null && x === abacusCodec.normalize(b);
  },
};
