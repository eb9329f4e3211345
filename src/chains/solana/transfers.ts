/**
 * Several SPL transfers of one owner in one transaction, as an intent above the seam
 * (Sender.maxTransfers, Sender.combine; docs/solana.md, "Batch withdrawals in one
 * transaction"). The intent is `to` = the mint and `data` = the family's encoding of the
 * list: 0x f2 || count (u8) || count x (recipient (32 bytes) || amount (u64 big-endian)).
 * The sender turns it into one transaction (batch.ts compileTransfers). SOL transfers are
 * not combined: each stays one transaction.
 */
import { base58 } from '@scure/base';
import type { Address } from '@solana/kit';
import { ValidationError } from '../../lib/errors.js';
import type { TxIntent } from '../types.js';
import type { SolanaBalances } from './balances.js';
import { transfersThatFit } from './batch.js';
import { decodeSplTransfer, encodeSplTransfer } from './intent.js';
import type { SolanaNode } from './rpc.js';

const TAG = 'f2';
const ENTRY_HEX = 64 + 16;
/** Far above what fits in a packet (19 from the master to existing accounts). */
const MAX_ENTRIES = 64;
/** Any 32 bytes: only the size of the message matters when counting. */
const PLACEHOLDER_BLOCKHASH = base58.encode(new Uint8Array(32).fill(1));

export interface SplEntry {
  to: string;
  amount: bigint;
}

/** The family's "calldata" of several SPL transfers of one mint (at least 2). */
export function encodeSplTransfers(entries: SplEntry[]): string {
  if (entries.length < 2 || entries.length > MAX_ENTRIES) throw new Error(`a multi-transfer holds 2 to ${MAX_ENTRIES} transfers`);
  // Each entry checked and written as one transfer is, without its tag.
  const body = entries.map((e) => encodeSplTransfer(e.to, e.amount).slice(4)).join('');
  return `0x${TAG}${entries.length.toString(16).padStart(2, '0')}${body}`;
}

/** The transfers `data` names (one for a single transfer's data), or null when it is neither. */
export function decodeSplTransfers(data: string | null): SplEntry[] | null {
  if (data === null) return null;
  const single = decodeSplTransfer(data);
  if (single) return [single];
  const hex = data.toLowerCase();
  if (!hex.startsWith(`0x${TAG}`)) return null;
  const count = Number.parseInt(hex.slice(4, 6), 16);
  if (!(count >= 2 && count <= MAX_ENTRIES) || hex.length !== 6 + count * ENTRY_HEX || !/^[0-9a-f]*$/.test(hex.slice(2))) return null;
  const entries: SplEntry[] = [];
  for (let i = 0; i < count; i++) {
    const one = decodeSplTransfer(`0xf1${hex.slice(6 + i * ENTRY_HEX, 6 + (i + 1) * ENTRY_HEX)}`);
    if (!one) return null;
    entries.push(one);
  }
  return entries;
}

/** Sender.combine on Solana: SPL transfers of one owner, fee payer and mint as one intent. */
export function combineSplTransfers(intents: TxIntent[]): TxIntent {
  const first = intents[0];
  if (!first || intents.length < 2) throw new Error('combine takes at least two transfers');
  const entries = intents.map((i) => {
    const spl = decodeSplTransfer(i.data);
    if (!spl || !sameGroup(first, i)) throw new ValidationError('only SPL transfers of one owner, fee payer and mint are combined');
    return spl;
  });
  return {
    from: first.from,
    to: first.to,
    value: 0n,
    data: encodeSplTransfers(entries),
    ...(first.feePayer ? { feePayer: first.feePayer } : {}),
  };
}

/**
 * Sender.maxTransfers on Solana: the leading SPL transfers of the first one's owner, fee
 * payer and mint, as many as fit the packet with the accounts they must create (read at
 * `confirmed`), the compute-unit price instruction counted; 1 for SOL.
 */
export async function maxSplTransfers(node: SolanaNode, balances: SolanaBalances, intents: TxIntent[]): Promise<number> {
  const first = intents[0];
  if (!first) return 0;
  const leading: SplEntry[] = [];
  for (const i of intents.slice(0, MAX_ENTRIES)) {
    const spl = decodeSplTransfer(i.data);
    if (!spl || !sameGroup(first, i) || spl.to === i.from) break;
    leading.push(spl);
  }
  if (leading.length < 2) return 1;
  const mint = { address: first.to, ...(await balances.mintsOf([first.to])).get(first.to)! };
  const accounts = await Promise.all(leading.map((e) => balances.tokenAccount(e.to, first.to)));
  const rpc = await node.rpc();
  const found = await rpc
    .getMultipleAccounts(accounts as Address[], { commitment: 'confirmed', encoding: 'base64', dataSlice: { offset: 0, length: 0 } })
    .send();
  const fit = await transfersThatFit({
    feePayer: first.feePayer ?? first.from,
    owner: first.from,
    mint,
    transfers: leading.map((e, k) => ({ recipient: e.to, amount: e.amount, createRecipientAccount: found.value[k] === null })),
    computeUnits: 1_400_000,
    microLamportsPerUnit: 1n,
    lifetime: { blockhash: PLACEHOLDER_BLOCKHASH, lastValidBlockHeight: 0n },
  });
  return Math.max(1, fit);
}

function sameGroup(a: TxIntent, b: TxIntent): boolean {
  return a.from === b.from && a.to === b.to && (a.feePayer ?? a.from) === (b.feePayer ?? b.from) && b.value === 0n;
}
