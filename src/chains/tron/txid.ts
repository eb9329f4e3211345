import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils';
import { ChainRejectedError } from '../errors.js';

/**
 * The txID of a signed protocol.Transaction (hex): sha256 of its raw_data (field 1), read
 * straight from the protobuf. A transaction that does not parse is refused as `invalid`.
 */
export function txIdOfSigned(hex: string): string {
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(hex)) throw new ChainRejectedError('invalid', 'a signed transaction must be hex');
  const bytes = hexToBytes(hex);
  let i = 0;
  const varint = (): number => {
    let v = 0;
    for (let shift = 0; shift < 50; shift += 7) {
      if (i >= bytes.length) throw new ChainRejectedError('invalid', 'truncated transaction');
      const b = bytes[i++]!;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
    }
    throw new ChainRejectedError('invalid', 'malformed transaction');
  };
  while (i < bytes.length) {
    const tag = varint();
    const wire = tag % 8;
    if (wire === 2) {
      const len = varint();
      if (i + len > bytes.length) throw new ChainRejectedError('invalid', 'truncated transaction');
      if (Math.floor(tag / 8) === 1) return bytesToHex(sha256(bytes.subarray(i, i + len)));
      i += len;
    } else if (wire === 0) varint();
    else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else throw new ChainRejectedError('invalid', 'malformed transaction');
  }
  throw new ChainRejectedError('invalid', 'the transaction has no raw_data');
}
