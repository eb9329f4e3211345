/**
 * Solana messages as Solana wallets sign them (the Wallet Standard's `solana:signMessage`,
 * Phantom's and Solflare's `signMessage`, kit's `signBytes`): ed25519 (RFC 8032) over the
 * message bytes themselves, no prefix; the signature is 64 bytes, written base58. Text is
 * signed as its UTF-8 bytes (what `new TextEncoder().encode(text)` gives a wallet), bytes are
 * given as 0x-prefixed hex as on the other families. A client verifies with any ed25519
 * library: `ed25519.verify(base58.decode(signature), messageBytes, base58.decode(address))`.
 *
 * Without a prefix, the bytes could be a transaction's message: the signer refuses a message
 * that contains the signing key (keys/signer.ts, namesKey), which every transaction it
 * could authorise does.
 */
import { ValidationError } from '../../lib/errors.js';
import { personalMessageDigest } from '../messages.js';
import type { MessagePayload } from '../types.js';

const HEXISH = /^0x[0-9a-fA-F]*$/;
const STANDARD = 'solana:signMessage';

export function prepareSolanaMessage(message: string, field = 'message'): MessagePayload {
  if (HEXISH.test(message)) {
    if (message.length % 2 !== 0 || message.length === 2) {
      throw new ValidationError(`${field} starts with 0x, so it is read as bytes: give an even, non-zero number of hex digits`, [
        { field, message: 'hex bytes need an even, non-zero number of digits' },
      ]);
    }
    return { standard: STANDARD, kind: 'bytes', message, digest: personalMessageDigest(STANDARD, 'bytes', message) };
  }
  return { standard: STANDARD, kind: 'text', message, digest: personalMessageDigest(STANDARD, 'text', message) };
}
