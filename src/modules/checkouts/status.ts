/**
 * A checkout session's state from its payments and the clock: one pure function, so every
 * rule of docs/checkout.md ("Statuses") is here and unit-tested (status.test.ts).
 *
 * - new -> processing: a payment is seen before expiresAt (pending or confirmed).
 * - -> settled: what was paid in time and is confirmed reaches the threshold (the amount less
 *   the under-payment tolerance), whenever the confirmations come within the monitoring window.
 * - -> expired: expiresAt passes with less than the threshold seen in time (nothing, or a
 *   partial payment). A session that saw enough in time waits for its confirmations instead.
 * - -> invalid: the monitoring window ends while it still waits (seen in time, never confirmed:
 *   a payment reorged away, a chain that stalled). A payment seen in time that a reorg took
 *   away keeps it waiting too (the same transaction may be mined again): invalid, not expired.
 * settled, expired and invalid are final; their flags still follow the payments.
 */
import type { CheckoutStatus } from './schemas.js';
import type { CheckoutEventName } from '../webhooks/types.js';

export interface Totals {
  /** Seen before expiresAt, not failed (pending or confirmed). */
  seenInTime: bigint;
  /**
   * Seen before expiresAt, failed ones included (a reorg took them away): whether enough was
   * ever seen in time, which the stored count (seenBefore) forgets at the first recompute
   * after the reorg. Absent: only seenBefore tells.
   */
  everSeenInTime?: bigint;
  /** Of those, confirmed. */
  confirmedInTime: bigint;
  /**
   * Of those, confirmed before the monitoring window ended (when the service saw each
   * confirmed, stored with it): what settles a session recomputed after the window. Absent:
   * nothing is known confirmed in the window.
   */
  confirmedByWindow?: bigint;
  /** Seen after expiresAt (within the monitoring window), not failed. */
  seenLate: bigint;
}

export interface SessionState {
  status: CheckoutStatus;
  partial: boolean;
  overpaid: boolean;
  paidLate: boolean;
}

export interface Terms {
  amount: bigint;
  threshold: bigint;
  expiresAt: Date;
  monitorUntil: Date;
}

/** The webhook events of a change, in the order they happened (docs/checkout.md, "Webhook events"). */
export type CheckoutEvent = CheckoutEventName;

export interface Step {
  state: SessionState;
  events: CheckoutEvent[];
}

const FINAL: ReadonlySet<CheckoutStatus> = new Set(['settled', 'expired', 'invalid']);

/**
 * The next state of a session, and the events that lead there. `before` is the stored state
 * with the totals it was computed from (`seenBefore`), so a new partial or late payment is
 * told once per change.
 */
export function nextState(before: SessionState & { seenBefore: Totals }, terms: Terms, totals: Totals, now: Date): Step {
  const events: CheckoutEvent[] = [];
  let status = before.status;
  const expired = now.getTime() >= terms.expiresAt.getTime();
  const windowOver = now.getTime() >= terms.monitorUntil.getTime();

  if (!FINAL.has(status)) {
    if (status === 'new' && totals.seenInTime > 0n) {
      status = 'processing';
      events.push('checkout.processing');
    }
    // Enough seen in time, and since gone (a reorg failed the payment; the deposit may still
    // be mined again): it waits out the window as any unconfirmed payment does, and ends
    // invalid, never expired, which says the payer paid too little or too late. Read from the
    // payments themselves: a recompute after the reorg (a late payment's) stores the lower count.
    const sawEnough = before.seenBefore.seenInTime >= terms.threshold || (totals.everSeenInTime ?? 0n) >= terms.threshold;
    // Settled by the confirmations that came within the window, whenever it is recomputed:
    // after the window (a worker behind, a page read a moment late), by those seen confirmed
    // before it ended, never by its own clock.
    const confirmed = windowOver ? (totals.confirmedByWindow ?? 0n) : totals.confirmedInTime;
    if (confirmed >= terms.threshold) {
      status = 'settled';
    } else if (expired && totals.seenInTime < terms.threshold && !sawEnough) {
      status = 'expired';
    } else if (windowOver) {
      status = 'invalid';
    }
  }
  const partial = status !== 'settled' && totals.seenInTime > 0n && totals.seenInTime < terms.threshold;
  // A payment in time that leaves it short: told at each such payment.
  if (partial && totals.seenInTime > before.seenBefore.seenInTime) events.push('checkout.partial');
  if (status === 'settled' && before.status !== 'settled') events.push('checkout.settled');
  if (status === 'expired' && before.status !== 'expired') events.push('checkout.expired');
  if (status === 'invalid' && before.status !== 'invalid') events.push('checkout.invalid');
  const paidLate = totals.seenLate > 0n;
  if (totals.seenLate > before.seenBefore.seenLate) events.push('checkout.paid-late');
  const overpaid = totals.seenInTime + totals.seenLate > terms.amount;
  return { state: { status, partial, overpaid, paidLate }, events };
}

/**
 * The threshold that settles `amount` with a tolerance in percent (a decimal string with at
 * most two fraction digits): the amount less the tolerated part, rounded so that the
 * tolerance is never exceeded (the payer may fall short by at most that much).
 */
export function thresholdOf(amount: bigint, tolerancePercent: string): bigint {
  const [whole, fraction = ''] = tolerancePercent.split('.');
  const basisPoints = BigInt(whole!) * 100n + BigInt(fraction.padEnd(2, '0') || '0');
  const tolerated = (amount * basisPoints) / 10_000n; // rounded down: never more than the tolerance
  const threshold = amount - tolerated;
  return threshold > 0n ? threshold : 1n;
}
