/**
 * The typed event registry: what one module tells the others, and who listens.
 *
 * Events and their payloads are below (`EventPayloads`). Every subscriber is named once, in
 * src/subscriptions.ts, which services.ts hands to `wire()`: a reader follows a flow from
 * services.ts to subscriptions.ts to the handler, and modules register nothing themselves.
 *
 * - `outbound.signed | settled | confirmed` are keyed by the row's purpose. Their tables are
 *   exhaustive over `Purpose`: a new purpose does not compile until each table says who
 *   handles it, or `null` for nobody. A row whose purpose is not in the union (rows written
 *   by tests) has no subscriber, as before. The outbound pipeline emits them inside the
 *   transaction that stores the signature, settles the row (exactly once: row lock and stage
 *   condition, outbound/core.ts) or records a confirmation change; a subscriber that throws
 *   rolls that transaction back and it is retried.
 * - `deposit.recorded`, `deposit.confirmed` and `deposit.failed` (the indexer and the deposit
 *   finder, in the transaction that records, confirms or fails the deposits) and `sweep.completed` (in the transaction that marks deposits swept) have
 *   lists of subscribers. Those of today only queue jobs (subscriptions.ts): the treasury
 *   work itself runs in the worker, so it can neither stall nor roll back indexing.
 */
import type { DbConn } from './db/pool.js';
import type { Confirmation, OutboundRow } from './outbound-row.js';

/** Every purpose an outbound row is sent with. The tables in subscriptions.ts are exhaustive over it. */
export const PURPOSES = [
  'withdraw',
  'withdraw-cancel',
  'sweep-topup',
  'sweep',
  'sweep-lend',
  'sweep-give-back',
  'contract',
  'autosettle-topup',
  'autosettle-approve',
  'autosettle-swap',
  'autosettle-transfer',
  'staking',
  'salvage-topup',
  'salvage-lend',
  'salvage',
  'salvage-give-back',
  'swap-topup',
  'swap-approve',
  'swap',
  'nonce-filler',
] as const;
export type Purpose = (typeof PURPOSES)[number];

const PURPOSE_SET: ReadonlySet<string> = new Set(PURPOSES);
export const isPurpose = (value: string): value is Purpose => PURPOSE_SET.has(value);

export interface EventPayloads {
  /** A row's signature is stored (replacements too), before anything is broadcast. */
  'outbound.signed': { row: OutboundRow };
  /**
   * A row reached a terminal stage: 'mined', 'failed' (reverted, fee paid), 'dropped' (its
   * nonce used elsewhere) or 'replaced' (voided before signing because it would revert).
   */
  'outbound.settled': { row: OutboundRow };
  /** A settled row's receipt got deeper, moved to another block, or was reorged away (outbound/confirm.ts). */
  'outbound.confirmed': { row: OutboundRow; change: Confirmation };
  /**
   * New deposits were recorded (PENDING, or SUCCESS when found already final), or failed ones
   * revived (their transaction mined again after a reorg: PENDING again), in the transaction
   * that wrote them.
   */
  'deposit.recorded': { depositIds: string[] };
  /** Deposits reached their confirmations (status SUCCESS). */
  'deposit.confirmed': { depositIds: string[] };
  /**
   * Deposits still PENDING were failed: their block or their transfer is gone (a chain
   * reorganisation), in the transaction that failed them.
   */
  'deposit.failed': { depositIds: string[] };
  /** A sweep moved these deposits to the master address (or found an earlier sweep had). */
  'sweep.completed': { sweepId: string; depositIds: string[] };
  /**
   * An approval request was decided (policies/approvals.ts), in the transaction that decided
   * it: APPROVED (quorum reached, or an owner's override), REJECTED, or EXPIRED (its time to
   * live passed). The payout it held proceeds or is cancelled in the same transaction.
   */
  'approval.decided': { approvalId: string; transactionId: string; outcome: 'APPROVED' | 'REJECTED' | 'EXPIRED'; reason: string };
}
export type EventName = keyof EventPayloads;
export type OutboundEventName = 'outbound.signed' | 'outbound.settled' | 'outbound.confirmed';
export type Handler<E extends EventName> = (tx: DbConn, payload: EventPayloads[E]) => Promise<void>;

/** One handler per purpose, or null: "nobody listens", said explicitly. */
export type PurposeTable<E extends OutboundEventName> = { readonly [P in Purpose]: Handler<E> | null };

export type Subscribers = { readonly [E in OutboundEventName]: PurposeTable<E> } & {
  readonly [E in Exclude<EventName, OutboundEventName>]: readonly Handler<E>[];
};

const isOutbound = (e: EventName): e is OutboundEventName => e.startsWith('outbound.');

export class Events {
  #subscribers: Subscribers | null = null;
  readonly #observers = new Map<EventName, Set<Handler<EventName>>>();

  /** Sets the subscribers, once (services.ts, from subscriptions.ts). */
  wire(subscribers: Subscribers): void {
    if (this.#subscribers) throw new Error('the event subscribers are already wired');
    this.#subscribers = subscribers;
  }

  /** Runs the event's subscribers in the caller's transaction, in order; a throw propagates (and rolls it back). */
  async emit<E extends EventName>(event: E, tx: DbConn, payload: EventPayloads[E]): Promise<void> {
    for (const handler of this.#handlers(event, payload)) await handler(tx, payload);
    const observers = this.#observers.get(event);
    if (observers) for (const observe of [...observers]) await (observe as Handler<E>)(tx, payload);
  }

  /** Whether rows of this purpose are followed to their confirmation depth (an `outbound.confirmed` subscriber exists). */
  followsConfirmations(purpose: string): boolean {
    return isPurpose(purpose) && this.#wired()['outbound.confirmed'][purpose] !== null;
  }

  /**
   * Tests only: a handler run after the subscribers, in the same transaction, for every
   * payload of the event (any purpose). Returns its removal. Production code subscribes in
   * subscriptions.ts (src/events.test.ts checks nothing else in src/ calls this).
   */
  observe<E extends EventName>(event: E, handler: Handler<E>): () => void {
    const set = this.#observers.get(event) ?? new Set();
    this.#observers.set(event, set);
    set.add(handler as Handler<EventName>);
    return () => void set.delete(handler as Handler<EventName>);
  }

  #handlers<E extends EventName>(event: E, payload: EventPayloads[E]): readonly Handler<E>[] {
    const subscribers = this.#wired();
    if (isOutbound(event)) {
      const { purpose } = (payload as EventPayloads[OutboundEventName]).row;
      const handler = isPurpose(purpose) ? (subscribers[event] as PurposeTable<OutboundEventName>)[purpose] : null;
      return handler ? [handler as unknown as Handler<E>] : [];
    }
    return subscribers[event as Exclude<EventName, OutboundEventName>] as unknown as readonly Handler<E>[];
  }

  #wired(): Subscribers {
    if (!this.#subscribers) throw new Error('an event was emitted before the subscribers were wired (services.ts)');
    return this.#subscribers;
  }
}
