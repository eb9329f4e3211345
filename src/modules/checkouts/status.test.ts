import { describe, expect, it } from 'vitest';
import { nextState, thresholdOf, type SessionState, type Totals } from './status.js';

const T0 = Date.UTC(2026, 0, 1);
const terms = { amount: 100n, threshold: 99n, expiresAt: new Date(T0 + 30 * 60_000), monitorUntil: new Date(T0 + 90 * 60_000) };
const zero: Totals = { seenInTime: 0n, confirmedInTime: 0n, seenLate: 0n };
const fresh: SessionState & { seenBefore: Totals } = { status: 'new', partial: false, overpaid: false, paidLate: false, seenBefore: zero };
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const totals = (seenInTime: bigint, confirmedInTime: bigint, seenLate = 0n): Totals => ({ seenInTime, confirmedInTime, seenLate });

describe('nextState', () => {
  it('new -> processing when an exact payment is seen, -> settled once confirmed', () => {
    const seen = nextState(fresh, terms, totals(100n, 0n), at(1));
    expect(seen).toEqual({
      state: { status: 'processing', partial: false, overpaid: false, paidLate: false },
      events: ['checkout.processing'],
    });
    const done = nextState({ ...seen.state, seenBefore: totals(100n, 0n) }, terms, totals(100n, 100n), at(2));
    expect(done.state.status).toBe('settled');
    expect(done.events).toEqual(['checkout.settled']);
  });

  it('a payment seen and confirmed at once passes through processing', () => {
    expect(nextState(fresh, terms, totals(100n, 100n), at(1)).events).toEqual(['checkout.processing', 'checkout.settled']);
  });

  it('less is partial (told once per payment), a top-up settles it', () => {
    const short = nextState(fresh, terms, totals(40n, 40n), at(1));
    expect(short.state).toMatchObject({ status: 'processing', partial: true });
    expect(short.events).toEqual(['checkout.processing', 'checkout.partial']);
    const again = nextState({ ...short.state, seenBefore: totals(40n, 40n) }, terms, totals(40n, 40n), at(2));
    expect(again.events).toEqual([]);
    const more = nextState({ ...short.state, seenBefore: totals(40n, 40n) }, terms, totals(60n, 40n), at(3));
    expect(more.events).toEqual(['checkout.partial']);
    const topped = nextState({ ...more.state, seenBefore: totals(60n, 40n) }, terms, totals(100n, 100n), at(4));
    expect(topped.state).toMatchObject({ status: 'settled', partial: false });
  });

  it('within the tolerance settles, not partial; over the amount is overpaid', () => {
    expect(nextState(fresh, terms, totals(99n, 99n), at(1)).state).toMatchObject({ status: 'settled', partial: false, overpaid: false });
    expect(nextState(fresh, terms, totals(150n, 150n), at(1)).state).toMatchObject({ status: 'settled', overpaid: true });
  });

  it('expires with nothing or a partial payment; money after that is paidLate, the status stays', () => {
    const expired = nextState(fresh, terms, zero, at(30));
    expect(expired.state.status).toBe('expired');
    expect(expired.events).toEqual(['checkout.expired']);
    const late = nextState({ ...expired.state, seenBefore: zero }, terms, totals(0n, 0n, 100n), at(31));
    expect(late.state).toEqual({ status: 'expired', partial: false, overpaid: false, paidLate: true });
    expect(late.events).toEqual(['checkout.paid-late']);
    const partly = nextState(fresh, terms, totals(10n, 10n), at(31));
    expect(partly.state).toMatchObject({ status: 'expired', partial: true });
  });

  it('recomputed after the window: settled by what was confirmed within it, invalid by what was confirmed after', () => {
    const processing = { ...fresh, status: 'processing' as const, seenBefore: totals(100n, 0n) };
    // Confirmed a second before the window ended, recomputed two seconds after it.
    const late = new Date(terms.monitorUntil.getTime() + 2_000);
    const inWindow = nextState(processing, terms, { ...totals(100n, 100n), confirmedByWindow: 100n }, late);
    expect(inWindow.state.status).toBe('settled');
    expect(inWindow.events).toEqual(['checkout.settled']);
    // Confirmed only after it ended (or when it was is unknown): invalid.
    expect(nextState(processing, terms, { ...totals(100n, 100n), confirmedByWindow: 0n }, late).state.status).toBe('invalid');
    expect(nextState(processing, terms, totals(100n, 100n), late).state.status).toBe('invalid');
    // Within the tolerance counts as before; short of it does not.
    expect(nextState(processing, terms, { ...totals(100n, 100n), confirmedByWindow: 99n }, late).state.status).toBe('settled');
    expect(nextState(processing, terms, { ...totals(100n, 100n), confirmedByWindow: 98n }, late).state.status).toBe('invalid');
  });

  it('enough seen in time waits for its confirmations past expiry; invalid when the window ends first', () => {
    const waiting = nextState({ ...fresh, status: 'processing', seenBefore: totals(100n, 0n) }, terms, totals(100n, 0n), at(45));
    expect(waiting.state.status).toBe('processing');
    expect(nextState({ ...waiting.state, seenBefore: totals(100n, 0n) }, terms, totals(100n, 100n), at(60)).state.status).toBe('settled');
    const invalid = nextState({ ...waiting.state, seenBefore: totals(100n, 0n) }, terms, totals(100n, 0n), at(90));
    expect(invalid.state.status).toBe('invalid');
    expect(invalid.events).toEqual(['checkout.invalid']);
  });

  it('enough seen in time, then reorged away: it still waits, and ends invalid, never expired', () => {
    const waiting = { ...fresh, status: 'processing' as const, seenBefore: totals(100n, 0n) };
    expect(nextState(waiting, terms, zero, at(45)).state.status).toBe('processing');
    const end = nextState(waiting, terms, zero, at(90));
    expect(end.state.status).toBe('invalid');
    expect(end.events).toEqual(['checkout.invalid']);
    // Mined again meanwhile (its first sighting kept): it settles.
    expect(nextState(waiting, terms, totals(100n, 100n), at(60)).state.status).toBe('settled');
    // Recomputed after the reorg (a late payment): the stored count is 0, the payments still tell.
    const forgot = { ...waiting, seenBefore: zero };
    const gone = { ...totals(0n, 0n, 10n), everSeenInTime: 100n };
    expect(nextState(forgot, terms, gone, at(45)).state.status).toBe('processing');
    expect(nextState(forgot, terms, gone, at(90)).state.status).toBe('invalid');
  });
});

describe('thresholdOf', () => {
  it('takes the tolerance off, never more', () => {
    expect(thresholdOf(100_000_000n, '0')).toBe(100_000_000n);
    expect(thresholdOf(100_000_000n, '1')).toBe(99_000_000n);
    expect(thresholdOf(100_000_000n, '0.5')).toBe(99_500_000n);
    expect(thresholdOf(333n, '1.25')).toBe(329n); // 4.1625 tolerated -> 4
    expect(thresholdOf(1n, '50')).toBe(1n);
  });
});
