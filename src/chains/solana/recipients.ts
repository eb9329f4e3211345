/**
 * Who a Solana transfer pays, checked before it is planned (sender.ts): the intent's shape,
 * the recipient of a SOL transfer, the recipients of an SPL transfer and their token
 * accounts, and a Token-2022 mint's transfer fee. Each check reads what the chain says now
 * (`confirmed`) and refuses what would put money out of reach.
 */
import type { Address } from '@solana/kit';
import { ValidationError } from '../../lib/errors.js';
import { ChainRejectedError } from '../errors.js';
import { paymentsOf } from '../intents.js';
import type { TxIntent } from '../types.js';
import { isTokenAccount, TOKEN_PROGRAMS, transferFeeOf, type SolanaBalances } from './balances.js';
import { solanaCodec } from './codec.js';
import { u64, type SolanaRpc } from './rpc.js';

/** An SPL multisig's size (both token programs): an owner of token accounts, so a recipient. */
const MULTISIG_BYTES = 355;
/** The length of base64 account data as getMultipleAccounts answers it (`[data, 'base64']`). */
const dataLength = (data: unknown): number => (Array.isArray(data) ? Buffer.from(String(data[0]), 'base64').length : -1);

/** The fee payer of a valid intent (intent.feePayer, else its sender). */
export function checkIntent(intent: TxIntent): string {
  if (intent.kind === 'call') throw new ValidationError('Solana transfers only move SOL or SPL tokens (no contract calls)');
  if (intent.memo !== undefined) throw new ValidationError('memos are not carried on Solana transfers yet');
  const feePayer = intent.feePayer ?? intent.from;
  const recipients = intent.kind === 'token' ? paymentsOf(intent).map((p) => p.to) : [intent.to];
  const named = [intent.from, feePayer, ...recipients, ...(intent.kind === 'token' ? [intent.token] : [])];
  if (named.some((a) => solanaCodec.normalize(a) === null)) throw new ValidationError('not a Solana address');
  if (intent.kind === 'native' && intent.amount <= 0n) throw new ValidationError('a SOL transfer must move more than 0 lamports');
  if (intent.kind === 'token' && paymentsOf(intent).some((p) => p.amount < 0n || p.amount >= 1n << 64n))
    throw new ValidationError('an SPL amount is a u64');
  if (recipients.includes(intent.from)) throw new ValidationError('a transfer to oneself moves nothing');
  return feePayer;
}

/**
 * A SOL transfer's recipient. The runtime credits any account, so SOL sent to a token
 * account, a mint or a multisig (owned by the token programs) or to a program lands and is
 * out of reach: a mint, a multisig and a program never give lamports back, and a token
 * account only to its owner closing it once emptied (no wallet shows them meanwhile). Its
 * owner is the recipient. A new account must be left rent-exempt (`newAccountRent`): the
 * runtime refuses a smaller first transfer.
 */
export async function checkSolRecipient(
  rpc: SolanaRpc,
  to: string,
  lamports: bigint,
  newAccountRent: () => Promise<bigint>,
): Promise<void> {
  const recipient = await rpc
    .getAccountInfo(to as Address, { commitment: 'confirmed', encoding: 'base64', dataSlice: { offset: 0, length: 0 } })
    .send();
  if (recipient.value && (TOKEN_PROGRAMS.includes(recipient.value.owner) || recipient.value.executable)) {
    throw new ChainRejectedError(
      'refused',
      `${to} is ${recipient.value.executable ? 'a program' : 'a token account or a mint'}, not a wallet address: SOL sent there would be out of reach; send to the address of its owner`,
    );
  }
  if (!recipient.value) {
    const rent = await newAccountRent();
    if (lamports < rent) {
      throw new ChainRejectedError(
        'refused',
        `a SOL transfer to a new account must be at least ${rent} lamports (its rent-exempt minimum)`,
      );
    }
  }
}

