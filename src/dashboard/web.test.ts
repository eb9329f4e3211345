import { describe, expect, it } from 'vitest';
import type { FastifyRequest } from 'fastify';
import { cookieIsSecure, parseCookies, safeNext } from './web.js';
import { normaliseDates } from './routes/activity.js';

const req = (remoteAddress: string, headers: Record<string, string> = {}, protocol = 'http') =>
  ({ protocol, headers, socket: { remoteAddress } }) as unknown as FastifyRequest;

describe('dashboard web helpers', () => {
  it('marks the cookie Secure except for plain HTTP over loopback', () => {
    expect(cookieIsSecure(req('127.0.0.1'))).toBe(false);
    expect(cookieIsSecure(req('::1'))).toBe(false);
    expect(cookieIsSecure(req('::ffff:127.0.0.1'))).toBe(false);
    expect(cookieIsSecure(req('10.0.0.5'))).toBe(true);
    expect(cookieIsSecure(req('::ffff:192.168.1.9'))).toBe(true);
    expect(cookieIsSecure(req('127.0.0.1', { 'x-forwarded-proto': 'https' }))).toBe(true);
    expect(cookieIsSecure(req('127.0.0.1', {}, 'https'))).toBe(true);
  });

  it('only ever sends a signed-in browser to a dashboard path', () => {
    expect(safeNext('/dashboard/developers?x=1')).toBe('/dashboard/developers?x=1');
    for (const bad of [
      'https://evil.example/',
      '//evil.example',
      '/dashboard//evil.example',
      '/v1/wallets',
      '/dashboard\\@evil',
      '/dashboard/\u20ac',
      '/dashboard/a\u0001b',
      '/dashboard/a b',
      undefined,
      42,
    ]) {
      expect(safeNext(bad)).toBe('/dashboard/wallets');
    }
  });

  it('parses cookies, ignoring malformed ones and keeping the first of a name', () => {
    expect(parseCookies('a=1; b=%E0%A4%A; a=2; c=x%20y; =z')).toEqual({ a: '1', c: 'x y' });
    expect(parseCookies(undefined)).toEqual({});
  });

  it('reads typed dates as UTC: a bare day covers the whole day', () => {
    expect(normaliseDates({ startDate: '2026-01-31', endDate: '2026-02-28' })).toEqual({
      startDate: '2026-01-31T00:00:00.000Z',
      endDate: '2026-02-28T23:59:59.999Z',
    });
    expect(normaliseDates({ startDate: '2026-01-31 10:15', endDate: '2026-01-31T10:15:30+02:00' })).toEqual({
      startDate: '2026-01-31T10:15:00Z',
      endDate: '2026-01-31T10:15:30+02:00',
    });
  });
});
