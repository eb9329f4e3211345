/**
 * Rent a landed transaction moved for its fee payer, read from its metadata (the receipt's
 * details rentPaid and rentReclaimed). Token accounts are the only accounts this family's transactions open or
 * close: one the transaction created has a post token balance and no pre one (the lamports
 * it gained are the rent its creator, the fee payer, locked in it), one it closed has a pre
 * token balance and no post one (its lamports before went to the fee payer, the close's
 * destination in tx.ts). Reading the token balances, not the fee payer's lamports, keeps the
 * two apart when one transaction does both (a sweep that creates the master's token account
 * and closes the child's).
 */
import { feeAsUnits, NO_SIGNED_FEES, sumDetails } from '../receipts.js';
import type { FeeReport } from '../types.js';
import { u64 } from './rpc.js';

export interface RentMeta {
  preBalances: readonly unknown[];
  postBalances: readonly unknown[];
  preTokenBalances?: readonly { accountIndex: number }[] | null;
  postTokenBalances?: readonly { accountIndex: number }[] | null;
}

export function rentOf(meta: RentMeta | null | undefined): { rentPaid?: bigint; rentReclaimed?: bigint } {
  if (!meta) return {};
  const pre = new Set((meta.preTokenBalances ?? []).map((b) => b.accountIndex));
  const post = new Set((meta.postTokenBalances ?? []).map((b) => b.accountIndex));
  let paid = 0n;
  let reclaimed = 0n;
  // What the creator added (an address can hold lamports before its account is created).
  for (const i of post) if (!pre.has(i)) paid += u64(meta.postBalances[i] ?? 0) - u64(meta.preBalances[i] ?? 0);
  for (const i of pre) if (!post.has(i)) reclaimed += u64(meta.preBalances[i] ?? 0);
  return { ...(paid > 0n ? { rentPaid: paid } : {}), ...(reclaimed > 0n ? { rentReclaimed: reclaimed } : {}) };
}

/**
 * Solana's public fee fields: the fee (with the rent of accounts the transaction opened) in
 * lamports at a price of 1; a sweep shows the rent paid and the rent got back. A Solana
 * transaction carries no EVM fee fields.
 */
export const solanaFees: FeeReport = {
  ofReceipt: feeAsUnits,
  usage: (receipts) => sumDetails(receipts, ['rentPaid', 'rentReclaimed'], true),
  ofNetwork: () => NO_SIGNED_FEES,
};
