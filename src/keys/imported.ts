/**
 * Private keys a client imports for an outside address (`POST .../addresses/whitelist` with
 * `privateKey`): parsed and checked here, sealed by the key vault, used by the Signer by
 * (wallet, address). Unlike child keys they are not derived from the wallet's seed.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { secp256k1 } from '@noble/curves/secp256k1';
import { hexToBytes } from '@noble/hashes/utils';
import { base58 } from '@scure/base';

/** The 32 bytes of a hex secp256k1 private key (`0x` optional), or null when it is not one. */
export function parsePrivateKey(text: string): Uint8Array | null {
  const hex = text.startsWith('0x') || text.startsWith('0X') ? text.slice(2) : text;
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return null;
  const bytes = hexToBytes(hex.toLowerCase());
  // Zero and values at or above the curve order are not keys.
  return secp256k1.utils.isValidPrivateKey(bytes) ? bytes : null;
}

/**
 * The 32-byte ed25519 seed (RFC 8032 private key) of a key as ed25519 wallets give it, or
 * null when it is not one: base58 of the 64-byte secret key (seed || public key, what the
 * common wallets and key tools export; the public key half must be the seed's), or the
 * 32-byte seed alone in base58 or hex (0x optional).
 */
export function parseEd25519SecretKey(text: string): Uint8Array | null {
  const hex = text.startsWith('0x') || text.startsWith('0X') ? text.slice(2) : text;
  if (/^[0-9a-fA-F]{64}$/.test(hex)) return hexToBytes(hex.toLowerCase());
  // 64 bytes are at most 88 base58 characters; the bound keeps a huge input from being decoded.
  if (text.length < 32 || text.length > 88) return null;
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(text);
  } catch {
    return null;
  }
  if (bytes.length === 32) return bytes;
  if (bytes.length !== 64) {
    bytes.fill(0);
    return null;
  }
  const seed = bytes.slice(0, 32);
  const consistent = Buffer.from(ed25519.getPublicKey(seed)).equals(Buffer.from(bytes.subarray(32)));
  bytes.fill(0);
  if (!consistent) {
    seed.fill(0);
    return null;
  }
  return seed;
}

/** The uncompressed (65-byte) secp256k1 public key of a private key: a family codec names its address. */
export function publicKeyOfPrivateKey(key: Uint8Array): Uint8Array {
  return secp256k1.getPublicKey(key, false);
}

/** A private key as text, as the wallets of a curve's families write and read it (key export and import). */
export interface KeyText {
  /** What `read` accepts, for an error message. */
  readonly accepts: string;
  /** The key as text (the caller wipes `key`). */
  write(key: Uint8Array): string;
  /** The key's 32 bytes, or null when `text` is none of the accepted forms. */
  read(text: string): Uint8Array | null;
  /** The public key the family's address codec takes. */
  publicKey(key: Uint8Array): Uint8Array;
}

const SECP256K1_TEXT: KeyText = {
  accepts: 'a secp256k1 private key (64 hex digits, 0x optional)',
  write: (key) => `0x${Buffer.from(key).toString('hex')}`,
  read: parsePrivateKey,
  publicKey: publicKeyOfPrivateKey,
};

const ED25519_TEXT: KeyText = {
  accepts: 'an ed25519 secret key (base58 of the 64-byte secret key, or the 32-byte seed in base58 or hex)',
  // Base58 of seed || public key: what ed25519 wallets and key tools write and import.
  write(key) {
    const secret = Buffer.concat([key, ed25519.getPublicKey(key)]);
    try {
      return base58.encode(secret);
    } finally {
      secret.fill(0);
    }
  },
  read: parseEd25519SecretKey,
  publicKey: (key) => ed25519.getPublicKey(key),
};

/** The key text of a curve: secp256k1 in hex, ed25519 as ed25519 wallets write it (base58 of seed || public key). */
export function keyTextOf(curve: 'secp256k1' | 'ed25519'): KeyText {
  return curve === 'ed25519' ? ED25519_TEXT : SECP256K1_TEXT;
}
