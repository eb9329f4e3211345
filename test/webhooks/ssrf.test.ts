/**
 * Webhook targets (issue 11, item 8). With WEBHOOK_ALLOW_PRIVATE_TARGETS off, no wallet, on
 * any network, may point its webhooks at a private, loopback, link-local or other
 * special-purpose address: refused when the URL is saved (API and dashboard) and again when
 * the connection is made (DNS rebinding, URLs saved earlier), before any byte is sent.
 * Mainnet stays HTTPS only. With the setting on (the devnet default) such targets work.
 *
 * No traffic leaves loopback: names resolve through a table handed to the harness, and
 * every connect-time answer is a loopback address (where a receiver would notice a leak).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { attemptTimes, eventually } from '../support/fixtures.js';
import { createDashboardUser, DashClient } from '../dashboard/support.js';

type Answer = { address: string; family: number }[];
const dns = new Map<string, Answer>();
const resolveAll = (host: string, callback: (err: NodeJS.ErrnoException | null, a: Answer) => void) => {
  const answer = dns.get(host);
  if (answer) callback(null, answer);
  else callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
};
const v4 = (address: string) => [{ address, family: 4 }];

/** The issue's URLs and the other special-purpose forms, each refused when private targets are off. */
const FORBIDDEN: [string, RegExp][] = [
  ['http://169.254.169.254/latest/meta-data/', /special-purpose/],
  ['http://10.0.0.1/', /special-purpose/],
  ['http://[::1]/', /special-purpose/],
  ['http://0.0.0.0:5432/', /special-purpose/],
  ['http://127.0.0.1:8080/x', /special-purpose/],
  ['http://2130706433/x', /special-purpose/], // decimal 127.0.0.1
  ['http://0x7f000001/x', /special-purpose/], // hex
  ['http://0177.0.0.1/x', /special-purpose/], // octal
  ['http://192.168.1.10/x', /special-purpose/],
  ['http://172.20.0.5/x', /special-purpose/],
  ['http://100.64.0.1/x', /special-purpose/], // carrier-grade NAT
  ['http://224.0.0.251/x', /special-purpose/], // multicast
  ['http://240.0.0.1/x', /special-purpose/], // reserved
  ['http://[::ffff:127.0.0.1]/x', /special-purpose/], // IPv4-mapped
  ['http://[::ffff:a9fe:a9fe]/x', /special-purpose/], // mapped metadata, hex form
  ['http://[::7f00:1]/x', /special-purpose/], // IPv4-compatible
  ['http://[fd00:ec2::254]/x', /special-purpose/], // unique local (metadata)
  ['http://[fe80::1]/x', /special-purpose/], // link-local
  ['http://[64:ff9b::a9fe:a9fe]/x', /special-purpose/], // NAT64
  ['http://[64:ff9b:1::a00:1]/x', /special-purpose/], // NAT64 local-use
  ['http://[2002:a9fe:a9fe::1]/x', /special-purpose/], // 6to4
  ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x', /special-purpose/], // Teredo
  ['https://localhost./x', /dot/],
  ['https://hooks.example.com./x', /dot/],
  ['http://localhost:3000/x', /public host/],
  ['http://intranet/x', /public host/],
  ['http://metadata.google.internal/x', /public host/],
  ['http://inside.example.com/x', /special-purpose/], // resolves to 10.1.2.3 now
];

let h: Harness;
let receiver: Receiver;
let port: string;

beforeAll(async () => {
  dns.set('inside.example.com', v4('10.1.2.3'));
  dns.set('hooks.example.com', v4('93.184.216.34'));
  h = await startHarness({
    specs: [
      { ...DEVNET_CHAINS[0]!, slug: 'devnet-main', name: 'Mainnet-like devnet', chainId: 31339, network: 'mainnet' },
      DEVNET_CHAINS[1]!,
    ],
    worker: true,
    allowPrivateWebhookTargets: false,
    sender: { resolveAll },
  });
  receiver = await startReceiver();
  port = new URL(receiver.url).port;
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
});

const wallet = (slug: string) => h.wallets[slug]!;
const patchUrl = (url: string, slug: string) =>
  h.api('PATCH', `/v1/wallets/${wallet(slug).id}`, { key: wallet(slug).apiKey, body: { webhookUrl: url } });
