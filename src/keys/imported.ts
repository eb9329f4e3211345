/**
 * Private keys a client imports for an outside address (`POST .../addresses/whitelist` with
 * `privateKey`): parsed and checked here, sealed by the key vault, used by the Signer by
 * (wallet, address). Unlike child keys they are not derived from the wallet's seed.
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import { hexToBytes } from '@noble/hashes/utils';

/** The 32 bytes of a hex secp256k1 private key (`0x` optional), or null when it is not one. */
export function parsePrivateKey(text: string): Uint8Array | null {
  const hex = text.startsWith('0x') || text.startsWith('0X') ? text.slice(2) : text;
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return null;
  const bytes = hexToBytes(hex.toLowerCase());
  // Zero and values at or above the curve order are not keys.
  return secp256k1.utils.isValidPrivateKey(bytes) ? bytes : null;
}

/** The uncompressed (65-byte) secp256k1 public key of a private key: a family codec names its address. */
export function publicKeyOfPrivateKey(key: Uint8Array): Uint8Array {
  return secp256k1.getPublicKey(key, false);
}
