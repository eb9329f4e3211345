/**
 * The key under which two spellings of one address meet. Hex addresses (EVM, 0x…) are
 * case-insensitive: their mixed case is only an EIP-55 checksum, so they compare lowercased.
 * Base58 addresses (Tron T…, Solana) are case-sensitive: spellings that differ in case are
 * different addresses (any 32 bytes are a Solana address), so lowercasing them would let
 * one wallet's look-alike registration match another wallet's address. Base58 has no '0',
 * so the prefix tells the two kinds apart without knowing the chain.
 */
export function addressKey(address: string): string {
  return isHexAddress(address) ? address.toLowerCase() : address;
}

export function isHexAddress(address: string): boolean {
  return address.startsWith('0x') || address.startsWith('0X');
}
