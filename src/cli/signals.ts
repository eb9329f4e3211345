/**
 * Stopping on a signal: the first SIGTERM, SIGINT or SIGHUP starts a clean stop that ends
 * with exit code 0; a second signal forces exit; a stop that outlives its bound exits 1.
 *
 * What counts as "a second signal" depends on who sits above us. Run directly (`node
 * dist/main.js` under systemd, Kubernetes or a terminal) every signal is one event. Run by
 * `npm start`, npm forwards SIGINT and SIGTERM to us, and a Ctrl-C in a terminal also
 * reaches us directly (the terminal signals the whole foreground process group): one press
 * arrives twice, and under load the copies can be seconds apart. Telling a person's second
 * press from a late copy by timing made a plain Ctrl-C exit with 130 mid-shutdown; counting
 * cannot: under npm a forced exit takes a third signal, which one press never produces.
 */
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import type { Logger } from '../lib/logger.js';

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type StopSignal = (typeof STOP_SIGNALS)[number];

/** How many times one signal event reaches this process: 2 under npm (its relay + the terminal). */
export function copiesPerSignal(): number {
  return parentIsNpm() ? 2 : 1;
}

function parentIsNpm(): boolean {
  try {
    // npm titles itself "npm <command>"; a node running npm-cli.js is npm too.
    const argv = readFileSync(`/proc/${process.ppid}/cmdline`, 'utf8').split('\0');
    return /^npm\b/.test(argv[0] ?? '') || argv.slice(0, 2).some((a) => /npm-cli\.js$/.test(a));
  } catch {
    return false;
  }
}

export interface ShutdownOptions {
  logger: Logger;
  /** The clean stop; resolves when everything is released. */
  stop: () => Promise<void>;
  /** After this long the stop is abandoned: exit code 1. */
  boundMs: number;
  /** Called once the clean stop has finished, before exiting (default: exit 0). */
  exit?: (code: number) => void;
}

/** Installs the handlers; returns whether a stop has begun (for a start still under way). */
export function stopOnSignals(opts: ShutdownOptions): { stopping: () => boolean } {
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const copies = copiesPerSignal();
  let received = 0;
  const onSignal = (signal: StopSignal) => {
    received++;
    if (received > 1) {
      if (received <= copies) return; // the same event, relayed
      process.stderr.write('forced exit\n');
      process.exit(128 + (constants.signals[signal] ?? 15));
    }
    opts.logger.info({ signal }, 'shutting down');
    // Not unref'd: it also keeps the process alive while the stop waits on nothing else.
    setTimeout(() => {
      opts.logger.error({ boundMs: opts.boundMs }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, opts.boundMs);
    opts.stop().then(
      () => exit(0),
      (err: unknown) => {
        opts.logger.error({ err: (err as Error).message }, 'shutdown failed');
        exit(1);
      },
    );
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => onSignal(signal));
  return { stopping: () => received > 0 };
}
