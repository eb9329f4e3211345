/**
 * Tron addresses: 21 bytes (0x41, then the 20 bytes an EVM address of the same key has),
 * written base58check (`T…`, 34 characters; the check is the first 4 bytes of a double
 * SHA-256). The canonical form is base58check; on input the hex spellings clients and the
 * node use are accepted too: `41…` (java-tron's hex), `0x41…` (tronweb's) and the 20-byte
 * `0x…` the TVM, its ABI and its logs use. Hex carries no checksum, so it is accepted in any
 * case; a base58 typo fails the checksum and is refused.
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import { sha256 } from '@noble/hashes/sha2';
import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils';
import { createBase58check } from '@scure/base';
import type { AddressCodec } from '../types.js';

export const TRON_ADDRESS_PREFIX = 0x41;

const base58check = createBase58check(sha256);
const BASE58 = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
const HEX_WITH_PREFIX = /^(?:0x)?41([0-9a-fA-F]{40})$/;
const HEX_20 = /^0x([0-9a-fA-F]{40})$/;

/** The 21 bytes of any accepted spelling, or null. */
export function tronAddressBytes(input: unknown): Uint8Array | null {
  if (typeof input !== 'string') return null;
  if (BASE58.test(input)) {
    try {
      const bytes = base58check.decode(input);
      return bytes.length === 21 && bytes[0] === TRON_ADDRESS_PREFIX ? bytes : null;
    } catch {
      return null; // wrong checksum
    }
  }
  const hex = HEX_WITH_PREFIX.exec(input)?.[1] ?? HEX_20.exec(input)?.[1];
  if (hex === undefined) return null;
  const bytes = new Uint8Array(21);
  bytes[0] = TRON_ADDRESS_PREFIX;
  bytes.set(hexToBytes(hex), 1);
  return bytes;
}

function encode(bytes: Uint8Array): string {
  return base58check.encode(bytes);
}

/** java-tron's hex form (`41` + 40 lower-case hex digits) of an address, or null. */
export function tronHex(input: unknown): string | null {
  const bytes = tronAddressBytes(input);
  return bytes ? bytesToHex(bytes) : null;
}

/** The 20-byte `0x…` form the TVM and its ABI use (lower case), or null. */
export function tronEvmHex(input: unknown): `0x${string}` | null {
  const bytes = tronAddressBytes(input);
  return bytes ? `0x${bytesToHex(bytes.subarray(1))}` : null;
}

export const tronCodec: AddressCodec = {
  family: 'tron',
  normalize(input) {
    const bytes = tronAddressBytes(input);
    return bytes ? encode(bytes) : null;
  },
  fromPublicKey(publicKey) {
    if (publicKey.length === 65 ? publicKey[0] !== 0x04 : publicKey.length !== 33) throw new Error('not a secp256k1 public key');
    const uncompressed = publicKey.length === 65 ? publicKey : secp256k1.ProjectivePoint.fromHex(publicKey).toRawBytes(false);
    const bytes = new Uint8Array(21);
    bytes[0] = TRON_ADDRESS_PREFIX;
    bytes.set(keccak_256(uncompressed.subarray(1)).subarray(12), 1);
    return encode(bytes);
  },
  equals(a, b) {
    const x = tronCodec.normalize(a);
    return x !== null && x === tronCodec.normalize(b);
  },
};
