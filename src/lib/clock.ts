/**
 * Time comes from a Clock so schedules (webhook retries, settlements) can be tested on a
 * fake clock to the second without waiting.
 */
import { readFileSync } from 'node:fs';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date | number = Date.UTC(2026, 0, 1)) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(to: Date | number): void {
    this.current = typeof to === 'number' ? to : to.getTime();
  }
}

/**
 * A clock whose time (ms since the epoch) is read from a file on every call: lets a test
 * move the clock of a worker running in another process, which it can then kill.
 */
export class FileClock implements Clock {
  constructor(private readonly file: string) {}
  now(): Date {
    return new Date(Number(readFileSync(this.file, 'utf8').trim()));
  }
}
