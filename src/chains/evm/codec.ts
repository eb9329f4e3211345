/**
 * EVM addresses in the seam's terms: `0x` + 20 bytes, EIP-55 checksummed. The parsing rule
 * (no checksum in one-case hex, a correct one in mixed case) is address.ts's, shared with
 * the contract and typed-data validators of this family.
 */
import type { AddressCodec } from '../types.js';
import { evmAddressOfPublicKey, parseEvmAddress } from './address.js';

export const evmCodec: AddressCodec = {
  family: 'evm',
  normalize: (input) => parseEvmAddress(input),
  fromPublicKey(publicKey) {
    if (publicKey.length !== 33 && publicKey.length !== 65) throw new Error('secp256k1 public key must be 33 or 65 bytes');
    return evmAddressOfPublicKey(publicKey);
  },
  equals(a, b) {
    const x = parseEvmAddress(a);
    return x !== null && x === parseEvmAddress(b);
  },
};
