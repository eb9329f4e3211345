/**
 * The one parser of EVM addresses for everything a client sends (withdrawal and beneficiary
 * destinations, whitelisted addresses, settlement rules, balance filters, contract calls and
 * their address arguments, typed-data domains and values), as EIP-55 has it: an all-lower
 * or all-upper case address carries no checksum and is accepted; a mixed-case address
 * must carry a valid checksum (a typo guard). `0x` is the prefix; the answer is the
 * checksummed form.
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex } from '@noble/hashes/utils';
import { checksumAddress, getAddress, type Address } from 'viem';

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export function parseEvmAddress(input: unknown): Address | null {
  if (typeof input !== 'string' || !HEX_ADDRESS.test(input)) return null;
  const hex = input.slice(2);
  const lower = hex.toLowerCase();
  const checksummed = checksumAddress(`0x${lower}`);
  if (hex === lower || hex === hex.toUpperCase()) return checksummed;
  return checksummed === input ? checksummed : null;
}

/** EVM address of an uncompressed or compressed secp256k1 public key. */
export function evmAddressOfPublicKey(publicKey: Uint8Array): string {
  const uncompressed = publicKey.length === 65 ? publicKey : secp256k1.ProjectivePoint.fromHex(publicKey).toRawBytes(false);
  const hash = keccak_256(uncompressed.subarray(1));
  return getAddress(`0x${bytesToHex(hash.subarray(12))}`);
}
