// Tron addresses in the three spellings the stand-in meets: 21-byte hex with the 0x41
// prefix (java-tron's wire form when visible=false), base58check T... (visible=true) and the
// 20-byte EVM form the TVM (here: anvil) works with.
import { utils } from 'tronweb';

/** Lower-case 42-char hex, "41" + 20 bytes: the stand-in's internal key for every account. */
export type Hex41 = string;

const HEX41 = /^41[0-9a-fA-F]{40}$/;

export class AddressError extends Error {}

export function isHex41(s: unknown): s is string {
  return typeof s === 'string' && HEX41.test(s);
}

export function toBase58(hex41: Hex41): string {
  return utils.crypto.getBase58CheckAddress(Array.from(Buffer.from(hex41, 'hex')));
}

/** Base58check T... to hex41; throws AddressError on a bad checksum or a non-Tron prefix. */
export function fromBase58(b58: string): Hex41 {
  if (!utils.crypto.isAddressValid(b58)) throw new AddressError(`invalid base58check address: ${b58}`);
  return Buffer.from(utils.crypto.decodeBase58Address(b58) as number[]).toString('hex');
}

/**
 * An address field of a request, read the way java-tron reads it: hex when visible=false,
 * base58check when visible=true. Being strict keeps a client bug (base58 without visible)
 * from passing on the stand-in and failing on a real node.
 */
export function parseAddress(value: unknown, visible: boolean, field = 'address'): Hex41 {
  if (typeof value !== 'string' || value === '') throw new AddressError(`${field} isn't set.`);
  if (visible) return fromBase58(value);
  if (!isHex41(value)) throw new AddressError(`${field} must be a 21-byte hex address starting with 41 when visible is false`);
  return value.toLowerCase();
}

export function printAddress(hex41: Hex41, visible: boolean): string {
  return visible ? toBase58(hex41) : hex41;
}

export const toEvm = (hex41: Hex41): `0x${string}` => `0x${hex41.slice(2)}`;
export const fromEvm = (evm: string): Hex41 => `41${evm.replace(/^0x/, '').toLowerCase()}`;