const savedUrl = async (slug: string) =>
  (await h.api('GET', `/v1/wallets/${wallet(slug).id}`, { key: wallet(slug).apiKey })).body.data.webhookUrl as string | null;

/** Sends a test event and returns its first attempt once recorded. */
async function firstAttempt(slug: string) {
  const sent = await h.api('POST', `/v1/wallets/${wallet(slug).id}/webhooks/test`, { key: wallet(slug).apiKey });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  const [attempt] = await eventually(
    () => attemptTimes(h, sent.body.data.id),
    (a) => a.length === 1 && a[0]!.finished_at !== null,
  );
  return attempt!;
}

describe('saving a webhook URL with private targets off', () => {
  for (const slug of ['devnet-bsc', 'devnet-main']) {
    for (const [url, message] of FORBIDDEN) {
      // Mainnet refuses plain http first; the same targets over https are what it is about.
      const target = slug === 'devnet-main' ? url.replace(/^http:/, 'https:') : url;
      it(`${slug} (${slug === 'devnet-bsc' ? 'testnet' : 'mainnet'}) refuses ${target}`, async () => {
        const res = await patchUrl(target, slug);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('VALIDATION_ERROR');
        expect(res.body.message).toMatch(message);
        expect(res.body.details[0].field).toBe('webhookUrl');
      });
    }
  }

  it('nothing was saved by the refused attempts', async () => {
    expect(await savedUrl('devnet-bsc')).toBeNull();
    expect(await savedUrl('devnet-main')).toBeNull();
  });

  it('the dashboard developers page applies the same rule', async () => {
    await createDashboardUser(h, h.businessId, 'owner@ssrf.example', 'a long dashboard password');
    const c = new DashClient(h.baseUrl);
    expect((await c.login('owner@ssrf.example', 'a long dashboard password')).status).toBe(303);
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'https://localhost./x', 'http://[64:ff9b::a00:1]/']) {
      const res = await c.submit('/dashboard/developers', `/dashboard/developers/${wallet('devnet-bsc').id}/webhook`, { webhookUrl: url });
      expect(res.status, url).toBe(400);
      expect(res.text).toMatch(/special-purpose|dot/);
    }
    expect(await savedUrl('devnet-bsc')).toBeNull();
  });

  it('an empty string is not a URL', async () => {
    expect((await patchUrl('', 'devnet-bsc')).status).toBe(400);
  });

  it('accepts public targets; mainnet only over HTTPS', async () => {
    expect((await patchUrl('http://hooks.example.com/wallet', 'devnet-main')).body.message).toMatch(/HTTPS/);
    expect((await patchUrl('https://hooks.example.com/wallet', 'devnet-main')).status).toBe(200);
    expect((await patchUrl('http://hooks.example.com/wallet', 'devnet-bsc')).status).toBe(200);
    // Not resolvable yet: accepted, and checked at every connection.
    expect((await patchUrl('https://soon.example.com/wallet', 'devnet-bsc')).status).toBe(200);
  });
});

describe('test events on a mainnet wallet', () => {
  it('only webhook.test is triggered: a signed test deposit would reach a production receiver', async () => {
    const w = h.wallets['devnet-main']!;
    const before = (await sql<{ n: string }>`SELECT count(*)::text AS n FROM events WHERE wallet_id = ${w.id}`.execute(h.database.db))
      .rows[0]!.n;
    const money = await h.api('POST', `/v1/wallets/${w.id}/webhooks/trigger`, { key: w.apiKey, body: { event: 'deposit.success' } });
    expect([money.status, money.body.error], JSON.stringify(money.body)).toEqual([422, 'NOT_SUPPORTED']);
    expect(money.body.details).toEqual([{ field: 'event', message: 'only webhook.test on a mainnet wallet' }]);
    const after = (await sql<{ n: string }>`SELECT count(*)::text AS n FROM events WHERE wallet_id = ${w.id}`.execute(h.database.db))
      .rows[0]!.n;
    expect(after).toBe(before);
    const harmless = await h.api('POST', `/v1/wallets/${w.id}/webhooks/trigger`, { key: w.apiKey, body: { event: 'webhook.test' } });
    expect(harmless.status, JSON.stringify(harmless.body)).toBe(200);
    // A testnet wallet still takes any type.
    const bsc = h.wallets['devnet-bsc']!;
    const test = await h.api('POST', `/v1/wallets/${bsc.id}/webhooks/trigger`, { key: bsc.apiKey, body: { event: 'deposit.success' } });
    expect(test.status, JSON.stringify(test.body)).toBe(200);
  });
});

