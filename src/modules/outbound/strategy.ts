/**
 * What the pipeline does differently for a family's ordering (chains/sending.ts, Ordering):
 * one strategy per ordering, both in ordering.ts, which picks one per chain, so the shared steps
 * (enqueue, send, track, replace, cancel) never ask which kind of family they run on.
 *
 * - 'nonce': gap-free allocation from the `nonces` counter, a nonce used
 *   elsewhere judged after a grace period (conflicts), a never-signed row's nonce taken by a
 *   0-value filler, a stuck row sped up or cancelled under the same nonce;
 * - 'expiry': no slot to take or fill; a signed row whose deadline the
 *   chain passed with no version landed is rebuilt with a fresh deadline, and never replaced.
 */
import type { FeeQuote, NetworkData, NativeIntent, Ordering, TxIntent } from '../../chains/types.js';
import type { RejectionReason } from '../../chains/errors.js';
import type { DbConn } from '../../db/pool.js';
import type { ChainHandle } from '../catalogue/service.js';
import type { Core } from './core.js';
import type { OutboundRow } from './store.js';

/**
 * 'fee-too-low': the node refused our fee cap (below its base fee); a replacement is due now.
 * 'nonce-used': the node says the row's slot is taken by a transaction it does not know as
 * ours, and the conflict is still being judged (ordering.ts, conflict): never a reason to
 * replace, since a replacement takes the same slot and would only start the judging afresh.
 */
export type BroadcastOutcome = 'accepted' | 'refused' | 'fee-too-low' | 'nonce-used' | 'settled';

/** Replacing a signed row under its slot (speed-up, cancel): the 'nonce' strategy's. */
export interface Replacing {
  /**
   * Whether an unmined row is due for a speed-up: its fee cap was refused outright, or no
   * version got mined for `replaceAfterMs` since it was first accepted (signed, if never);
   * never while its slot is said to be used by another transaction ('nonce-used').
   */
  due(core: Core, row: OutboundRow, outcome: BroadcastOutcome, now?: number): boolean;
  /** The family's bump rule over the row's network data, against a fresh quote. */
  network(row: OutboundRow): Promise<NetworkData>;
  /** What takes the slot instead of the row's call: a transaction that moves nothing. */
  voidCall(from: string): NativeIntent & { network: NetworkData };
}

/** Deadlines and rebuilds: the 'expiry' strategy's. */
export interface Rebuilding {
  /** Whether the row can no longer land and has not (ExpirySender.hasExpired; asked when no receipt was found). */
  expired(row: OutboundRow): Promise<boolean>;
  /**
   * The row steps aside as 'replaced' by a new created row with the same call and owner,
   * prepared (a fresh deadline) and signed again by the send job. Called once `expired`
   * said so: the old bytes are in no block and can never be included any more.
   */
  rebuild(core: Core, row: OutboundRow): Promise<OutboundRow | undefined>;
}

export interface OrderingStrategy {
  readonly kind: Ordering;
  /**
   * The slots of `count` new rows of one sender, in order, taken in the caller's database
   * transaction (a rollback gives them back): consecutive nonces, or none (null).
   */
  take(tx: DbConn, chain: ChainHandle, from: string, count: number): Promise<(bigint | null)[]>;
  /**
   * Makes `take` for this sender need no chain call, called before the caller's transaction
   * opens: a nonce family reads a new sender's pending count here (kept in memory for a few
   * seconds, for `take` to seed its counter with), where the node's answer holds no
   * connection and no lock (expiry families: nothing).
   */
  ready(db: DbConn, chain: ChainHandle, from: string): Promise<void>;
  /**
   * Slots and network data of transactions signed for a client to broadcast (sign-only),
   * never reserved: a nonce family's next nonces (a transaction never broadcast must not
   * leave a hole), signed with what was quoted; an expiry family's none, each prepared now
   * (a fresh deadline) from what its quote fixed.
   */
  detached(db: DbConn, chain: ChainHandle, from: string, items: { intent: TxIntent; quote: FeeQuote }[]): Promise<DetachedSlot[]>;
  /**
   * A broadcast the node refused for a reason this strategy judges (a nonce used by another
   * transaction): the outcome, the row recorded; null when the refusal is not one of those.
   */
  refused(core: Core, row: OutboundRow, reason: RejectionReason | null, message: string): Promise<BroadcastOutcome | null>;
  /**
   * Whether a row whose call would revert must wait before it is judged: until every earlier
   * nonce of its sender is mined, or every earlier unsettled row of its sender settled (the
   * estimate ran against a state the transaction will not run in).
   */
  waitsForEarlier(core: Core, row: OutboundRow): Promise<boolean>;
  /**
   * Voids a row never signed, in the caller's transaction (the row locked there): a nonce
   * goes to a 0-value filler (row.replacedBy names it), so later nonces are not blocked; an
   * expiry family leaves no slot to fill.
   */
  voidUnsigned(core: Core, tx: DbConn, row: OutboundRow, reason: string): Promise<OutboundRow>;
  /** Speed-up and cancel of a signed row; null where a signed row stands until it lands or expires. */
  readonly replacing: Replacing | null;
  /** Deadlines and rebuilds; null where a transaction never expires. */
  readonly rebuilding: Rebuilding | null;
}

export interface DetachedSlot {
  nonce: bigint | null;
  network: NetworkData;
}
