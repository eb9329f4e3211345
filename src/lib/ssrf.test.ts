import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, guardedLookup, isForbiddenAddress } from './ssrf.js';

describe('isForbiddenAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    'ff02::1',
    '::ffff:10.0.0.1',
    '64:ff9b::7f00:1',
    'not-an-ip',
  ])('%s is forbidden', (ip) => expect(isForbiddenAddress(ip)).toBe(true));

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:8.8.8.8'])(
    '%s is allowed',
    (ip) => expect(isForbiddenAddress(ip)).toBe(false),
  );
});

describe('checkWebhookUrl', () => {
  it('normalises and refuses numeric IPv4 forms for mainnet', () => {
    for (const url of ['https://2130706433/', 'https://0x7f000001/', 'https://0177.1/', 'https://127.1/']) {
      expect(() => checkWebhookUrl(url, 'public'), url).toThrow(/private, loopback/);
    }
  });

  it('allows local receivers for testnet but still refuses non-HTTP schemes and credentials', () => {
    expect(checkWebhookUrl('http://127.0.0.1:3000/hooks', 'local-allowed').toString()).toBe('http://127.0.0.1:3000/hooks');
    expect(() => checkWebhookUrl('file:///etc/passwd', 'local-allowed')).toThrow(/http or https/);
    expect(() => checkWebhookUrl('https://a:b@example.com/', 'local-allowed')).toThrow(/credentials/);
  });
});

describe('guardedLookup', () => {
  const lookup = (answers: { address: string; family: number }[]) =>
    new Promise<unknown[]>((resolve) =>
      guardedLookup((_h, cb) => cb(null, answers))('h.example', { all: false }, (...args: unknown[]) => resolve(args)),
    );

  it('passes public answers through', async () => {
    expect(await lookup([{ address: '93.184.216.34', family: 4 }])).toEqual([null, '93.184.216.34', 4]);
  });

  it('fails the connection when an answer is private', async () => {
    const [err] = await lookup([{ address: '10.0.0.7', family: 4 }]);
    expect((err as Error).message).toMatch(/h\.example resolves to 10\.0\.0\.7/);
  });
});
