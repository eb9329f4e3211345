/**
 * Several SPL transfers of one owner in one transaction (the batching capability:
 * maxTransfers, combine; docs/solana.md, "Batch withdrawals in one transaction"): one token
 * intent whose payments are its own and `more` (chains/intents.ts). The sender turns it into
 * one transaction (tx.ts compileTransfer). SOL transfers are not combined: each stays one
 * transaction.
 */
import { base58 } from '@scure/base';
import type { Address } from '@solana/kit';
import { ValidationError } from '../../lib/errors.js';
import { paymentsOf } from '../intents.js';
import type { Payment, TokenIntent, TxIntent } from '../types.js';
import { isTokenAccount, type SolanaBalances } from './balances.js';
import { transfersThatFit } from './batch.js';
import type { SolanaNode } from './rpc.js';

/** Far above what fits in a packet (19 from the master to existing accounts). */
const MAX_ENTRIES = 64;
/** Any 32 bytes: only the size of the message matters when counting. */
const PLACEHOLDER_BLOCKHASH = base58.encode(new Uint8Array(32).fill(1));

export type SplEntry = Payment;

/** The SPL payments an intent asks for, in order (one, or a batch's); null for SOL and calls. */
export function splPaymentsOf(intent: TxIntent): SplEntry[] | null {
  if (intent.kind !== 'token') return null;
  const payments = paymentsOf(intent);
  if (payments.length > MAX_ENTRIES) throw new ValidationError(`a transaction holds at most ${MAX_ENTRIES} transfers`);
  return payments;
}

/** combine on Solana: SPL transfers of one owner, fee payer and mint as one token intent. */
export function combineSplTransfers(intents: TxIntent[]): TokenIntent {
  const first = intents[0];
  if (!first || intents.length < 2) throw new Error('combine takes at least two transfers');
  if (first.kind !== 'token') throw new ValidationError('only SPL transfers of one owner, fee payer and mint are combined');
  const payments = intents.flatMap((i) => {
    if (i.kind !== 'token' || !sameGroup(first, i))
      throw new ValidationError('only SPL transfers of one owner, fee payer and mint are combined');
    return paymentsOf(i);
  });
  if (payments.length > MAX_ENTRIES) throw new ValidationError(`a transaction holds at most ${MAX_ENTRIES} transfers`);
  const [head, ...more] = payments;
  return {
    kind: 'token',
    from: first.from,
    token: first.token,
    to: head!.to,
    amount: head!.amount,
    more,
    ...(first.feePayer ? { feePayer: first.feePayer } : {}),
  };
}

/**
 * maxTransfers on Solana: the leading SPL transfers of the first one's owner, fee payer and
 * mint, as many as fit the packet with the accounts they must create (read at `confirmed`),
 * the compute-unit price instruction counted; 1 for SOL.
 */
export async function maxSplTransfers(node: SolanaNode, balances: SolanaBalances, intents: TxIntent[]): Promise<number> {
  const first = intents[0];
  if (!first) return 0;
  if (first.kind !== 'token') return 1;
  const leading: SplEntry[] = [];
  for (const i of intents.slice(0, MAX_ENTRIES)) {
    if (i.kind !== 'token' || i.more?.length || !sameGroup(first, i) || i.to === i.from) break;
    leading.push({ to: i.to, amount: i.amount });
  }
  if (leading.length < 2) return 1;
  const mint = { address: first.token, ...(await balances.mintsOf([first.token])).get(first.token)! };
  const accounts = await Promise.all(leading.map((e) => balances.tokenAccount(e.to, first.token)));
  const rpc = await node.rpc();
  const found = await rpc
    .getMultipleAccounts(accounts as Address[], { commitment: 'confirmed', encoding: 'base64', dataSlice: { offset: 0, length: 0 } })
    .send();
  const fit = await transfersThatFit({
    feePayer: first.feePayer ?? first.from,
    owner: first.from,
    mint,
    transfers: leading.map((e, k) => ({
      recipient: e.to,
      amount: e.amount,
      createRecipientAccount: !isTokenAccount(found.value[k] ?? null),
    })),
    computeUnits: 1_400_000,
    microLamportsPerUnit: 1n,
    lifetime: { blockhash: PLACEHOLDER_BLOCKHASH, lastValidBlockHeight: 0n },
  });
  return Math.max(1, fit);
}

function sameGroup(a: TokenIntent, b: TokenIntent): boolean {
  return a.from === b.from && a.token === b.token && (a.feePayer ?? a.from) === (b.feePayer ?? b.from);
}
