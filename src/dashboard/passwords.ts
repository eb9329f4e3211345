/**
 * Dashboard passwords: scrypt (memory-hard, in node:crypto, no native addon to install).
 * N = 2^15, r = 8, p = 1 costs 32 MiB and roughly 50-100 ms per check: OWASP's scrypt
 * floor, and slow enough that a stolen table is expensive to guess through. The
 * parameters are stored with each hash, so they can be raised later without a migration.
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const LOG_N = 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

function scrypt(password: string, salt: Buffer, opts: { logN: number; r: number; p: number }): Promise<Buffer> {
  const N = 2 ** opts.logN;
  // Node refuses when 128 * N * r reaches maxmem (32 MiB by default): leave headroom.
  const options: ScryptOptions = { N, r: opts.r, p: opts.p, maxmem: 256 * N * opts.r };
  return new Promise((resolve, reject) =>
    scryptCb(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await scrypt(password, salt, { logN: LOG_N, r: R, p: P });
  return ['scrypt', LOG_N, R, P, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Constant-time check; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [logN, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![logN, r, p].every((v) => Number.isInteger(v) && v > 0) || logN > 20 || r > 32 || p > 16) return false;
  const salt = Buffer.from(parts[4]!, 'base64');
  const expected = Buffer.from(parts[5]!, 'base64');
  if (expected.length !== KEY_LENGTH) return false;
  const actual = await scrypt(password, salt, { logN, r, p });
  return timingSafeEqual(actual, expected);
}

/**
 * A hash of a random password, checked when the email is unknown so a wrong email costs
 * the same time as a wrong password (no account discovery by timing).
 */
let decoy: Promise<string> | null = null;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 1024;
