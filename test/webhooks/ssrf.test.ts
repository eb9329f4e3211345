/**
 * Mainnet wallets deliver only over HTTPS to public addresses. Saved URLs are checked, and
 * so is every address a connection would use (DNS rebinding). Testnet wallets may use
 * local receivers. No traffic leaves loopback: "public" DNS answers come from an injected
 * resolver and are refused before any connection is made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { attemptTimes, deliveriesOf, deliveryState, eventually, recordDeposit } from '../support/fixtures.js';

const dns = new Map<string, { address: string; family: number }[]>();
let h: Harness;
let receiver: Receiver;

beforeAll(async () => {
  h = await startHarness({
    specs: [
      { ...DEVNET_CHAINS[0]!, slug: 'devnet-main', name: 'Mainnet-like devnet', chainId: 31339, network: 'mainnet' },
      DEVNET_CHAINS[1]!,
    ],
    worker: true,
    sender: {
      resolveAll: (host, callback) => {
        const answer = dns.get(host);
        if (answer) callback(null, answer);
        else callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
      },
    },
  });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
});

const main = () => h.wallets['devnet-main']!;
const patchUrl = (url: string, slug = 'devnet-main') =>
  h.api('PATCH', `/v1/wallets/${h.wallets[slug]!.id}`, { key: h.wallets[slug]!.apiKey, body: { webhookUrl: url } });

describe('saving a mainnet webhook URL', () => {
  const forbidden: [string, RegExp][] = [
    ['http://hooks.example.com/x', /HTTPS/],
    ['https://127.0.0.1/x', /private, loopback/],
    ['https://2130706433/x', /private, loopback/], // decimal form of 127.0.0.1
    ['https://0x7f000001/x', /private, loopback/], // hex form
    ['https://0177.0.0.1/x', /private, loopback/], // octal form
    ['https://[::1]/x', /private, loopback/],
    ['https://[::ffff:127.0.0.1]/x', /private, loopback/],
    ['https://169.254.169.254/latest/meta-data/', /private, loopback/], // cloud metadata
    ['https://10.1.2.3/x', /private, loopback/],
    ['https://192.168.1.10/x', /private, loopback/],
    ['https://172.20.0.5/x', /private, loopback/],
    ['https://100.64.0.1/x', /private, loopback/],
    ['https://[fe80::1]/x', /private, loopback/],
    ['https://[fd00:ec2::254]/x', /private, loopback/],
    ['https://0.0.0.0/x', /private, loopback/],
    ['https://localhost/x', /public host/],
    ['https://intranet/x', /public host/],
  ];
  for (const [url, message] of forbidden) {
    it(`refuses ${url}`, async () => {
      const res = await patchUrl(url);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
      expect(res.body.message).toMatch(message);
      expect(res.body.details[0].field).toBe('webhookUrl');
    });
  }

  it('nothing was saved by the refused attempts', async () => {
    expect((await h.api('GET', `/v1/wallets/${main().id}`, { key: main().apiKey })).body.data.webhookUrl).toBeNull();
  });

  it('accepts a public HTTPS URL', async () => {
    const res = await patchUrl('https://hooks.example.com/wallet');
    expect(res.status).toBe(200);
    expect(res.body.data.webhookUrl).toBe('https://hooks.example.com/wallet');
  });

  it('a testnet wallet may use a local receiver', async () => {
    const res = await patchUrl(receiver.url, 'devnet-bsc');
    expect(res.status).toBe(200);
  });
});

describe('connect-time checks (DNS rebinding)', () => {
  async function attemptTo(host: string, answer: { address: string; family: number }[]) {
    dns.set(host, answer);
    expect((await patchUrl(`https://${host}/hook`)).status).toBe(200);
    const tx = await recordDeposit(h, 'devnet-main');
    const [id] = await deliveriesOf(h, tx.id);
    const [attempt] = await eventually(
      () => attemptTimes(h, id!),
      (a) => a.length === 1 && a[0]!.finished_at !== null,
    );
    expect((await deliveryState(h, id!)).status).toBe('pending');
    return attempt!;
  }

  it('refuses a host that resolves to loopback when the connection is made', async () => {
    const attempt = await attemptTo('rebind.example.com', [{ address: '127.0.0.1', family: 4 }]);
    expect(attempt.status_code).toBeNull();
    expect(attempt.error).toBe('refused: rebind.example.com resolves to 127.0.0.1, a private, loopback, link-local or metadata address');
  });

  it('refuses when any of several answers is private', async () => {
    const attempt = await attemptTo('mixed.example.com', [
      { address: '93.184.216.34', family: 4 },
      { address: '169.254.169.254', family: 4 },
    ]);
    expect(attempt.error).toMatch(/mixed\.example\.com resolves to 169\.254\.169\.254/);
  });

  it('refuses IPv4-mapped IPv6 loopback answers', async () => {
    const attempt = await attemptTo('mapped.example.com', [{ address: '::ffff:127.0.0.1', family: 6 }]);
    expect(attempt.error).toMatch(/resolves to ::ffff:127\.0\.0\.1/);
  });

  it('the receiver on loopback was never contacted by a mainnet delivery', () => {
    expect(receiver.requests.filter((r) => r.headers['webhook-id'] !== undefined && r.body.includes('devnet-main'))).toEqual([]);
  });
});
