/**
 * Solana addresses: 32 bytes (an ed25519 public key, or a program-derived address off the
 * curve) written base58, 32 to 44 characters. base58 has one spelling per byte string, so a
 * valid input is already canonical. There is no checksum: a typo that still decodes to 32
 * bytes is a valid, different address (as in every Solana wallet). Off-curve addresses are
 * accepted: they are real accounts (PDAs); whether tokens may go to one is the sender's rule.
 *
 * Written over @scure/base rather than @solana/kit: the family table is loaded by every
 * process, and kit costs about 300 ms of start-up and 10 MB of memory where no Solana chain
 * is configured. The rule is kit's isAddress (base58 of exactly 32 bytes); the unit test
 * checks the two agree on valid, mangled and random strings.
 */
import { base58 } from '@scure/base';
import type { AddressCodec } from '../types.js';

export const solanaCodec: AddressCodec = {
  family: 'solana',
  normalize(input) {
    // 32 bytes are 32 to 44 base58 characters; the bound also keeps a huge input from being decoded.
    if (typeof input !== 'string' || input.length < 32 || input.length > 44) return null;
    try {
      return base58.decode(input).length === 32 ? input : null;
    } catch {
      return null;
    }
  },
  fromPublicKey(publicKey) {
    if (publicKey.length !== 32) throw new Error('ed25519 public key must be 32 bytes');
    return base58.encode(publicKey);
  },
  equals(a, b) {
    const x = solanaCodec.normalize(a);
    return x !== null && x === solanaCodec.normalize(b);
  },
};