export interface TokenRecipient {
  recipient: string;
  amount: bigint;
  /** No token account of the mint at the recipient yet: the transfer creates it (its associated address). */
  createRecipientAccount: boolean;
}

/** What the chain holds at an SPL transfer's recipients: their token accounts of the mint, then the recipients themselves. */
export interface RecipientAccounts {
  payments: { to: string; amount: bigint }[];
  accounts: ({ owner: string; data: unknown } | null)[];
}

/** One read for all recipients of a (multi-)transfer: each one's token account of the mint, and the recipient's own account. */
export async function readTokenRecipients(
  rpc: SolanaRpc,
  balances: SolanaBalances,
  mint: string,
  payments: { to: string; amount: bigint }[],
): Promise<RecipientAccounts> {
  if (payments.length === 0) return { payments, accounts: [] };
  const tokenAccounts = await Promise.all(payments.map((t) => balances.tokenAccount(t.to, mint)));
  const { value } = await rpc
    .getMultipleAccounts([...tokenAccounts, ...payments.map((t) => t.to)] as Address[], {
      commitment: 'confirmed',
      encoding: 'base64',
      // Enough of each account to tell a multisig (355 bytes) from a token account or a mint.
      dataSlice: { offset: 0, length: MULTISIG_BYTES + 1 },
    })
    .send();
  return { payments, accounts: value };
}

/**
 * The recipients of an SPL transfer, with whether each still needs its token account. A token
 * account (or a mint) named as the recipient would get a token account of its own, owned by
 * an address nobody signs for: the tokens would be lost, so it is refused (its owner is the
 * recipient). A multisig, owned by the token programs too, is an owner of token accounts (M of
 * N): paid.
 */
export function tokenRecipients({ payments, accounts }: RecipientAccounts): TokenRecipient[] {
  const wrong = accounts
    .slice(payments.length)
    .findIndex((a) => a !== null && TOKEN_PROGRAMS.includes(a.owner) && dataLength(a.data) !== MULTISIG_BYTES);
  if (wrong >= 0) {
    throw new ChainRejectedError(
      'refused',
      `${payments[wrong]!.to} is a token account or a mint, not a wallet address: send to the address of its owner`,
    );
  }
  // No token account yet: nothing there, or only lamports someone sent to its address (a
  // system account the ATA program takes over when it creates the token account there;
  // transferring into it as if it were one fails, and anyone can send those lamports).
  return payments.map((t, k) => ({
    recipient: t.to,
    amount: t.amount,
    createRecipientAccount: !isTokenAccount(accounts[k] ?? null),
  }));
}

/**
 * A Token-2022 mint with a transfer fee (TransferFeeConfig) delivers the amount less the fee,
 * withheld for the issuer: a payout would report the amount paid and the recipient get less.
 * Refused ('reverted': at acceptance a 422, at signing the payout fails with the reason) while
 * the fee of the current epoch takes part of a payment; a move to the fee payer (a child's
 * tokens to its master: a sweep) is the wallet's own and goes, paying the issuer's fee.
 */
export async function checkTransferFee(
  rpc: SolanaRpc,
  mint: string,
  feePayer: string,
  payments: { to: string; amount: bigint }[],
): Promise<void> {
  const outside = payments.filter((p) => p.to !== feePayer);
  if (outside.length === 0) return;
  const [{ value: account }, epoch] = await Promise.all([
    rpc.getAccountInfo(mint as Address, { commitment: 'confirmed', encoding: 'base64' }).send(),
    rpc.getEpochInfo({ commitment: 'confirmed' }).send(),
  ]);
  const fees = account ? transferFeeOf(Buffer.from(account.data[0], 'base64'), u64(epoch.epoch)) : null;
  if (!fees) return;
  for (const p of outside) {
    const fee = fees(p.amount);
    if (fee > 0n) {
      throw new ChainRejectedError(
        'reverted',
        `the mint ${mint} withholds a transfer fee: ${p.to} would receive ${p.amount - fee} of the ${p.amount} sent (${fee} withheld for the issuer)`,
      );
    }
  }
}
