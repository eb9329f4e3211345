import { describe, expect, it } from 'vitest';
import { duePeriod, lastClosedPeriod, periodOf, SCHEDULED } from './periods.js';

const at = (iso: string) => new Date(iso);
const iso = (d: Date) => d.toISOString();

describe('settlement periods (UTC)', () => {
  it('days run from midnight to midnight UTC', () => {
    const p = periodOf('DAILY', at('2026-03-10T23:59:59.999Z'));
    expect(p.key).toBe('DAILY:2026-03-10');
    expect(iso(p.start)).toBe('2026-03-10T00:00:00.000Z');
    expect(iso(p.end)).toBe('2026-03-11T00:00:00.000Z');
    expect(periodOf('DAILY', at('2026-03-11T00:00:00.000Z')).key).toBe('DAILY:2026-03-11');
  });

  it('weeks start on Monday (ISO), across a year boundary', () => {
    // 1 January 2026 is a Thursday: its week began on Monday 29 December 2025.
    const p = periodOf('WEEKLY', at('2026-01-01T12:00:00Z'));
    expect(p.key).toBe('WEEKLY:2025-12-29');
    expect(iso(p.end)).toBe('2026-01-05T00:00:00.000Z');
    // A Sunday belongs to the week of the Monday before it, a Monday starts a new one.
    expect(periodOf('WEEKLY', at('2026-01-04T23:00:00Z')).key).toBe('WEEKLY:2025-12-29');
    expect(periodOf('WEEKLY', at('2026-01-05T00:00:00Z')).key).toBe('WEEKLY:2026-01-05');
  });

  it('months have their own lengths, leap February included', () => {
    expect(iso(periodOf('MONTHLY', at('2028-02-29T10:00:00Z')).end)).toBe('2028-03-01T00:00:00.000Z');
    expect(iso(periodOf('MONTHLY', at('2026-02-28T10:00:00Z')).end)).toBe('2026-03-01T00:00:00.000Z');
    const dec = periodOf('MONTHLY', at('2026-12-31T23:00:00Z'));
    expect(dec.key).toBe('MONTHLY:2026-12');
    expect(iso(dec.end)).toBe('2027-01-01T00:00:00.000Z');
  });

  it('years run from 1 January', () => {
    const p = periodOf('YEARLY', at('2026-07-01T00:00:00Z'));
    expect(p.key).toBe('YEARLY:2026');
    expect(iso(p.start)).toBe('2026-01-01T00:00:00.000Z');
    expect(iso(p.end)).toBe('2027-01-01T00:00:00.000Z');
  });

  it('a tick settles the period that closed last', () => {
    expect(lastClosedPeriod('DAILY', at('2026-01-02T00:00:05Z')).key).toBe('DAILY:2026-01-01');
    expect(lastClosedPeriod('DAILY', at('2026-01-02T23:59:59Z')).key).toBe('DAILY:2026-01-01');
    expect(lastClosedPeriod('WEEKLY', at('2026-01-05T00:00:00Z')).key).toBe('WEEKLY:2025-12-29');
    expect(lastClosedPeriod('MONTHLY', at('2026-03-01T00:00:00Z')).key).toBe('MONTHLY:2026-02');
    expect(lastClosedPeriod('YEARLY', at('2026-01-01T00:00:00Z')).key).toBe('YEARLY:2025');
  });

  it('a schedule begun mid-period waits for that period to end', () => {
    const since = at('2026-01-01T14:00:00Z');
    expect(duePeriod('DAILY', since, at('2026-01-01T20:00:00Z'))).toBeNull();
    expect(duePeriod('DAILY', since, at('2026-01-02T00:00:01Z'))?.key).toBe('DAILY:2026-01-01');
    // Begun exactly at a boundary: the period before it is not settled.
    expect(duePeriod('DAILY', at('2026-01-02T00:00:00Z'), at('2026-01-02T08:00:00Z'))).toBeNull();
  });

  it('every period ends after it starts and the next one starts where it ends', () => {
    for (const f of SCHEDULED) {
      let t = at('2025-12-20T06:00:00Z');
      for (let i = 0; i < 30; i++) {
        const p = periodOf(f, t);
        expect(p.end.getTime()).toBeGreaterThan(p.start.getTime());
        expect(periodOf(f, p.end).start.getTime()).toBe(p.end.getTime());
        expect(periodOf(f, new Date(p.end.getTime() - 1)).key).toBe(p.key);
        t = p.end;
      }
    }
  });
});
