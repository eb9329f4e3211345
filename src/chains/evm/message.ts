/**
 * EIP-191 personal messages (`personal_sign`): text, or bytes given as 0x-prefixed hex, as
 * wallets and the described service's clients send them. The digest is
 * keccak256("\x19Ethereum Signed Message:\n" || length || message): it can never be a
 * transaction's or an EIP-712 digest, so signing it commits the key to nothing else.
 */
import { hashMessage, isHex, type Hex } from 'viem';
import { ValidationError } from '../../lib/errors.js';
import type { MessagePayload } from '../types.js';

const HEXISH = /^0x[0-9a-fA-F]*$/;

export function prepareMessage(message: string, field = 'message'): MessagePayload {
  if (HEXISH.test(message)) {
    // Bytes: an even number of hex digits; "0x" alone would sign nothing.
    if (message.length % 2 !== 0 || message.length === 2 || !isHex(message, { strict: true })) {
      throw new ValidationError(`${field} starts with 0x, so it is read as bytes: give an even, non-zero number of hex digits`, [
        { field, message: 'hex bytes need an even, non-zero number of digits' },
      ]);
    }
    return { standard: 'EIP-191', kind: 'bytes', message, digest: hashMessage({ raw: message as Hex }) };
  }
  return { standard: 'EIP-191', kind: 'text', message, digest: hashMessage(message) };
}

/** The digest of a payload, computed again (the signer checks it against the recorded one). */
export function messageDigest(p: MessagePayload): string {
  return p.kind === 'bytes' ? hashMessage({ raw: p.message as Hex }) : hashMessage(p.message);
}
