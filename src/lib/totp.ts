/**
 * TOTP (RFC 6238 over RFC 4226's HOTP): HMAC-SHA1, 30-second steps, 6 digits, the
 * parameters every authenticator app uses by default. node:crypto only.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { base32 } from '@scure/base';

export const STEP_SECONDS = 30;
export const DIGITS = 6;

/** A new shared secret: 20 random bytes (160 bits, RFC 4226's recommendation). */
export function newSecret(): Buffer {
  return randomBytes(20);
}

/** The secret as authenticator apps take it: base32 without padding. */
export function secretText(secret: Uint8Array): string {
  return base32.encode(secret).replace(/=+$/, '');
}

export function stepAt(ms: number): number {
  return Math.floor(ms / 1000 / STEP_SECONDS);
}

/** HOTP value of one counter (RFC 4226, dynamic truncation), zero-padded. */
export function hotp(secret: Uint8Array, counter: number, digits = DIGITS, algorithm: 'sha1' | 'sha256' | 'sha512' = 'sha1'): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, secret).update(msg).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const code = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits;
  return code.toString().padStart(digits, '0');
}

export function totpAt(secret: Uint8Array, ms: number): string {
  return hotp(secret, stepAt(ms));
}

/**
 * The time step `code` is good for, within one step either side of `nowMs` (a clock a little
 * off), and only after `lastStep` (a code is good once), or null.
 */
export function verifyTotp(secret: Uint8Array, code: string, nowMs: number, lastStep: number | null): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const now = stepAt(nowMs);
  let found: number | null = null;
  for (const step of [now - 1, now, now + 1]) {
    // Every window is computed and compared in constant time, whichever matches.
    const ok = timingSafeEqual(Buffer.from(hotp(secret, step)), Buffer.from(code));
    if (ok && found === null && (lastStep === null || step > lastStep)) found = step;
  }
  return found;
}

/** The otpauth:// URI authenticator apps read (Key Uri Format). */
export function otpauthUri(secret: Uint8Array, account: string, issuer: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  return `otpauth://totp/${label}?secret=${secretText(secret)}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=${DIGITS}&period=${STEP_SECONDS}`;
}
