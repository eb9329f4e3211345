/**
 * Sign-in throttle: a progressive delay instead of a lock, by (account, client).
 *
 * Every password check counts as a failure until it proves right. Past a few free
 * failures, each one pushes the earliest time of the next check further out (1 s, 2 s,
 * 4 s, ... up to the rule's cap). An attempt before that time is refused at once (429 with
 * Retry-After) without touching the password or writing anything; once the time has come,
 * the right password works. Which counters an attempt is checked against depends on who
 * sends it:
 *
 * - A known device of the account: a browser that signed in to it before and holds its
 *   device cookie (service.ts). Counted by its own failures only (DEVICE: 4 free, capped at
 *   one minute), so strangers' guesses never delay the owner's browsers, however patient.
 * - Anyone else, a stranger: counted per account (ACCOUNT: the email, whether or not it
 *   exists, so the answer reveals nothing; 4 free, capped at 5 minutes, restarting after a
 *   success or a day without failures), which bounds guessing from any number of addresses
 *   to one guess per 5 minutes, and per client address (CLIENT: 19 free, one failure
 *   forgotten every 3 minutes, so a shared address gets 20 mistakes an hour before anyone
 *   there waits; an IPv6 client counted by its /64, which one host can fill with addresses).
 *   The owner on a new browser waits at most the ACCOUNT cap.
 */
import { isIP } from 'node:net';

export interface ThrottleRule {
  prefix: string;
  /** Failures without any delay. */
  free: number;
  /** Longest delay, seconds. */
  capSeconds: number;
  /** One failure is forgotten per this many seconds (client); null: none. */
  leakSeconds: number | null;
  /** The count restarts after this many seconds without a failure (account); null: never. */
  resetSeconds: number | null;
}

export const ACCOUNT: ThrottleRule = { prefix: 'account:', free: 4, capSeconds: 5 * 60, leakSeconds: null, resetSeconds: 24 * 3600 };
export const CLIENT: ThrottleRule = { prefix: 'client:', free: 19, capSeconds: 15 * 60, leakSeconds: 3 * 60, resetSeconds: null };
export const DEVICE: ThrottleRule = { prefix: 'device:', free: 4, capSeconds: 60, leakSeconds: null, resetSeconds: 24 * 3600 };
/** TOTP codes of one user (after a right password): a million codes, so the account's doubling delay. */
export const SECOND_FACTOR: ThrottleRule = { prefix: 'totp:', free: 4, capSeconds: 5 * 60, leakSeconds: null, resetSeconds: 24 * 3600 };

export function secondFactorKey(userId: string): string {
  return `${SECOND_FACTOR.prefix}${userId}`;
}

/** Rows untouched for this long hold nothing any more and are pruned. */
export const PRUNE_AFTER_MS = 24 * 3600 * 1000;
/** Stale rows deleted per recorded attempt: more than attempts can add, so the table stays bounded. */
export const PRUNE_CHUNK = 100;

/** Seconds before the next check after `failures` consecutive failures (this one included). */
export function delaySeconds(rule: ThrottleRule, failures: number): number {
  if (failures <= rule.free) return 0;
  return Math.min(rule.capSeconds, 2 ** Math.min(failures - rule.free - 1, 30));
}

export function accountKey(emailLower: string): string {
  return `${ACCOUNT.prefix}${emailLower}`;
}

/** A known device of an account: the user's id and the start of the device token's hash (hex). */
export function deviceKey(userId: string, tokenHash: Buffer): string {
  return `${DEVICE.prefix}${userId}:${tokenHash.subarray(0, 16).toString('hex')}`;
}

/** The client's key: an IPv4 address (also when IPv4-mapped), or an IPv6 address's /64. */
export function clientKey(address: string): string {
  const bare = address.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return `${CLIENT.prefix}${mapped[1]}`;
  if (isIP(bare) !== 6) return `${CLIENT.prefix}${bare.slice(0, 100)}`;
  return `${CLIENT.prefix}${expand(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, lower-case, without leading zeros. */
function expand(address: string): string[] {
  let text = address.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => parseInt(g || '0', 16).toString(16));
}
