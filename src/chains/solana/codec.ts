/**
 * Solana addresses: 32 bytes (an ed25519 public key, or a program-derived address off the
 * curve) written base58, 32 to 44 characters. base58 has one spelling per byte string, so a
 * valid input is already canonical. There is no checksum: a typo that still decodes to 32
 * bytes is a valid, different address (as in every Solana wallet). Off-curve addresses are
 * accepted: they are real accounts (PDAs); whether tokens may go to one is the sender's rule.
 */
import { getAddressDecoder, isAddress } from '@solana/kit';
import type { AddressCodec } from '../types.js';

const decoder = getAddressDecoder();

export const solanaCodec: AddressCodec = {
  family: 'solana',
  normalize(input) {
    if (typeof input !== 'string') return null;
    try {
      return isAddress(input) ? input : null;
    } catch {
      return null;
    }
  },
  fromPublicKey(publicKey) {
    if (publicKey.length !== 32) throw new Error('ed25519 public key must be 32 bytes');
    return decoder.decode(publicKey);
  },
  equals(a, b) {
    const x = solanaCodec.normalize(a);
    return x !== null && x === solanaCodec.normalize(b);
  },
};
