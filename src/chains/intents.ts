/**
 * What a transaction does, said the same way for every family (chains/types.ts re-exports
 * it): a payment in the native coin, a payment in a token, or a contract call. Modules say
 * which and to whom; the family compiles it into its own transaction (EVM: a value transfer,
 * or ERC-20 `transfer` calldata to the token; Tron: a TransferContract, or a TRC-20 call;
 * Solana: a System Program transfer, or an SPL transferChecked between associated token
 * accounts). A `call` is a contract's own calldata and only families with the contracts
 * capability sign one (chains/capabilities.ts).
 */

interface IntentParties {
  /** The account whose coins or tokens move (and that signs). */
  from: string;
  /**
   * Who pays the fee when the family lets another account pay it (the feeSponsorship
   * capability: Solana, where the master pays for its children; ChildFeeFunding 'none');
   * absent: `from` pays. Families where the sender always pays never receive it from the pipeline.
   */
  feePayer?: string;
}

/** One payment of a token transfer: a recipient and an amount in the token's base units. */
export interface Payment {
  to: string;
  amount: bigint;
}

/** `amount` of the native coin (base units) to `to`. */
export interface NativeIntent extends IntentParties {
  kind: 'native';
  to: string;
  amount: bigint;
  /** A note the transaction carries, where the family can carry one; a family that cannot refuses it. */
  memo?: string;
}

/** `amount` of `token` (its contract or mint; base units) to `to`. */
export interface TokenIntent extends IntentParties {
  kind: 'token';
  token: string;
  to: string;
  amount: bigint;
  memo?: string;
  /**
   * More payments of the same token from the same sender in the same transaction (the
   * batching capability's combine: Solana packs SPL transfers); absent for one payment.
   */
  more?: readonly Payment[];
}

/** A contract call: calldata (0x hex) to the contract `to`, with `value` of the native coin. */
export interface CallIntent extends IntentParties {
  kind: 'call';
  to: string;
  value: bigint;
  data: string;
}

export type TxIntent = NativeIntent | TokenIntent | CallIntent;

type WithoutParties<T> = T extends unknown ? Omit<T, 'from' | 'feePayer'> : never;

/** An intent without its parties: what an outbound row sends, whoever sends it. */
export type IntentBody = WithoutParties<TxIntent>;

/** The native coin an intent moves besides its fee: a payment's amount, a call's value, nothing for tokens. */
export function nativeValueOf(intent: IntentBody): bigint {
  return intent.kind === 'native' ? intent.amount : intent.kind === 'call' ? intent.value : 0n;
}

/** Every payment of a token intent, in order (its own, then `more`). */
export function paymentsOf(intent: TokenIntent): Payment[] {
  return [{ to: intent.to, amount: intent.amount }, ...(intent.more ?? [])];
}

/** The intent without its parties (what an outbound row keeps: its sender and fee payer are columns of their own). */
export function bodyOf(intent: TxIntent): IntentBody {
  const body: Partial<TxIntent> = { ...intent };
  delete body.from;
  delete body.feePayer;
  return body as IntentBody;
}

/** The intent of `body` sent by `from` (its fee paid by `feePayer` when given). */
export function intentOf(body: IntentBody, from: string, feePayer?: string | null): TxIntent {
  return { ...body, from, ...(feePayer ? { feePayer } : {}) } as TxIntent;
}
