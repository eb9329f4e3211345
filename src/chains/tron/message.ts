/**
 * TIP-191 personal messages (tronweb's `trx.signMessageV2` / `verifyMessageV2`): text, or
 * bytes given as 0x-prefixed hex, as the EVM family takes them. The digest is
 * keccak256("\x19TRON Signed Message:\n" || length || message) (chains/messages.ts); the
 * signature is 65 bytes r || s || v with v 27 or 28, which `verifyMessageV2` recovers to
 * the signer's `T…` address. tronweb hashes a string as its UTF-8 text: a client verifies a
 * bytes message by giving tronweb the bytes (not the 0x string).
 */
import { ValidationError } from '../../lib/errors.js';
import { personalMessageDigest } from '../messages.js';
import type { MessagePayload } from '../types.js';

const HEXISH = /^0x[0-9a-fA-F]*$/;

export function prepareTronMessage(message: string, field = 'message'): MessagePayload {
  if (HEXISH.test(message)) {
    if (message.length % 2 !== 0 || message.length === 2) {
      throw new ValidationError(`${field} starts with 0x, so it is read as bytes: give an even, non-zero number of hex digits`, [
        { field, message: 'hex bytes need an even, non-zero number of digits' },
      ]);
    }
    return { standard: 'TIP-191', kind: 'bytes', message, digest: personalMessageDigest('TIP-191', 'bytes', message) };
  }
  return { standard: 'TIP-191', kind: 'text', message, digest: personalMessageDigest('TIP-191', 'text', message) };
}
