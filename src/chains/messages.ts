/**
 * Personal-message digests, by standard. The secp256k1 standards put a fixed prefix and the message's length in
 * bytes before the message and hash with keccak256, so a signed message can never be taken
 * for a transaction (an EVM transaction's digest hashes its RLP; a Tron txID is a sha256) or
 * for EIP-712 typed data (0x1901):
 * - EIP-191 (`personal_sign`, EVM): "\x19Ethereum Signed Message:\n" + length + message;
 * - TIP-191 (tronweb's `signMessageV2`, Tron): "\x19TRON Signed Message:\n" + length + message.
 * - solana:signMessage (the Wallet Standard feature Phantom, Solflare and kit's signBytes
 *   implement, Solana): ed25519 signs the message bytes themselves, with no prefix, so the
 *   "digest" is those bytes (0x hex). A Solana transaction's signature is also ed25519 over
 *   bytes (its message), so the signer refuses a message that names its own public key
 *   (keys/signer.ts, `namesKey`): every transaction a key signs lists that key among its accounts.
 * The families' prepareMessage compute it, and the signer (keys/signer.ts) computes it again
 * from the recorded message before it signs.
 */
import { bytesToHex, concat, hashMessage, hexToBytes, keccak256, stringToBytes, type Hex } from 'viem';
import type { MessageSigning } from '../keys/types.js';
import type { MessagePayload } from './types.js';

export type MessageStandard = MessagePayload['standard'];

const TRON_MESSAGE_PREFIX = '\x19TRON Signed Message:\n';

/** The digest of a message (text, or bytes as 0x hex when `kind` is 'bytes') under `standard`. */
export function personalMessageDigest(standard: MessageStandard, kind: MessagePayload['kind'], message: string): Hex {
  const bytes = messageBytes(kind, message);
  if (standard === 'solana:signMessage') return bytesToHex(bytes);
  if (standard === 'EIP-191') return hashMessage({ raw: bytes });
  if (standard === 'TIP-191') return keccak256(concat([stringToBytes(`${TRON_MESSAGE_PREFIX}${bytes.length}`), bytes]));
  throw new Error(`unknown message standard ${String(standard)}`);
}

/** The bytes of a message: its UTF-8 text, or the bytes its 0x hex spells. */
export function messageBytes(kind: MessagePayload['kind'], message: string): Uint8Array {
  return kind === 'bytes' ? hexToBytes(message as Hex) : stringToBytes(message);
}

/** A payload's digest, computed again from its message (what the signer checks against the recorded one). */
export const messageDigest = (p: MessagePayload): Hex => personalMessageDigest(p.standard, p.kind, p.message);

/**
 * What the signer is handed to sign a recorded message (keys/types.ts, MessageSigning): its
 * digest computed again under its standard, and whether the standard signs the bytes
 * themselves (solana:signMessage, ed25519) rather than a secp256k1 digest.
 */
export const messageSigning: MessageSigning = (p) => ({
  digest: personalMessageDigest(p.standard as MessageStandard, p.kind, p.message),
  signsBytes: p.standard === 'solana:signMessage',
});
