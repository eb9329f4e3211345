/**
 * What a Solana transfer intent carries above the seam. The seam's TxIntent names a call by
 * `to` and `data`; on EVM and Tron `data` is a contract's calldata. Solana has no calldata a
 * module could write, so the family defines its own: an SPL transfer is `to` = the mint and
 * `data` = 0x f1 || recipient (32 bytes) || amount (u64 big-endian), made by
 * encodeTokenTransfer and read back by describeTokenCall and the sender. The sender turns it
 * into the real instructions (the recipient's associated token account, transferChecked with
 * the mint's decimals). A SOL transfer is `data` null, as everywhere.
 */
import { base58 } from '@scure/base';
import type { TokenCall } from '../types.js';
import { solanaCodec } from './codec.js';

const SPL_TRANSFER_TAG = 'f1';
const PATTERN = /^0xf1([0-9a-f]{64})([0-9a-f]{16})$/;
const U64_MAX = (1n << 64n) - 1n;

/** The family's "calldata" of an SPL transfer of `amount` to the owner `to`. */
export function encodeSplTransfer(to: string, amount: bigint): string {
  if (solanaCodec.normalize(to) === null) throw new Error('not a Solana address');
  if (amount < 0n || amount > U64_MAX) throw new Error('an SPL amount is a u64');
  return `0x${SPL_TRANSFER_TAG}${Buffer.from(base58.decode(to)).toString('hex')}${amount.toString(16).padStart(16, '0')}`;
}

/** The SPL transfer `data` names, or null when it is none (any other data: refused by the sender). */
export function decodeSplTransfer(data: string | null): { to: string; amount: bigint } | null {
  const m = data === null ? null : PATTERN.exec(data.toLowerCase());
  if (!m) return null;
  return { to: base58.encode(Buffer.from(m[1]!, 'hex')), amount: BigInt(`0x${m[2]}`) };
}

/** describeTokenCall on Solana: the only token call the family makes is a transfer. */
export function describeSplCall(data: string): TokenCall | null {
  const t = decodeSplTransfer(data);
  if (t) return { kind: 'transfer', to: t.to, amount: t.amount };
  return data.toLowerCase().startsWith(`0x${SPL_TRANSFER_TAG}`) ? { kind: 'malformed', signature: 'splTransfer' } : null;
}