describe('connect-time checks with private targets off', () => {
  it('DNS rebinding: a name public when saved and loopback when connecting is refused before any byte is sent', async () => {
    dns.set('rebind.example.com', v4('93.184.216.34'));
    expect((await patchUrl(`http://rebind.example.com:${port}/hooks`, 'devnet-bsc')).status).toBe(200);
    dns.set('rebind.example.com', v4('127.0.0.1'));
    const attempt = await firstAttempt('devnet-bsc');
    expect(attempt.status_code).toBeNull();
    expect(attempt.error).toBe('refused: rebind.example.com resolves to a private, loopback, link-local or other special-purpose address');
  });

  it('refuses when any of several answers is private', async () => {
    dns.set('mixed.example.com', [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
      { address: '169.254.169.254', family: 4 },
    ]);
    await sql`UPDATE wallets SET webhook_url = ${`http://mixed.example.com:${port}/hooks`} WHERE id = ${wallet('devnet-bsc').id}`.execute(
      h.database.db,
    );
    expect((await firstAttempt('devnet-bsc')).error).toMatch(/^refused: mixed\.example\.com resolves to a private/);
  });

  // Targets whose every address is loopback, so that a failing guard would only reach the
  // receiver here (the other special-purpose addresses are refused by the same code, proven
  // without any connection in src/lib/ssrf.test.ts).
  const loopbackForms = () => [
    `http://127.0.0.1:${port}/hooks`,
    `http://[::1]:${port}/hooks`,
    `http://0.0.0.0:${port}/hooks`,
    `http://2130706433:${port}/hooks`,
    `http://0x7f000001:${port}/hooks`,
    `http://[::ffff:127.0.0.1]:${port}/hooks`,
    `http://localhost:${port}/hooks`,
    `https://localhost.:${port}/hooks`,
    `http://intranet:${port}/hooks`,
    `http://inside.example.com:${port}/hooks`,
  ];
  it('URLs saved earlier (before this rule, or while private targets were allowed) are refused at connect time', async () => {
    dns.set('localhost', v4('127.0.0.1'));
    dns.set('intranet', v4('127.0.0.1'));
    dns.set('inside.example.com', v4('127.0.0.1'));
    for (const url of loopbackForms()) {
      await sql`UPDATE wallets SET webhook_url = ${url} WHERE id = ${wallet('devnet-bsc').id}`.execute(h.database.db);
      const attempt = await firstAttempt('devnet-bsc');
      expect(attempt.status_code, url).toBeNull();
      expect(attempt.error, url).toMatch(/^refused: .*(special-purpose|dot|public host)/);
    }
  });

  it('the loopback receiver was never contacted', () => {
    expect(receiver.requests).toEqual([]);
  });
});

describe('with private targets allowed (the devnet default)', () => {
  let open: Harness;
  beforeAll(async () => {
    open = await startHarness({ specs: [DEVNET_CHAINS[1]!], worker: true, sender: { resolveAll } });
  });
  afterAll(async () => {
    await open?.stop();
  });

  it('the same URLs are accepted (except a trailing dot), and a name resolving to loopback is delivered to', async () => {
    const w = open.wallets['devnet-bsc']!;
    for (const [url] of FORBIDDEN) {
      const res = await open.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { webhookUrl: url } });
      expect(res.status, url).toBe(/\.\//.test(url) ? 400 : 200);
    }
    dns.set('receiver.example.com', v4('127.0.0.1'));
    const url = `http://receiver.example.com:${port}/hooks`;
    expect((await open.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { webhookUrl: url } })).status).toBe(200);
    const sent = await open.api('POST', `/v1/wallets/${w.id}/webhooks/test`, { key: w.apiKey });
    await receiver.waitForRequests(1);
    expect(receiver.requests[0]!.headers['webhook-id']).toBe(sent.body.data.id);
  });
});
