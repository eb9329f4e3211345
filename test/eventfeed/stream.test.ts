/**
 * GET /v1/events/stream (Server-Sent Events): live events, resumed with Last-Event-ID
 * exactly once, heartbeats, tenancy, a revoked key, the per-key limit, a slow reader
 * disconnected with a reason while nothing else waits for it, and a clean shutdown.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';
import { openStream, type SseConnection } from '../support/sse.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { waitUntil } from '../support/cli.js';

let h: Harness;
let a: TestWallet;
let b: TestWallet;
let receiver: Receiver;
const open: SseConnection[] = [];

const SETTINGS = { heartbeatMs: 300, bufferBytes: 64 * 1024, slowReaderMs: 2_000, maxStreamsPerBusiness: 20 };

const trigger = async (w: TestWallet, event = 'deposit.success') => {
  const res = await h.api('POST', `/v1/wallets/${w.id}/webhooks/trigger`, { key: w.apiKey, body: { event } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { id: string; cursor: string };
};
const stream = async (key: string, opts: { query?: string; lastEventId?: string } = {}) => {
  const conn = await openStream(h.baseUrl, key, opts);
  open.push(conn);
  return conn;
};
const ids = (conn: SseConnection) => conn.events().map((e) => e.id);

beforeAll(async () => {
  h = await startHarness({ worker: true, services: { eventStreams: SETTINGS } });
  [a, b] = [h.wallets['devnet-eth']!, h.wallets['devnet-bsc']!];
  receiver = await startReceiver();
});
afterAll(async () => {
  for (const c of open) c.close();
  await receiver?.close();
  await h?.stop();
});

describe('the event stream', () => {
  it('sends events as they happen, as SSE messages with the cursor as id', async () => {
    const conn = await stream(a.apiKey);
    expect(conn.status).toBe(200);
    expect(conn.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(conn.headers['cache-control']).toBe('no-store');
    expect(conn.headers['x-request-id']).toBeTruthy();
    const e = await trigger(a, 'withdraw.success');
    await conn.waitForEvents(1);
    const [message] = conn.messages;
    expect(message).toMatchObject({ event: 'withdraw.success', lastEventId: e.cursor });
    expect(conn.events()[0]).toMatchObject({ id: e.id, cursor: e.cursor, event: 'withdraw.success', walletId: a.id, test: true });
    conn.close();
  });

  it('delivers what was written while disconnected on resume, exactly once and in order', async () => {
    const first = await stream(a.apiKey);
    const e1 = await trigger(a);
    await first.waitForEvents(1);
    expect(ids(first)).toEqual([e1.id]);
    first.close();
    await first.waitForEnd();
    // Written while nobody listens.
    const e2 = await trigger(a, 'deposit.processing');
    const e3 = await trigger(a, 'deposit.failed');
    const resumed = await stream(a.apiKey, { lastEventId: first.messages.at(-1)!.lastEventId });
    await resumed.waitForEvents(2);
    const e4 = await trigger(a, 'withdraw.success');
    await resumed.waitForEvents(3);
    // Nothing more turns up (a duplicate would come right behind).
    await new Promise((r) => setTimeout(r, 500));
    expect(ids(resumed)).toEqual([e2.id, e3.id, e4.id]);
    // `after` in the query does the same; Last-Event-ID wins over it.
    const byQuery = await stream(a.apiKey, { query: `after=${e3.cursor}` });
    await byQuery.waitForEvents(1);
    expect(ids(byQuery)).toEqual([e4.id]);
    const both = await stream(a.apiKey, { query: `after=${e3.cursor}`, lastEventId: e2.cursor });
    await both.waitForEvents(2);
    expect(ids(both)).toEqual([e3.id, e4.id]);
    for (const c of [resumed, byQuery, both]) c.close();
  });

  it('sends a heartbeat comment while nothing happens', async () => {
    const conn = await stream(a.apiKey, { query: 'types=swap.failed' });
    await waitUntil('two heartbeats', () => conn.comments.filter((c) => c === 'keep-alive').length >= 2, 10_000);
    expect(conn.events()).toEqual([]);
    conn.close();
  });

  it('filters by types', async () => {
    const conn = await stream(a.apiKey, { query: 'types=deposit.swept.failed' });
    await trigger(a, 'deposit.success');
    const wanted = await trigger(a, 'deposit.swept.failed');
    await conn.waitForEvents(1);
    expect(ids(conn)).toEqual([wanted.id]);
    conn.close();
  });

  it("shows a wallet key only its wallet's events, and a business key all its wallets'", async () => {
    const ofA = await stream(a.apiKey);
    const ofB = await stream(b.apiKey);
    const ofBusiness = await stream(h.businessKey);
    const biz = await h.services.businesses.create('Someone Else');
    const theirs = await h.services.wallets.createForBusiness(biz.business.id, { blockchain: 'devnet-eth', network: 'testnet', name: 'x' });
    const ofThem = await stream(biz.apiKey);
    const ofTheirWallet = await stream(theirs.apiKey);
    const ea = await trigger(a);
    const eb = await trigger(b);
    await ofBusiness.waitForEvents(2);
    await ofA.waitForEvents(1);
    await ofB.waitForEvents(1);
    await new Promise((r) => setTimeout(r, 500));
    expect(ids(ofA)).toEqual([ea.id]);
    expect(ids(ofB)).toEqual([eb.id]);
    expect(ids(ofBusiness)).toEqual([ea.id, eb.id]);
    expect(ofThem.events()).toEqual([]);
    expect(ofTheirWallet.events()).toEqual([]);
    // Naming a foreign wallet is a 404, before any stream starts.
    const foreign = await stream(theirs.apiKey, { query: `walletId=${a.id}` });
    expect(foreign.status).toBe(404);
    for (const c of [ofA, ofB, ofBusiness, ofThem, ofTheirWallet]) c.close();
  });

  it('ends with key_revoked when the key is regenerated', async () => {
    const conn = await stream(b.apiKey);
    const res = await h.api('POST', `/v1/wallets/${b.id}/api-key/regenerate`, { key: h.businessKey });
    expect(res.status).toBe(200);
    b = { ...b, apiKey: res.body.data.apiKey };
    await conn.waitForEnd(10_000);
    expect(conn.closedWith()).toEqual(['key_revoked']);
  });

  it.each([
    [{ lastEventId: 'garbage' }, 'Last-Event-ID'],
    [{ query: 'after=1.2' }, 'after'],
    [{ query: 'types=nope' }, 'types'],
    [{ query: 'limit=5' }, 'limit'],
    [{ lastEventId: 'x'.repeat(101) }, 'last-event-id'],
  ])('refuses %j with a 400 before the stream starts', async (opts, field) => {
    const conn = await stream(a.apiKey, opts);
    expect(conn.status).toBe(400);
    const body = JSON.parse(conn.body);
    expect(body.error).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(body.details)).toContain(field);
  });

  it('keeps at most 5 streams open per key, with 429 and Retry-After beyond', async () => {
    await waitUntil('earlier streams to close', () => h.services.eventFeed.openStreams === 0, 10_000);
    const five = await Promise.all([1, 2, 3, 4, 5].map(() => stream(a.apiKey)));
    expect(five.map((c) => c.status)).toEqual([200, 200, 200, 200, 200]);
    const sixth = await stream(a.apiKey);
    expect(sixth.status).toBe(429);
    expect(JSON.parse(sixth.body).error).toBe('STREAM_LIMIT_REACHED');
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(0);
    // Another key is not affected; closing one frees a slot.
    const otherKey = await stream(b.apiKey);
    expect(otherKey.status).toBe(200);
    five[0]!.close();
    await waitUntil('the slot to be freed', () => h.services.eventFeed.openStreams === 5, 10_000);
    expect((await stream(a.apiKey)).status).toBe(200);
    for (const c of open) c.close();
    await waitUntil('every stream to close', () => h.services.eventFeed.openStreams === 0, 10_000);
  });
});

describe('per business', () => {
  it('keeps at most 20 streams open per business whatever its keys (keys are free to make)', async () => {
    await waitUntil('earlier streams to close', () => h.services.eventFeed.openStreams === 0, 10_000);
    const operator = { keyId: 'cli:operator', businessId: h.businessId, walletId: null, operator: true };
    const minted = await Promise.all(
      [1, 2, 3].map(async (i) => (await h.services.apiKeys.createBusinessKey(operator, { name: `streams ${i}` })).apiKey),
    );
    const keys = [a.apiKey, b.apiKey, h.businessKey, ...minted]; // b's key was regenerated above
    expect(keys.length * 5).toBeGreaterThan(20);
    // Five a key, until the business holds 20.
    const plan = Array.from({ length: 20 }, (_, i) => keys[Math.floor(i / 5)]!);
    const twenty = await Promise.all(plan.map((k) => stream(k)));
    expect(
      twenty.map((c) => c.status),
      twenty.map((c) => c.body).join(' '),
    ).toEqual(Array(20).fill(200));
    const spare = keys[4]!; // a key with no stream of its own yet
    const refused = await stream(spare);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'STREAM_LIMIT_REACHED' });
    expect(JSON.parse(refused.body).message).toContain('This business has 20 event streams open');
    twenty[0]!.close();
    await waitUntil('the slot to be freed', () => h.services.eventFeed.openStreams === 19, 10_000);
    expect((await stream(spare)).status).toBe(200);
    for (const c of open) c.close();
    await waitUntil('every stream to close', () => h.services.eventFeed.openStreams === 0, 10_000);
  });
});

describe('clients that hang up at once', () => {
  it("give their key's slot back: twenty requests closed right after they are sent leave no stream open, and five can open after", async () => {
    await waitUntil('earlier streams to close', () => h.services.eventFeed.openStreams === 0, 10_000);
    const { hostname, port } = new URL(h.baseUrl);
    // Each closes its socket as soon as the request is written: the server is still checking
    // the stream (it reads the database) when the connection goes.
    await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          new Promise<void>((resolve) => {
            const socket = net.connect(Number(port), hostname, () => {
              socket.end(`GET /v1/events/stream HTTP/1.1\r\nHost: ${hostname}\r\nx-api-key: ${a.apiKey}\r\n\r\n`, () => socket.destroy());
            });
            socket.on('close', () => resolve());
            socket.on('error', () => resolve());
          }),
      ),
    );
    await waitUntil('the hung-up streams to stop', () => h.services.eventFeed.openStreams === 0, 10_000);
    const five = await Promise.all([1, 2, 3, 4, 5].map(() => stream(a.apiKey)));
    expect(five.map((c) => c.status)).toEqual([200, 200, 200, 200, 200]);
    for (const c of five) c.close();
    await waitUntil('every stream to close', () => h.services.eventFeed.openStreams === 0, 10_000);
  });
});

describe('a slow reader', () => {
  it('is disconnected with a reason once its buffer stays full, while writers and other readers go on', async () => {
    expect((await h.api('PATCH', `/v1/wallets/${a.id}`, { key: a.apiKey, body: { webhookUrl: receiver.url } })).status).toBe(200);
    const slow = await stream(a.apiKey);
    const fast = await stream(a.apiKey);
    slow.pause();
    // Events of 64 KiB until the slow reader is dropped: it takes more than the sockets'
    // buffers on both sides hold (about 10 MB here; bounded so a huge buffer fails, not hangs).
    const pad = 'x'.repeat(64 * 1024);
    const written: string[] = [];
    const dropped = () => h.services.eventFeed.openStreams === 1;
    while (!dropped() && written.length < 1_600) {
      await h.services.db.transaction().execute(async (tx) => {
        for (let j = 0; j < 40; j++) {
          const reference = `bulk-${written.length}`;
          written.push(
            await h.services.webhooks.emit(tx, { walletId: a.id, transactionId: null, name: 'webhook.test', reference, data: { pad } }),
          );
        }
      });
      // Let the streams read what was just committed before deciding to write more.
      await new Promise((r) => setTimeout(r, 200));
    }
    const N = written.length;
    await waitUntil('the slow reader to be dropped', dropped, 30_000);
    // The slow reader, reading what it was sent (within the grace period), learns why.
    slow.resume();
    await slow.waitForEnd(30_000);
    expect(slow.closedWith()).toEqual(['slow_reader']);
    const got = ids(slow);
    expect(got.length).toBeLessThan(N);
    expect(got).toEqual(written.slice(0, got.length));
    // Meanwhile the fast reader got everything, in order ...
    await fast.waitForEvents(N, 60_000);
    expect(ids(fast)).toEqual(written);
    // ... and deliveries of the same events went on: the worker never waits for a stream.
    await receiver.waitForRequests(N, 60_000);
    // Resuming from its last event id gives it the rest, once.
    const resumed = await stream(a.apiKey, { lastEventId: slow.messages.filter((m) => m.event !== 'stream.closed').at(-1)!.lastEventId });
    await resumed.waitForEvents(N - got.length, 60_000);
    expect([...got, ...ids(resumed)]).toEqual(written);
    for (const c of [fast, resumed]) c.close();
  });
});

describe('shutdown', () => {
  it("ends every stream with reason shutdown, and the server's close does not wait for them", async () => {
    const conns = [await stream(a.apiKey), await stream(h.businessKey)];
    await h.app.close();
    for (const c of conns) {
      await c.waitForEnd(10_000);
      expect(c.closedWith()).toEqual(['shutdown']);
    }
    expect(h.services.eventFeed.openStreams).toBe(0);
  });
});
