import { describe, expect, it } from 'vitest';
import { hotp, otpauthUri, secretText, stepAt, totpAt, verifyTotp } from './totp.js';

// RFC 4226 appendix D and RFC 6238 appendix B (SHA-1 seed "12345678901234567890").
const SEED = Buffer.from('12345678901234567890', 'ascii');

describe('TOTP', () => {
  it('matches RFC 4226 HOTP test values', () => {
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
    expect(expected.map((_, i) => hotp(SEED, i))).toEqual(expected);
  });

  it('matches RFC 6238 TOTP test values (SHA-1, 8 digits)', () => {
    const cases: [number, string][] = [
      [59, '94287082'],
      [1111111109, '07081804'],
      [1111111111, '14050471'],
      [1234567890, '89005924'],
      [2000000000, '69279037'],
      [20000000000, '65353130'],
    ];
    for (const [t, code] of cases) expect(hotp(SEED, Math.floor(t / 30), 8)).toBe(code);
  });

  it('accepts the code of this step or a neighbour, once, and nothing else', () => {
    const now = 1_700_000_000_000;
    const code = totpAt(SEED, now);
    const step = stepAt(now);
    expect(verifyTotp(SEED, code, now, null)).toBe(step);
    expect(verifyTotp(SEED, code, now + 30_000, null)).toBe(step); // the clock a step ahead
    expect(verifyTotp(SEED, code, now + 90_000, null)).toBeNull(); // too late
    expect(verifyTotp(SEED, code, now, step)).toBeNull(); // used already
    expect(verifyTotp(SEED, '12345', now, null)).toBeNull();
    expect(verifyTotp(SEED, ' 123456', now, null)).toBeNull();
  });

  it('writes the secret and the otpauth URI as authenticator apps read them', () => {
    expect(secretText(SEED)).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(otpauthUri(SEED, 'ops@acme.example', 'Wallet')).toBe(
      'otpauth://totp/Wallet:ops%40acme.example?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Wallet&algorithm=SHA1&digits=6&period=30',
    );
  });
});
