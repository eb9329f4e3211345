/**
 * `client.events.stream()` started "from now" whose first connection drops before any event:
 * the reconnect resumes where the service started it (its `id:` at the opening), so an event
 * written while no connection was open arrives. It reconnected without Last-Event-ID, "from
 * now" again, and lost it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WalletClient, type WalletEvent } from '../../packages/sdk/src/index.js';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';
import { startProxy, type Proxy } from '../support/proxy.js';
import { waitUntil } from '../support/cli.js';

let h: Harness;
let w: TestWallet;
let proxy: Proxy;

const trigger = async (event: string) => {
  const res = await h.api('POST', `/v1/wallets/${w.id}/webhooks/trigger`, { key: w.apiKey, body: { event } });
  expect(res.status).toBe(200);
  return res.body.data as { id: string; cursor: string };
};

beforeAll(async () => {
  h = await startHarness({ services: { eventStreams: { heartbeatMs: 500 } } });
  w = h.wallets['devnet-eth']!;
  proxy = await startProxy(h.baseUrl);
});
afterAll(async () => {
  await proxy?.close();
  await h?.stop();
});

describe('events.stream() resume before the first event', () => {
  it('delivers an event written while the first connection was down', async () => {
    // The second connection waits until the test has written an event during the outage.
    let streamFetches = 0;
    const lastEventIds: (string | null)[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const gated: typeof fetch = async (input, init) => {
      if (new URL(String(input)).pathname === '/v1/events/stream') {
        streamFetches++;
        lastEventIds.push(new Headers(init?.headers).get('last-event-id'));
        if (streamFetches === 2) await gate;
      }
      return fetch(input, init);
    };
    const client = new WalletClient({ baseUrl: proxy.url, apiKey: w.apiKey, fetch: gated });
    const states: string[] = [];
    const stream = client.events.stream({ maxReconnectDelayMs: 100, onStatus: (s) => states.push(s.state) });
    const got: WalletEvent[] = [];
    const reading = (async () => {
      for await (const e of stream) got.push(e);
    })().catch(() => undefined);
    await waitUntil('the stream to connect', () => states.includes('connected'), 10_000);
    proxy.cut();
    await waitUntil('the reconnect attempt', () => streamFetches === 2, 10_000);
    const during = await trigger('deposit.success'); // written while no connection is open
    release();
    await waitUntil('the reconnect', () => states.filter((s) => s === 'connected').length === 2, 10_000);
    const after = await trigger('withdraw.success');
    await waitUntil('the event written after the reconnect', () => got.some((e) => e.id === after.id), 10_000);
    await new Promise((r) => setTimeout(r, 500));
    stream.close();
    await reading;
    expect(got.map((e) => e.id)).toEqual([during.id, after.id]);
    expect(lastEventIds[0]).toBeNull();
    expect(lastEventIds[1]).toMatch(/^\d+\./);
  }, 60_000);
});
