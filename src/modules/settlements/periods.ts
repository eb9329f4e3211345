/**
 * Settlement periods, all in UTC: a day starts at 00:00, a week on Monday 00:00 (ISO
 * weeks), a month on its 1st, a year on 1 January. A scheduled settlement settles a period
 * once it has closed, i.e. at the first scheduler tick after the boundary.
 */
export type ScheduledFrequency = 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY';
export const SCHEDULED: readonly ScheduledFrequency[] = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'];

export interface Period {
  /** Stable name of the period, unique per frequency: 'DAILY:2026-01-01', 'WEEKLY:2025-12-29', 'MONTHLY:2026-01', 'YEARLY:2026'. */
  key: string;
  start: Date;
  /** Exclusive. */
  end: Date;
}

const DAY_MS = 86_400_000;

/** Start of the period of `frequency` that contains `at`. */
export function periodStart(frequency: ScheduledFrequency, at: Date): Date {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  const dayStart = Date.UTC(y, m, at.getUTCDate());
  switch (frequency) {
    case 'DAILY':
      return new Date(dayStart);
    case 'WEEKLY':
      // getUTCDay: Sunday 0 ... Saturday 6; ISO weeks start on Monday.
      return new Date(dayStart - ((at.getUTCDay() + 6) % 7) * DAY_MS);
    case 'MONTHLY':
      return new Date(Date.UTC(y, m, 1));
    case 'YEARLY':
      return new Date(Date.UTC(y, 0, 1));
  }
}

/** Start of the period after the one that starts at `start`. */
function nextStart(frequency: ScheduledFrequency, start: Date): Date {
  const y = start.getUTCFullYear();
  const m = start.getUTCMonth();
  switch (frequency) {
    case 'DAILY':
      return new Date(start.getTime() + DAY_MS);
    case 'WEEKLY':
      return new Date(start.getTime() + 7 * DAY_MS);
    case 'MONTHLY':
      return new Date(Date.UTC(y, m + 1, 1));
    case 'YEARLY':
      return new Date(Date.UTC(y + 1, 0, 1));
  }
}

export function periodOf(frequency: ScheduledFrequency, at: Date): Period {
  const start = periodStart(frequency, at);
  return { key: keyOf(frequency, start), start, end: nextStart(frequency, start) };
}

/** The most recent period that has ended at `now` (the one a tick at `now` settles). */
export function lastClosedPeriod(frequency: ScheduledFrequency, now: Date): Period {
  return periodOf(frequency, new Date(periodStart(frequency, now).getTime() - 1));
}

/**
 * The period a tick at `now` should settle for a schedule that began at `since`, or null
 * when no period has closed since then (a schedule set up mid-period waits for its end).
 */
export function duePeriod(frequency: ScheduledFrequency, since: Date, now: Date): Period | null {
  const period = lastClosedPeriod(frequency, now);
  return period.end.getTime() > since.getTime() ? period : null;
}

function keyOf(frequency: ScheduledFrequency, start: Date): string {
  const iso = start.toISOString();
  switch (frequency) {
    case 'DAILY':
    case 'WEEKLY':
      return `${frequency}:${iso.slice(0, 10)}`;
    case 'MONTHLY':
      return `${frequency}:${iso.slice(0, 7)}`;
    case 'YEARLY':
      return `${frequency}:${iso.slice(0, 4)}`;
  }
}
