import { describe, expect, it } from 'vitest';
import { SessionLimiter, clientOf } from './limit.js';

describe('clientOf', () => {
  it('keeps IPv4 addresses, IPv4-mapped ones unwrapped', () => {
    expect(clientOf('203.0.113.7')).toBe('203.0.113.7');
    expect(clientOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientOf('::FFFF:203.0.113.7')).toBe('203.0.113.7');
  });

  it('groups IPv6 addresses by their /64, however they are spelt', () => {
    const a = clientOf('2001:db8:85a3:1:aaaa:bbbb:cccc:dddd');
    expect(a).toBe('2001:db8:85a3:1::/64');
    expect(clientOf('2001:0db8:85a3:0001::1')).toBe(a);
    expect(clientOf('2001:DB8:85A3:1:ffff::')).toBe(a);
    expect(clientOf('2001:db8:85a3:2::1')).not.toBe(a);
    expect(clientOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientOf('::1')).toBe('0:0:0:0::/64');
    expect(clientOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('passes anything else through', () => {
    expect(clientOf('unknown')).toBe('unknown');
  });
});

describe('SessionLimiter', () => {
  it('counts a window per client and opens a new one when it ends', () => {
    let t = 0;
    const limiter = new SessionLimiter(2, 1000, 10, () => t);
    const sixtyFour = ['2001:db8:1:1::1', '2001:db8:1:1::2', '2001:db8:1:1:ffff::9'].map(clientOf);
    expect(sixtyFour.map((c) => limiter.take(c))).toEqual([true, true, false]);
    expect(limiter.take(clientOf('2001:db8:1:2::1'))).toBe(true);
    t = 1000;
    expect(limiter.take(sixtyFour[0]!)).toBe(true);
  });
});
