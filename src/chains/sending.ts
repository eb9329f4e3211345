/**
 * The seam's sending side (chains/types.ts re-exports it): what a family answers for the
 * outbound lifecycle (Sender), the intents, fee quotes, network data and keys it works
 * with, and the receipts it reads. Kept apart from the adapter's reading side so that each
 * file reads in one sitting; it imports nothing of the seam back (no cycle).
 */
import type { SigningKey } from '../keys/types.js';
import type { Receipt } from './receipts.js';
import type { NetworkData } from './network-data.js';
import type { NativeIntent, TxIntent } from './intents.js';

export type { NetworkData } from './network-data.js';

// ---- sending: a family's side of the outbound lifecycle ---------------------------------

/*
 * The outbound pipeline (modules/outbound) owns what every family shares: stages
 * (created -> signed -> broadcast -> mined | failed | dropped | replaced), its jobs, settling
 * once, confirmation depth and reorgs. What differs per family is here: how a sender's
 * transactions are ordered, what a fee is and how it is quoted, the limit of a call, the
 * rule for replacing a stuck transaction, the call that voids an ordering slot, and how to
 * find which signed version of a transaction landed. Refusals are typed (chains/errors.ts).
 */

/**
 * How a family orders one sender's transactions, the two strategies of the pipeline
 * (modules/outbound/ordering.ts); a Sender is one or the other (NonceSender, ExpirySender):
 * - 'nonce': a counter per sender, each number used once and in order (EVM). The pipeline
 *   allocates numbers gap-free in the caller's database transaction; a stuck transaction is
 *   replaced under the same number with higher fees (`replacementNetwork`); a slot that must
 *   not carry its call is filled with `voidCall`; a number used elsewhere is read with `nonceOf`.
 * - 'expiry': no counter; a transaction is valid until a deadline (Tron's expiration,
 *   Solana's recent block reference) and one that expired unmined (`hasExpired`) is rebuilt
 *   and signed again.
 */
export type Ordering = 'nonce' | 'expiry';

/** A call's limit: what the node estimated, and that with the family's safety margin (what is signed). */
export interface CallLimit {
  estimate: bigint;
  limit: bigint;
}

// A key lent for one signature is keys/'s vocabulary (keys/types.ts).
export type { SigningKey } from '../keys/types.js';

/** A signed transaction: its bytes as the node takes them (hex), and its hash as the chain will know it. */
export interface SignedTransaction {
  raw: string;
  hash: string;
}

/** The family's answer to "fund a child's fee" for one transaction (Sender.childFeeFunding). */
export type ChildFeeFunding =
  /** The child can pay, or someone else pays: nothing to send first. */
  | { kind: 'none' }
  /** The master sends `amount` of the native coin to the child first (an EVM gas top-up). */
  | { kind: 'transfer'; amount: bigint }
  /**
   * The master lends the child resources from its own stake for the transaction (Tron:
   * energy delegated from staked TRX), and takes them back once the transaction settled,
   * whatever its outcome. In order: `transfer` of the native coin first when above 0
   * (activating the child, bandwidth it lacks), then the master's transaction to the child
   * with value 0 and network data `lend`, then the child's transaction signed with `network`
   * (what was lent covers it), then the master's transaction to the child with value 0 and
   * network data `giveBack`. `lend` and `giveBack` are opaque: the family built them and
   * signs them (its prepare and sign read what they do from them).
   */
  | { kind: 'lend'; transfer: bigint; lend: NetworkData; giveBack: NetworkData; network: NetworkData };

/** Options of Sender.quote. */
export interface QuoteOptions {
  /** Read the node's fees now instead of the shared quote. */
  fresh?: boolean;
  /** What the call uses as a simulation already estimated it: the family adds its margin, the node is not asked. */
  estimate?: bigint;
  /**
   * The network data of earlier attempts of the same transfer, oldest first (a retry): the
   * fees are fixed, the family's bump over the latest one that carries fees (at least the
   * quote's), or the quote when none does.
   */
  above?: NetworkData[];
  /**
   * The transfer takes the sender's whole balance of the token (a sweep): a family that can
   * give back what holding the token cost the sender does so where its operator allows it
   * (Solana: the emptied token account is closed, its rent to the fee payer; chains file
   * `sweepCloseAccounts`), and keeps that in `fixed` so the transaction is built so. Others ignore it.
   */
  wholeBalance?: boolean;
  /**
   * With `wholeBalance`: give back what holding the token cost whatever the operator's sweep
   * setting (an asset recovery empties an account nobody will use again: Solana closes it,
   * its rent to the fee payer).
   */
  reclaim?: boolean;
  /**
   * The transfer sends the sender's whole native balance less its fee (a sweep of the coin to
   * the master): what is reserved for the fee is left behind, so a family whose plain
   * transfer has an exact cost signs with it instead of an estimate with a margin (EVM:
   * 21,000 gas). Others quote as usual.
   */
  wholeNative?: boolean;
}

