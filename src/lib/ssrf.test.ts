import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isForbiddenAddress, WebhookTargetPolicy, type LookupAll } from './ssrf.js';

/** A resolver answering from a table: no DNS query leaves the process. */
function table(answers: Record<string, string[]>): LookupAll {
  return (host, callback) => {
    const found = answers[host];
    if (!found) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
    return callback(
      null,
      found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
}

const forbidden = [
  '0.0.0.0',
  '0.1.2.3',
  '10.0.0.1',
  '100.64.0.1',
  '100.127.255.254',
  '127.0.0.1',
  '127.255.255.255',
  '169.254.169.254',
  '172.16.0.1',
  '172.31.255.255',
  '192.0.0.192',
  '192.0.2.1',
  '192.88.99.1',
  '192.168.1.1',
  '198.18.0.1',
  '198.51.100.7',
  '203.0.113.9',
  '224.0.0.1',
  '239.255.255.250',
  '240.0.0.1',
  '255.255.255.255',
  '::',
  '::1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:169.254.169.254',
  '::ffff:10.0.0.1',
  '::127.0.0.1', // IPv4-compatible
  '::ffff:0:8.8.8.8', // IPv4-translated
  '64:ff9b::808:808', // NAT64 well-known prefix
  '64:ff9b::10.0.0.1',
  '64:ff9b:1::1', // NAT64 local-use
  '2002:7f00:1::1', // 6to4 of 127.0.0.1
  '2002:0808:0808::1', // 6to4 of a public address: still refused
  '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
  '2001:db8::1',
  '3fff::1',
  '100::1',
  'fc00::1',
  'fd00:ec2::254',
  'fe80::1',
  'febf::1',
  'fec0::1',
  'ff02::1',
  '5f00::1',
  'not-an-address',
  '',
];

describe('isForbiddenAddress', () => {
  const allowed = [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '100.128.0.1',
    '172.32.0.1',
    '::ffff:8.8.8.8',
    '2606:4700:4700::1111',
    '2a00:1450::1',
  ];
  for (const address of forbidden) it(`refuses ${address || '(empty)'}`, () => expect(isForbiddenAddress(address)).toBe(true));
  for (const address of allowed) it(`allows ${address}`, () => expect(isForbiddenAddress(address)).toBe(false));
});

describe('WebhookTargetPolicy at save time', () => {
  const policy = new WebhookTargetPolicy({
    resolveAll: table({
      'public.example.com': ['93.184.216.34'],
      'inside.example.com': ['10.0.0.5'],
      'half.example.com': ['8.8.8.8', '::1'],
    }),
  });
  const refused: [string, RegExp][] = [
    ['http://169.254.169.254/latest/meta-data/', /special-purpose/],
    ['http://10.0.0.1/', /special-purpose/],
    ['http://[::1]/', /special-purpose/],
    ['http://0.0.0.0:5432/', /special-purpose/],
    ['http://2130706433/', /special-purpose/], // numeric IPv4 forms, normalised by the URL parser
    ['https://0x7f000001/', /special-purpose/],
    ['https://0177.1/', /special-purpose/],
    ['https://127.1/', /special-purpose/],
    ['http://[64:ff9b::a00:1]/', /special-purpose/],
    ['http://[2002:a00:1::]/', /special-purpose/],
    ['http://[2001::1]/', /special-purpose/],
    ['https://localhost./', /dot/],
    ['https://hooks.example.com./', /dot/],
    ['http://localhost:3000/', /public host/],
    ['http://db/', /public host/],
    ['http://printer.local/', /public host/],
    ['http://metadata.google.internal/', /public host/],
    ['http://inside.example.com/', /special-purpose/],
    ['http://half.example.com/', /special-purpose/],
    ['ftp://public.example.com/', /http or https/],
    ['file:///etc/passwd', /http or https/],
    ['http://u:p@public.example.com/', /credentials/],
  ];
  for (const [url, message] of refused) {
    it(`refuses ${url}`, async () => {
      await expect(policy.check(url, 'testnet')).rejects.toThrow(message);
    });
  }

  it('accepts public names and addresses, and names that do not resolve yet', async () => {
    expect((await policy.check('http://public.example.com/x', 'testnet')).host).toBe('public.example.com');
    expect((await policy.check('https://93.184.216.34/x', 'mainnet')).host).toBe('93.184.216.34');
    expect((await policy.check('https://not-yet.example.com/x', 'mainnet')).host).toBe('not-yet.example.com');
  });

  it('mainnet needs HTTPS whatever the setting', async () => {
    await expect(policy.check('http://public.example.com/', 'mainnet')).rejects.toThrow(/HTTPS/);
    await expect(new WebhookTargetPolicy({ allowPrivate: true }).check('http://10.0.0.1/', 'mainnet')).rejects.toThrow(/HTTPS/);
  });

  it('with the operator setting on, private targets are accepted (never a trailing dot)', async () => {
    const open = new WebhookTargetPolicy({ allowPrivate: true, resolveAll: table({}) });
    for (const url of ['http://169.254.169.254/x', 'http://10.0.0.1/', 'http://[::1]/', 'http://0.0.0.0:5432/', 'http://localhost:3000/']) {
      expect((await open.check(url, 'testnet')).href).toBe(new URL(url).href);
    }
    await expect(open.check('https://localhost./', 'testnet')).rejects.toThrow(/dot/);
  });

  it('a resolver that never answers leaves the check to connect time', async () => {
    const slow = new WebhookTargetPolicy({ resolveAll: () => {}, saveResolveTimeoutMs: 20 });
    expect((await slow.check('https://slow.example.com/', 'mainnet')).host).toBe('slow.example.com');
  });
});

describe('WebhookTargetPolicy at connect time', () => {
  const answers: Record<string, string[]> = { 'rebind.example.com': ['93.184.216.34'] };
  const policy = new WebhookTargetPolicy({ resolveAll: table(answers) });
  const lookup = (host: string, all: boolean) =>
    new Promise<{ err: Error | null; result: unknown }>((resolve) =>
      policy.lookup(host, { all }, (err, ...result) => resolve({ err: err as Error | null, result })),
    );

  it('hands the checked addresses to the socket, and refuses once the name resolves privately', async () => {
    expect(await lookup('rebind.example.com', false)).toEqual({ err: null, result: ['93.184.216.34', 4] });
    expect((await lookup('rebind.example.com', true)).result).toEqual([[{ address: '93.184.216.34', family: 4 }]]);
    answers['rebind.example.com'] = ['93.184.216.34', '127.0.0.1'];
    const refused = await lookup('rebind.example.com', true);
    expect(refused.err?.name).toBe('ForbiddenTargetError');
    // The internal address is not shown to the tenant.
    expect(refused.err?.message).toBe(
      'refused: rebind.example.com resolves to a private, loopback, link-local or other special-purpose address',
    );
  });

  it('refuses a name answering any special-purpose address, without connecting', async () => {
    for (const address of forbidden.filter(Boolean)) {
      answers['any.example.com'] = [address];
      expect((await lookup('any.example.com', true)).err?.name, address).toBe('ForbiddenTargetError');
    }
  });

  it('refuses every special-purpose IP literal before connecting', () => {
    for (const address of forbidden.filter((a) => isIP(a))) {
      const host = isIP(address) === 6 ? `[${address}]` : address;
      expect(policy.refusal(new URL(`http://${host}:8080/x`), 'testnet'), address).toMatch(/^refused: .* is a private/);
    }
  });

  it('judges IP literals and names before any connection', () => {
    expect(policy.refusal(new URL('http://169.254.169.254/'), 'testnet')).toBe(
      'refused: 169.254.169.254 is a private, loopback, link-local or other special-purpose address',
    );
    expect(policy.refusal(new URL('http://[::ffff:7f00:1]/'), 'testnet')).toMatch(/^refused: ::ffff:7f00:1 is a private/);
    expect(policy.refusal(new URL('https://localhost./'), 'testnet')).toBe('refused: the URL must not end the host name with a dot');
    expect(policy.refusal(new URL('http://public.example.com/'), 'mainnet')).toBe('refused: the URL must use HTTPS for a mainnet wallet');
    expect(policy.refusal(new URL('https://public.example.com/'), 'mainnet')).toBeNull();
  });
});
