/**
 * GET /v1/events: every event a wallet's webhooks carry, oldest first after a cursor, with
 * the delivery state beside it; tenancy by key; 400s for bad cursors, types and limits;
 * and POST .../webhooks/trigger (a realistic test event of any type).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { waitUntil } from '../support/cli.js';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { FEED_EVENTS, WEBHOOK_EVENTS } from '../../src/modules/webhooks/types.js';

let h: Harness;
let a: TestWallet;
let b: TestWallet;
let other: { key: string; walletId: string };
let receiver: Receiver;

const trigger = async (w: TestWallet, event: string) => {
  const res = await h.api('POST', `/v1/wallets/${w.id}/webhooks/trigger`, { key: w.apiKey, body: { event } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
};
const list = (key: string, query = '') => h.api('GET', `/v1/events${query ? `?${query}` : ''}`, { key });

beforeAll(async () => {
  h = await startHarness({ worker: true });
  [a, b] = [h.wallets['devnet-eth']!, h.wallets['devnet-bsc']!];
  receiver = await startReceiver();
  const biz = await h.services.businesses.create('Another Business');
  const wallet = await h.services.wallets.createForBusiness(biz.business.id, {
    blockchain: 'devnet-eth',
    network: 'testnet',
    name: 'theirs',
  });
  other = { key: wallet.apiKey, walletId: wallet.wallet.id };
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
});

describe('GET /v1/events', () => {
  it('lists nothing before any event, with no cursor to go on from', async () => {
    const res = await list(a.apiKey);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta).toEqual({ nextCursor: null, hasMore: false, itemCount: 0 });
  });

  it("lists a wallet's events oldest first, each with the webhook body's event and data", async () => {
    const written = [await trigger(a, 'deposit.success'), await trigger(a, 'withdraw.failed'), await trigger(a, 'webhook.test')];
    await trigger(b, 'deposit.success');
    // The other wallet's event too: the later tests count it, and the feed's horizon is the whole
    // cluster's (another file's open transaction can hold it back a while).
    await waitUntil(
      "three events, and the other wallet's",
      async () => (await list(a.apiKey)).body.data.length === 3 && (await list(b.apiKey)).body.data.length === 1,
      30_000,
    );
    const { data, meta } = (await list(a.apiKey)).body;
    expect(data.map((e: any) => e.id)).toEqual(written.map((e) => e.id));
    expect(data.map((e: any) => e.event)).toEqual(['deposit.success', 'withdraw.failed', 'webhook.test']);
    const [deposit, withdrawal] = data;
    expect(deposit).toMatchObject({ walletId: a.id, test: true, transactionId: null, delivery: null });
    // A realistic Transaction: the wallet's own chain, network and address; an asset; amounts as strings.
    expect(deposit.data).toMatchObject({ type: 'DEPOSIT', status: 'SUCCESS', confirmed: true, amount: '10.5', network: 'testnet' });
    expect(deposit.data.wallet.id).toBe(a.id);
    expect(deposit.data.recipientAddress).toBe(a.address);
    expect(deposit.data.asset?.symbol).toMatch(/^USD[CT]$/);
    expect(deposit.data.hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(withdrawal.data).toMatchObject({ type: 'WITHDRAW', status: 'FAILED', confirmed: false });
    expect(withdrawal.data.reason).toMatch(/Test event/);
    expect(meta).toEqual({ nextCursor: data[2].cursor, hasMore: false, itemCount: 3 });
  });

  it('pages with limit and after=meta.nextCursor, and an empty page keeps the cursor', async () => {
    const all = (await list(a.apiKey)).body.data;
    const first = (await list(a.apiKey, 'limit=2')).body;
    expect(first.data.map((e: any) => e.id)).toEqual(all.slice(0, 2).map((e: any) => e.id));
    expect(first.meta).toMatchObject({ hasMore: true, nextCursor: all[1].cursor });
    const second = (await list(a.apiKey, `limit=2&after=${first.meta.nextCursor}`)).body;
    expect(second.data.map((e: any) => e.id)).toEqual([all[2].id]);
    expect(second.meta.hasMore).toBe(false);
    const after = (await list(a.apiKey, `after=${second.meta.nextCursor}`)).body;
    expect(after).toMatchObject({ data: [], meta: { nextCursor: second.meta.nextCursor, hasMore: false } });
  });

  it('filters by types', async () => {
    const res = await list(a.apiKey, 'types=withdraw.failed,webhook.test');
    expect(res.body.data.map((e: any) => e.event)).toEqual(['withdraw.failed', 'webhook.test']);
  });

  it("gives a business key every wallet's events, or one wallet's with walletId", async () => {
    const all = (await list(h.businessKey)).body.data;
    expect(all.filter((e: any) => e.walletId === a.id)).toHaveLength(3);
    expect(all.filter((e: any) => e.walletId === b.id)).toHaveLength(1);
    const onlyB = (await list(h.businessKey, `walletId=${b.id}`)).body.data;
    expect(onlyB.map((e: any) => e.walletId)).toEqual([b.id]);
  });

  it("never shows another wallet's or business's events", async () => {
    expect((await list(b.apiKey)).body.data.every((e: any) => e.walletId === b.id)).toBe(true);
    expect((await list(other.key)).body.data).toEqual([]);
    for (const [key, walletId] of [
      [other.key, a.id],
      [b.apiKey, a.id],
      [a.apiKey, other.walletId],
    ] as const) {
      const res = await list(key, `walletId=${walletId}`);
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('NOT_FOUND');
    }
    // Their own trigger cannot write into our wallets either.
    const res = await h.api('POST', `/v1/wallets/${a.id}/webhooks/trigger`, { key: other.key, body: { event: 'deposit.success' } });
    expect(res.status).toBe(404);
  });

  it.each([
    ['after=nonsense', 'after'],
    ['after=1.0190f0a2-7b3c-7d4e-8f00-11223344556', 'after'],
    ['after=99999999999999999999.0190f0a2-7b3c-7d4e-8f00-112233445566', 'after'],
    ['types=deposit.nope', 'types'],
    ['types=deposit.success,,withdraw.success', 'types'],
    ['types=DEPOSIT.SUCCESS', 'types'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['walletId=not-a-uuid', 'walletId'],
    ['page=2', 'page'],
  ])('answers %s with a 400 naming the field', async (query, field) => {
    const res = await list(a.apiKey, query);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(res.body.details)).toContain(field);
  });

  it('answers 401 without a key', async () => {
    expect((await list('')).status).toBe(401);
  });

  it('filters on every name the service sends: approvals, recoveries, staking and checkout sessions too', async () => {
    for (const name of FEED_EVENTS) {
      const res = await list(a.apiKey, `types=${name}`);
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(200);
    }
  });
});

describe('an event and its delivery', () => {
  it('shows the latest delivery beside the event, and the receiver gets the same signed body', async () => {
    expect((await h.api('PATCH', `/v1/wallets/${a.id}`, { key: a.apiKey, body: { webhookUrl: receiver.url } })).status).toBe(200);
    const event = await trigger(a, 'deposit.swept.success');
    // The answer reads the event after its commit: a quick worker may have taken its first
    // attempt already (attempts counts one from the moment it is claimed), or delivered it.
    expect(event.delivery).toMatchObject({ id: expect.any(String) });
    expect([
      { status: 'pending', attempts: 0 },
      { status: 'pending', attempts: 1 },
      { status: 'success', attempts: 1 },
    ]).toContainEqual({
      status: event.delivery.status,
      attempts: event.delivery.attempts,
    });
    await receiver.waitForRequests(1);
    const got = receiver.requests[0]!;
    const verified = verifyWebhook({ body: got.body, headers: got.headers, apiKey: a.apiKey });
    expect(verified).toMatchObject({ id: event.delivery.id, event: 'deposit.swept.success' });
    expect(JSON.parse(got.body)).toEqual({ event: 'deposit.swept.success', data: event.data, test: true });
    await waitUntil(
      'the delivery to be recorded',
      async () => (await list(a.apiKey, 'types=deposit.swept.success')).body.data[0]?.delivery?.status === 'success',
      30_000,
    );
    const [listed] = (await list(a.apiKey, 'types=deposit.swept.success')).body.data;
    expect(listed.delivery).toMatchObject({
      id: event.delivery.id,
      status: 'success',
      attempts: 1,
      lastStatusCode: 200,
      nextAttemptAt: null,
    });
    expect(listed.data.assetSwept).toBe(true);
  });

  it('triggers every event type, and refuses a type that does not exist', async () => {
    const sent: Record<string, { type: string; status: string; confirmed: boolean; hash: string | null }> = {};
    for (const name of WEBHOOK_EVENTS) {
      const body = await trigger(b, name);
      expect(body.event).toBe(name);
      sent[name] = body.data;
    }
    // Each with the Transaction type and status a real one of its kind carries (docs/webhooks.md).
    const shape = (name: string) => [sent[name]!.type, sent[name]!.status];
    expect(shape('withdraw.pending_approval')).toEqual(['WITHDRAW', 'PENDING_APPROVAL']);
    expect(shape('withdraw.cancelled')).toEqual(['WITHDRAW', 'CANCELLED']);
    expect([sent['withdraw.cancelled']!.confirmed, sent['withdraw.cancelled']!.hash]).toEqual([false, null]);
    expect(shape('deposit.processing')).toEqual(['DEPOSIT', 'PENDING']);
    expect(shape('salvage.failed')).toEqual(['SALVAGE', 'FAILED']);
    expect(shape('staking.success')).toEqual(['STAKING', 'SUCCESS']);
    expect(shape('unstaking.success')).toEqual(['UNSTAKING', 'SUCCESS']);
    expect(shape('unstaking.withdraw.success')).toEqual(['UNSTAKING_WITHDRAW', 'SUCCESS']);
    expect(shape('restaking.failed')).toEqual(['RESTAKING', 'FAILED']);
    const res = await h.api('POST', `/v1/wallets/${b.id}/webhooks/trigger`, { key: b.apiKey, body: { event: 'deposit.maybe' } });
    expect(res.status).toBe(400);
  });
});

describe('order across transactions', () => {
  it('holds back an event committed while an older transaction that writes events is still open, and loses neither', async () => {
    const emit = (tx: Parameters<Harness['services']['webhooks']['emit']>[0], reference: string) =>
      h.services.webhooks.emit(tx, { walletId: b.id, transactionId: null, name: 'webhook.test', reference, data: { reference } });
    const start = (await list(b.apiKey, 'limit=100')).body;
    let after = start.meta.nextCursor as string;
    for (let more = start.meta.hasMore; more;) {
      const page = (await list(b.apiKey, `after=${after}`)).body;
      after = page.meta.nextCursor;
      more = page.meta.hasMore;
    }
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let wroteFirst!: () => void;
    const firstWritten = new Promise<void>((resolve) => (wroteFirst = resolve));
    // The older transaction: its event gets an earlier txid, but it commits last.
    const older = h.services.db.transaction().execute(async (tx) => {
      await emit(tx, 'older');
      wroteFirst();
      await gate;
    });
    // Only this test's two events count: the horizon is the oldest transaction open in the
    // whole cluster, which other test files share, so events of earlier tests held back by
    // their transactions may turn up after `after` meanwhile.
    const ours = async () =>
      ((await list(b.apiKey, `after=${after}&limit=100`)).body.data as { reference: string }[])
        .map((e) => e.reference)
        .filter((r) => r === 'older' || r === 'newer');
    try {
      await firstWritten;
      await h.services.db.transaction().execute((tx) => emit(tx, 'newer'));
      // The newer event is committed, but a reader that saw it now could later skip the older one.
      await new Promise((r) => setTimeout(r, 500));
      expect(await ours()).toEqual([]);
    } finally {
      // Never leave the older transaction open: it would hold every other test file's horizon.
      release();
      await older;
    }
    await waitUntil('both events', async () => (await ours()).length === 2, 30_000);
    expect(await ours()).toEqual(['older', 'newer']);
  });
});

describe('/openapi.json', () => {
  it('documents the feed, the stream and the trigger with their 400s', async () => {
    const spec = (await h.api('GET', '/openapi.json', { key: null })).body;
    for (const [path, method] of [
      ['/v1/events', 'get'],
      ['/v1/events/stream', 'get'],
      ['/v1/wallets/{walletId}/webhooks/trigger', 'post'],
    ] as const) {
      const op = spec.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.responses['400'], `${method} ${path} 400`).toBeDefined();
      expect(op.responses['429']).toBeDefined();
    }
    expect(Object.keys(spec.paths['/v1/events/stream'].get.responses['200'].content)).toEqual(['text/event-stream']);
    expect(spec.components.schemas.Event.properties.event.enum).toEqual([...FEED_EVENTS]);
    expect(spec.components.schemas.ErrorBody.properties.error.enum).toContain('STREAM_LIMIT_REACHED');
  });
});
