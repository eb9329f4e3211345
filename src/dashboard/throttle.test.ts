import { describe, expect, it } from 'vitest';
import { ACCOUNT, CLIENT, clientKey, delaySeconds, DEVICE } from './throttle.js';

describe('clientKey', () => {
  it('keeps IPv4 addresses, unwraps IPv4-mapped IPv6, and counts IPv6 clients by their /64', () => {
    expect(clientKey('203.0.113.7')).toBe('client:203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('client:203.0.113.7');
    expect(clientKey('2001:db8:1:2::5')).toBe('client:2001:db8:1:2::/64');
    expect(clientKey('2001:0DB8:0001:0002:ffff:eeee:dddd:cccc')).toBe('client:2001:db8:1:2::/64');
    expect(clientKey('fe80::1%eth0')).toBe('client:fe80:0:0:0::/64');
    expect(clientKey('::1')).toBe('client:0:0:0:0::/64');
    expect(clientKey('2001:db8::192.0.2.1')).toBe('client:2001:db8:0:0::/64');
  });
});

describe('delaySeconds', () => {
  it('is free for the first failures, then doubles from 1 s, capped (account 5 minutes, address 15, known device 1)', () => {
    expect([1, 2, 3, 4].map((n) => delaySeconds(ACCOUNT, n))).toEqual([0, 0, 0, 0]);
    expect([5, 6, 7, 13, 14, 15, 1_000_000].map((n) => delaySeconds(ACCOUNT, n))).toEqual([1, 2, 4, 256, 300, 300, 300]);
    expect(delaySeconds(CLIENT, 19)).toBe(0);
    expect(delaySeconds(CLIENT, 20)).toBe(1);
    expect([29, 30, 1_000_000].map((n) => delaySeconds(CLIENT, n))).toEqual([512, 900, 900]);
    expect([4, 5, 10, 11, 1_000_000].map((n) => delaySeconds(DEVICE, n))).toEqual([0, 1, 32, 60, 60]);
  });
});