/** What one transaction would cost its sender (Sender.quote). */
export interface FeeQuote {
  /** Complete: what would be signed now, the caller's fixed fields kept. */
  network: NetworkData;
  /**
   * What must be signed as it is when the pipeline prepares the transaction later: the
   * caller's fields (completed: a fee cap's tip) and a retry's fees; the rest is quoted again then.
   */
  fixed: NetworkData;
  /** The most the transaction can cost its sender in the native coin, excluding its value. */
  fee: bigint;
  /** The limit estimated here (by the node, or from `estimate`), with the margin; absent when `given` fixed it. */
  limit?: CallLimit;
}

/** What every family's Sender answers, whatever its ordering. */
export interface SenderCore {
  /** Which strategy orders the family's transactions: the discriminant of Sender. */
  readonly ordering: Ordering;
  /**
   * What one transaction would cost, as the family prices it (modules add value + fee and
   * hand `fixed` to the pipeline): `given` fields are kept (a fee cap given alone gets its
   * tip here, and a cap under the network's current fee is a ValidationError naming
   * gasPrice), the limit is estimated with the family's margin (from `opts.estimate`
   * without a node call), the fees come from a quote shared for a second by every caller
   * on the chain (fees move once per block), read now when `fresh`. A call that would
   * revert is a ChainRejectedError with reason 'reverted'.
   */
  quote(intent: TxIntent, given?: NetworkData, opts?: QuoteOptions): Promise<FeeQuote>;
  /**
   * Several intents priced with one read of the fees (read now when `fresh`), in order. An
   * item's `exact`: its `estimate` is priced as it is, without the family's margin (a fee
   * shown to a client, e.g. a contract call's network fee; never what is signed).
   */
  quoteAll(
    items: { intent: TxIntent; given?: NetworkData; estimate?: bigint; exact?: boolean }[],
    opts?: { fresh?: boolean },
  ): Promise<FeeQuote[]>;
  /** `quote` with more fields fixed (e.g. another limit), priced at its fees: no node call. */
  requote(quote: FeeQuote, given: NetworkData): FeeQuote;

