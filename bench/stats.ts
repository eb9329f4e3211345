/** Small statistics and formatting helpers for repeated benchmark runs. */
import { loadavg } from 'node:os';

export interface Summary {
  median: number;
  min: number;
  max: number;
  /** (max - min) / median, in percent: how much the runs disagree. */
  spreadPct: number;
  runs: number[];
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function summarize(values: number[]): Summary {
  const m = median(values);
  const min = Math.min(...values);
  const max = Math.max(...values);
  return { median: m, min, max, spreadPct: m ? ((max - min) / m) * 100 : 0, runs: values };
}

export function fmt(n: number, digits?: number): string {
  if (!Number.isFinite(n)) return String(n);
  const d = digits ?? (Math.abs(n) >= 100 ? 0 : Math.abs(n) >= 10 ? 1 : 2);
  return n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}

export function fmtSummary(s: Summary, unit: string, digits?: number): string {
  return `median ${fmt(s.median, digits)} ${unit} (min ${fmt(s.min, digits)}, max ${fmt(s.max, digits)}, spread ${fmt(s.spreadPct, 1)}%; runs: ${s.runs.map((r) => fmt(r, digits)).join(', ')})`;
}

export function load1(): number {
  return loadavg()[0]!;
}

/**
 * How fast this machine's CPU is right now: milliseconds for a fixed integer loop (about
 * 70 ms on a quiet core here). The host of these shared VMs is sometimes busy: the same
 * loop, and every benchmark with it, then takes up to twice as long. Logged with each run.
 */
export function cpuProbeMs(): number {
  let best = Infinity;
  // Three rounds, the fastest counted: the first includes compiling the loop.
  for (let round = 0; round < 3; round++) {
    const t = performance.now();
    let x = 0;
    for (let i = 0; i < 100_000_000; i++) x = (x + i) | 0;
    if (x === 42) console.log(''); // keeps the loop from being optimised away
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `fn` repeatedly for about `ms` milliseconds; returns operations per second. */
export function rateOf(ms: number, fn: (i: number) => unknown): { perSecond: number; count: number } {
  let count = 0;
  const started = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    fn(count);
    count++;
    elapsed = performance.now() - started;
  }
  return { perSecond: (count * 1000) / elapsed, count };
}
