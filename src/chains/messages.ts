/**
 * Personal-message digests, by standard. Both put a fixed prefix and the message's length in
 * bytes before the message and hash with keccak256, so a signed message can never be taken
 * for a transaction (an EVM transaction's digest hashes its RLP; a Tron txID is a sha256) or
 * for EIP-712 typed data (0x1901):
 * - EIP-191 (`personal_sign`, EVM): "\x19Ethereum Signed Message:\n" + length + message;
 * - TIP-191 (tronweb's `signMessageV2`, Tron): "\x19TRON Signed Message:\n" + length + message.
 * The families' prepareMessage compute it, and the signer (keys/signer.ts) computes it again
 * from the recorded message before it signs.
 */
import { concat, hashMessage, hexToBytes, keccak256, stringToBytes, type Hex } from 'viem';
import type { MessagePayload } from './types.js';

export type MessageStandard = MessagePayload['standard'];

const TRON_MESSAGE_PREFIX = '\x19TRON Signed Message:\n';

/** The digest of a message (text, or bytes as 0x hex when `kind` is 'bytes') under `standard`. */
export function personalMessageDigest(standard: MessageStandard, kind: MessagePayload['kind'], message: string): Hex {
  const bytes = kind === 'bytes' ? hexToBytes(message as Hex) : stringToBytes(message);
  if (standard === 'EIP-191') return hashMessage({ raw: bytes });
  if (standard === 'TIP-191') return keccak256(concat([stringToBytes(`${TRON_MESSAGE_PREFIX}${bytes.length}`), bytes]));
  throw new Error(`unknown message standard ${String(standard)}`);
}

/** A payload's digest, computed again from its message (what the signer checks against the recorded one). */
export const messageDigest = (p: MessagePayload): Hex => personalMessageDigest(p.standard, p.kind, p.message);