  // The lifecycle's steps on one transaction, over its opaque network data.
  /**
   * The fields a client fixed, in the API's terms, checked: `limit` (the API's gasLimit, in
   * the family's units: EVM gas, Tron's fee limit in sun, Solana compute units) and `feeCap`
   * (the API's gasPrice: EVM's fee cap, its tip chosen by quote or prepare; refused where a
   * fee is not bid). A ValidationError names what is wrong.
   */
  fixedNetwork(given: { limit?: bigint; feeCap?: bigint }): NetworkData;
  /**
   * Completes the network data before signing: what the caller fixed stays, the rest is
   * estimated and quoted. A call that would revert is a ChainRejectedError ('reverted').
   * On 'expiry' families it always sets a fresh deadline (a reference block, a recent
   * blockhash), whatever `given` holds: a rebuild after expiry prepares the old row's data again.
   * `feeCeiling`: the most the fee may be (what the payout reserved, native base units); a
   * family that bids its fee when signing bids at most that (EVM: the fee cap; Solana: the
   * priority fee, and a cost that cannot fit, such as a token account's rent, is refused as
   * 'reverted'); on Tron the fee limit fixed when quoted bounds it, and one estimated when
   * signing (a payout approved later, a contract write) is lowered to fit, never below the
   * call's energy at today's price: a call that no longer fits is refused as 'reverted'.
   */
  prepare(intent: TxIntent, given: NetworkData, opts?: { feeCeiling?: bigint }): Promise<NetworkData>;
  /**
   * Signs with the lent key; `nonce` is the ordering slot on 'nonce' families (required
   * there) and null on 'expiry' families (the deadline is in `network`). `payerKey`: the
   * key of `intent.feePayer` when it is another account than `from`.
   */
  sign(intent: TxIntent, nonce: bigint | null, network: NetworkData, key: SigningKey, payerKey?: SigningKey): SignedTransaction;
  /** The most a transaction can cost its sender in the native coin. */
  costOf(value: bigint, network: NetworkData): bigint;
  /**
   * The least native balance a sending account may be left with, unless it is left with
   * none: a transaction that leaves it in between fails on chain (Solana: the rent-exempt
   * minimum of an account without data). 0 where any remainder will do (EVM, Tron).
   */
  accountFloor(): Promise<bigint>;
  /**
   * How a child address's transaction gets its fee paid ("fund a child's fee"), given what
   * the child holds in the native coin: EVM: the child pays, so the master first sends what it
   * lacks (`transfer`); Solana: the master signs as fee payer (`none`: nothing to send); Tron:
   * resources delegated or TRX sent (issue 15).
   */
  childFeeFunding(p: { nativeBalance: bigint; value: bigint; network: NetworkData }): ChildFeeFunding;
  /**
   * childFeeFunding with the chain read: a family that can lend a child resources (Tron:
   * energy delegated from the master's staked TRX; bandwidth and activation it cannot lend)
   * answers 'lend' when its operator allows it and the master can, else what
   * childFeeFunding answers (EVM, Solana: that answer). `child` sends the transaction,
   * `master` pays; `network` is the child's transaction's quote. `spendsInFlight`: the child
   * has other spends in flight (another sweep, a payout) that may reach the chain first and
   * use what the chain gives it for free (Tron: its daily free bandwidth).
   */
  planChildFunding(p: {
    child: string;
    master: string;
    nativeBalance: bigint;
    value: bigint;
    network: NetworkData;
    spendsInFlight?: boolean;
  }): Promise<ChildFeeFunding>;
  /**
   * What a transaction whose fee was paid for in advance (a child's top-up) must be signed
   * with, so that it costs no more than `quote` said: EVM the quoted limit and fees; a family
   * whose fee is fixed by the chain's price or paid by another account, what the quote fixed.
   */
  fundedNetwork(quote: FeeQuote): NetworkData;
  /**
   * Which of a transaction's signed versions (hashes, in the order given) landed, with its
   * receipt; null while none has. Looks in that order and stops at the first found.
   */
  findLanded(hashes: string[]): Promise<{ index: number; receipt: Receipt } | null>;
}

/** A family whose senders count their transactions (EVM): the 'nonce' strategy's members. */
export interface NonceSender extends SenderCore {
  readonly ordering: 'nonce';
  /** The chain's count of a sender's transactions: 'pending' includes the node's pool (a counter's seed). */
  nonceOf(address: string, which: 'pending' | 'latest'): Promise<bigint>;
  /** A transaction that moves nothing, to fill or cancel a nonce (EVM: a 0-value self-transfer), with its network data. */
  voidCall(from: string): NativeIntent & { network: NetworkData };
  /** The network data of a replacement of a stuck transaction: the bump rule over `network`, against a fresh quote. */
  replacementNetwork(network: NetworkData): Promise<NetworkData>;
}

/** A family whose transactions carry a deadline instead (Tron, Solana): the 'expiry' strategy's member. */
export interface ExpirySender extends SenderCore {
  readonly ordering: 'expiry';
  /**
   * Whether the transaction signed as `hash` with `network` can no longer land and has not:
   * its deadline is behind the chain's final head (no fork can include it any more) and the
   * chain, read at or past that point, does not hold it. Only then may the pipeline rebuild
   * it. The two facts are tied in one answer because behind a load balancer a receipt lookup
   * can reach a node that lags the one that saw the deadline pass, and its "not found" would
   * rebuild a payment that landed (paid twice); a family that cannot tell throws a retryable
   * UpstreamError instead. Asked when no receipt was found; a transaction that landed just in
   * time, after that lookup, is found here and not rebuilt.
   */
  hasExpired(network: NetworkData, hash: string): Promise<boolean>;
}

/** A family's side of the outbound lifecycle: the core, and the members of its ordering. */
export type Sender = NonceSender | ExpirySender;
