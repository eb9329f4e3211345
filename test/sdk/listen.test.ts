/**
 * Following events through connection losses: `client.events.stream()` and `wallet webhooks
 * listen` / `events tail` reconnect with Last-Event-ID and miss nothing, and `listen`
 * forwards each event to a local receiver with the body and signatures of a real delivery.
 * The losses are real: a TCP proxy in front of the service cuts every connection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WalletClient, verifyWebhook, type WalletEvent } from '../../packages/sdk/src/index.js';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startProxy, type Proxy } from '../support/proxy.js';
import { killAll, terminate, waitUntil } from '../support/cli.js';
import { ensureSdkBuilt, SDK_BUILD_TIMEOUT_MS, wallet } from '../support/sdk.js';

let h: Harness;
let w: TestWallet;
let proxy: Proxy;
let home: string;
let delivered: Receiver;
let local: Receiver;

const trigger = async (event: string) => {
  const res = await h.api('POST', `/v1/wallets/${w.id}/webhooks/trigger`, { key: w.apiKey, body: { event } });
  expect(res.status).toBe(200);
  return res.body.data as { id: string; cursor: string };
};
const cliEnv = () => ({
  PATH: process.env.PATH,
  HOME: home,
  WALLET_CONFIG: path.join(home, 'c.json'),
  WALLET_BASE_URL: proxy.url,
  WALLET_API_KEY: w.apiKey,
  WALLET_ID: w.id,
});

beforeAll(ensureSdkBuilt, SDK_BUILD_TIMEOUT_MS);
beforeAll(async () => {
  h = await startHarness({ worker: true, services: { eventStreams: { heartbeatMs: 500 } } });
  w = h.wallets['devnet-eth']!;
  proxy = await startProxy(h.baseUrl);
  home = mkdtempSync(path.join(os.tmpdir(), 'wallet-listen-'));
  delivered = await startReceiver();
  local = await startReceiver();
  // Real deliveries go to `delivered`; `listen` forwards to `local`.
  expect((await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { webhookUrl: delivered.url } })).status).toBe(200);
});
afterAll(async () => {
  await killAll();
  await proxy?.close();
  await delivered?.close();
  await local?.close();
  await h?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('client.events.stream()', () => {
  it('reconnects after the connection is cut and delivers what happened meanwhile, once and in order', async () => {
    const client = new WalletClient({ baseUrl: proxy.url, apiKey: w.apiKey });
    const states: string[] = [];
    const stream = client.events.stream({ maxReconnectDelayMs: 200, onStatus: (s) => states.push(s.state) });
    const got: WalletEvent[] = [];
    const reading = (async () => {
      for await (const e of stream) got.push(e);
    })();
    await waitUntil('the stream to connect', () => states.includes('connected'), 10_000);
    const before = await trigger('deposit.processing');
    await waitUntil('the first event', () => got.length === 1, 10_000);
    proxy.cut();
    // Written while the connection is down (the next attempt may already be on its way).
    const during = [await trigger('deposit.success'), await trigger('deposit.swept.success')];
    await waitUntil('three events', () => got.length >= 3, 20_000);
    const after = await trigger('withdraw.success');
    await waitUntil('four events', () => got.length >= 4, 20_000);
    await new Promise((r) => setTimeout(r, 300));
    stream.close();
    await reading;
    expect(got.map((e) => e.id)).toEqual([before, ...during, after].map((e) => e.id));
    expect(states.filter((s) => s === 'reconnecting').length).toBeGreaterThanOrEqual(1);
    expect(stream.lastEventId).toBe(after.cursor);
  });
});

describe('wallet webhooks listen', () => {
  it('forwards each event with the exact body and signatures of its real delivery, through a cut connection', async () => {
    const listen = wallet(['webhooks', 'listen', '--forward-to', `${local.url}?from=cli`, '--json'], cliEnv());
    await waitUntil(
      'listen to be ready',
      () => listen.stderr().includes('Ready'),
      30_000,
      () => listen.describe(),
    );
    const first = await trigger('deposit.success');
    await local.waitForRequests(1, 20_000);
    proxy.cut();
    const second = await trigger('withdraw.failed');
    await local.waitForRequests(2, 30_000);
    await delivered.waitForRequests(2, 30_000);
    // The forwarded bodies are the delivered bodies, byte for byte.
    for (const [i, e] of [first, second].entries()) {
      const real = delivered.requests.find((r) => JSON.parse(r.body).data.id === (JSON.parse(local.requests[i]!.body).data.id as string))!;
      expect(real, `delivery of ${e.id}`).toBeDefined();
      expect(local.requests[i]!.body).toBe(real.body);
      const forwarded = local.requests[i]!;
      expect(forwarded.path).toBe(`${new URL(local.url).pathname}?from=cli`);
      // Verified by the SDK's verifier with the wallet's key, both schemes.
      expect(verifyWebhook({ body: forwarded.body, headers: forwarded.headers, apiKey: w.apiKey }).event).toBe(JSON.parse(real.body).event);
      for (const name of [
        'x-service-signature',
        'x-blockradar-signature',
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
        'content-type',
      ]) {
        expect(forwarded.headers[name], name).toBeTruthy();
      }
      expect(forwarded.headers['x-service-signature']).toBe(real.headers['x-service-signature']);
    }
    // One line per event: what, where it went, and the answer.
    await waitUntil('two lines', () => listen.stdout().trim().split('\n').length >= 2, 10_000);
    const lines = listen
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.event, l.id, l.forward.status])).toEqual([
      ['deposit.success', first.id, 200],
      ['withdraw.failed', second.id, 200],
    ]);
    expect(listen.stderr()).toMatch(/resuming after/);
    expect(await terminate(listen, { signal: 'SIGINT', ms: 10_000 })).toEqual({ code: 0, signal: null });
    expect(listen.stderr()).toContain(`Resume with --after ${second.cursor}`);
  });

  it('under a business key, signs with the wallet key from WALLET_SIGNING_KEY (never needed on the command line)', async () => {
    const before = local.requests.length;
    const listen = wallet(['webhooks', 'listen', '--forward-to', local.url, '--json'], {
      ...cliEnv(),
      WALLET_API_KEY: h.businessKey,
      WALLET_SIGNING_KEY: w.apiKey,
    });
    await waitUntil(
      'listen to be ready',
      () => listen.stderr().includes('Ready'),
      30_000,
      () => listen.describe(),
    );
    const e = await trigger('deposit.success');
    await local.waitForRequests(before + 1, 20_000);
    const forwarded = local.requests[before]!;
    // Keyed with the wallet's key, as the service signs the wallet's deliveries.
    expect(verifyWebhook({ body: forwarded.body, headers: forwarded.headers, apiKey: w.apiKey }).event).toBe('deposit.success');
    expect(await terminate(listen, { signal: 'SIGINT', ms: 10_000 })).toEqual({ code: 0, signal: null });
    expect(listen.stdout()).toContain(e.id);
    expect(listen.stdout() + listen.stderr()).not.toContain(w.apiKey);
  });

  it('events tail prints the events as they happen, and --after replays from a cursor', async () => {
    const start = await trigger('webhook.test');
    const tail = wallet(['events', 'tail', '--after', start.cursor, '--types', 'swap.success,swap.failed', '--json'], cliEnv());
    const e1 = await trigger('swap.success');
    await trigger('signed.success');
    const e2 = await trigger('swap.failed');
    await waitUntil(
      'two events',
      () => tail.stdout().trim().split('\n').length >= 2,
      30_000,
      () => tail.describe(),
    );
    expect(await terminate(tail, { signal: 'SIGINT', ms: 10_000 })).toEqual({ code: 0, signal: null });
    expect(
      tail
        .stdout()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual([e1.id, e2.id]);
    const text = wallet(['events', 'tail', '--after', start.cursor], cliEnv());
    await waitUntil(
      'a line',
      () => text.stdout().includes('swap.success'),
      30_000,
      () => text.describe(),
    );
    expect(await terminate(text, { signal: 'SIGINT', ms: 10_000 })).toEqual({ code: 0, signal: null });
  });
});
