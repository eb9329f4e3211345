/**
 * Destinations that no key controls on the families whose machine is the EVM's (EVM, and the
 * TVM, which keeps the EVM's precompiled contracts at the same addresses).
 *
 * The lowest addresses hold the precompiled contracts (0x01 to 0x11 today, 0x100 on chains with
 * P-256 verification; new ones are given low addresses): value sent there stays there, and no
 * key is known for any of them. Every address from 0x01 to 0x3ff is refused as a destination.
 * The burn address 0x…dEaD is not: sending there is done on purpose (to burn), never by a slip.
 * `hex`: the 40 digits.
 */
export function lowAddressReason(hex: string): string | null {
  return /^0{37}[0-3][0-9a-fA-F]{2}$/.test(hex) && !/^0+$/.test(hex)
    ? "is a precompiled contract's address (0x…01 to 0x…3ff are reserved); funds sent there are lost"
    : null;
}
