/**
 * Batched delivery: the deliveries one database transaction writes share a batch and one
 * job; racing batch runs, per-delivery jobs and the sweep still make each attempt exactly
 * once; the payload is stored once (on the event) and sent byte for byte as
 * JSON.stringify({ event, data }); a regenerated key signs from the next attempt on.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { shortReference } from '../../src/lib/ids.js';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { BATCH_MAX } from '../../src/modules/webhooks/service.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { recordDeposit } from '../support/fixtures.js';
import { uuidv7 } from '../../src/lib/ids.js';

let h: Harness;
let receiver: Receiver;
const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);

// No worker: the test drives the delivery paths itself, all at once.
beforeAll(async () => {
  h = await startHarness({ clock });
  receiver = await startReceiver();
  const w = h.wallets['devnet-eth']!;
  expect((await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { webhookUrl: receiver.url } })).status).toBe(200);
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
});

const wallet = () => h.wallets['devnet-eth']!;

/** Emits `n` events in one transaction; returns their data in order. */
async function emitInOneTransaction(n: number, tag: string): Promise<Record<string, unknown>[]> {
  const data = Array.from({ length: n }, (_, i) => ({ tag, i, note: 'quotes " and \\ and é', nested: { z: 1, a: [1, 2] } }));
  await h.services.db.transaction().execute(async (tx) => {
    for (const d of data)
      await h.services.webhooks.emit(tx, {
        walletId: wallet().id,
        transactionId: null,
        name: 'deposit.success',
        reference: shortReference(),
        data: d,
      });
  });
  return data;
}

async function deliveriesTagged(tag: string) {
  const { rows } = await sql<{ id: string; batch_id: string | null; delivery_body: string | null; event_body: string; payload: unknown }>`
    SELECT d.id, d.batch_id, d.body AS delivery_body, e.body AS event_body, e.payload
      FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
     WHERE e.body LIKE ${`%"tag":"${tag}"%`} ORDER BY d.id`.execute(h.database.db);
  return rows;
}

async function jobsOfBatch(batch: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    SELECT count(*) AS n FROM graphile_worker._private_jobs WHERE payload->>'batch' = ${batch}`.execute(h.database.db);
  return Number(rows[0]!.n);
}

it('one transaction is one batch with one job; racing paths make each attempt once, with exact signed bodies', async () => {
  const n = 40;
  const data = await emitInOneTransaction(n, 'race');
  const rows = await deliveriesTagged('race');
  expect(rows).toHaveLength(n);
  const batch = rows[0]!.batch_id!;
  expect(batch).toBeTruthy();
  expect(rows.every((r) => r.batch_id === batch)).toBe(true);
  expect(await jobsOfBatch(batch)).toBe(1);
  // Stored once: on the event, not copied onto the delivery.
  expect(rows.every((r) => r.delivery_body === null && r.payload === null)).toBe(true);

  const before = receiver.requests.length;
  const results = await Promise.all([
    h.services.webhooks.deliverBatch(batch),
    h.services.webhooks.deliverBatch(batch),
    ...rows.map((r) => h.services.webhooks.deliver(r.id)),
    h.services.webhooks.sweep(),
    h.services.webhooks.deliverBatch(batch),
  ]);
  const made = results.filter((r) => typeof r === 'number').slice(0, 2);
  expect(made.every((m) => (m as number) >= 0)).toBe(true);
  // Anything the sweep queued finds nothing due now.
  for (const r of rows) expect(await h.services.webhooks.deliver(r.id)).toBe('not-due');
  expect(await h.services.webhooks.deliverBatch(batch)).toBe(0);

  const got = receiver.requests.slice(before);
  expect(got).toHaveLength(n);
  expect(new Set(got.map((g) => g.headers['webhook-id']))).toEqual(new Set(rows.map((r) => r.id)));
  const { rows: attempts } = await sql<{ delivery_id: string; n: string; ok: string }>`
    SELECT delivery_id, count(*) AS n, count(*) FILTER (WHERE status_code = 200) AS ok FROM webhook_attempts
     WHERE delivery_id = ANY(${rows.map((r) => r.id)}::uuid[]) GROUP BY delivery_id`.execute(h.database.db);
  expect(attempts).toHaveLength(n);
  expect(attempts.every((a) => a.n === '1' && a.ok === '1')).toBe(true);

  const expected = new Set(data.map((d) => JSON.stringify({ event: 'deposit.success', data: d })));
  for (const req of got) {
    expect(expected.has(req.body)).toBe(true);
    const verified = verifyWebhook({ body: req.body, headers: req.headers, apiKey: wallet().apiKey });
    expect(data).toContainEqual(verified.data);
  }
  const log = await h.api('GET', `/v1/wallets/${wallet().id}/webhooks?limit=100`);
  expect(log.status).toBe(200);
  const entry = log.body.data.find((e: { id: string }) => e.id === rows[0]!.id);
  expect(entry).toMatchObject({ status: 'success', attempts: 1, event: 'deposit.success' });
  expect(data).toContainEqual(entry.payload);
});

it(`a transaction writing more than ${BATCH_MAX} deliveries spreads them over several batches and jobs`, async () => {
  await emitInOneTransaction(BATCH_MAX + 3, 'big');
  const rows = await deliveriesTagged('big');
  const sizes = new Map<string, number>();
  for (const r of rows) sizes.set(r.batch_id!, (sizes.get(r.batch_id!) ?? 0) + 1);
  expect([...sizes.values()].sort((a, b) => a - b)).toEqual([3, BATCH_MAX]);
  for (const batch of sizes.keys()) expect(await jobsOfBatch(batch)).toBe(1);
});

it('after the key is regenerated, the next attempt is signed with the new key', async () => {
  await emitInOneTransaction(1, 'key-1');
  const [first] = await deliveriesTagged('key-1');
  expect(await h.services.webhooks.deliverBatch(first!.batch_id!)).toBe(1);
  const signedOld = receiver.requests.at(-1)!;
  expect(() => verifyWebhook({ body: signedOld.body, headers: signedOld.headers, apiKey: wallet().apiKey })).not.toThrow();

  const res = await h.api('POST', `/v1/wallets/${wallet().id}/api-key/regenerate`, { key: h.businessKey });
  expect(res.status).toBe(200);
  const newKey = res.body.data.apiKey as string;
  await emitInOneTransaction(1, 'key-2');
  const [second] = await deliveriesTagged('key-2');
  expect(await h.services.webhooks.deliverBatch(second!.batch_id!)).toBe(1);
  const signedNew = receiver.requests.at(-1)!;
  expect(() => verifyWebhook({ body: signedNew.body, headers: signedNew.headers, apiKey: newKey })).not.toThrow();
  expect(() => verifyWebhook({ body: signedNew.body, headers: signedNew.headers, apiKey: wallet().apiKey })).toThrow();
  h.wallets['devnet-eth']!.apiKey = newKey;
});

it('an event written outside a transaction gets a job of its own and is delivered by it', async () => {
  const before = receiver.requests.length;
  await h.services.webhooks.emit(h.services.db, {
    walletId: wallet().id,
    transactionId: null,
    name: 'deposit.success',
    reference: shortReference(),
    data: { tag: 'solo' },
  });
  const [row] = await deliveriesTagged('solo');
  expect(row!.batch_id).toBeNull();
  const { rows } = await sql<{ n: string }>`
    SELECT count(*) AS n FROM graphile_worker._private_jobs WHERE key = ${`webhook:${row!.id}`}`.execute(h.database.db);
  expect(rows[0]!.n).toBe('1');
  expect(await h.services.webhooks.deliver(row!.id)).toBe('sent');
  expect(receiver.requests.length).toBe(before + 1);
  expect(JSON.parse(receiver.requests.at(-1)!.body)).toEqual({ event: 'deposit.success', data: { tag: 'solo' } });
});

it('the sweep leaves a young batch to its job, and queues it once the job looks lost', async () => {
  await emitInOneTransaction(1, 'lost');
  const [row] = await deliveriesTagged('lost');
  await sql`DELETE FROM graphile_worker._private_jobs WHERE payload->>'batch' = ${row!.batch_id}`.execute(h.database.db);
  const ownJobs = async () =>
    Number(
      (
        await sql<{ n: string }>`SELECT count(*) AS n FROM graphile_worker._private_jobs WHERE key = ${`webhook:${row!.id}`}`.execute(
          h.database.db,
        )
      ).rows[0]!.n,
    );
  await h.services.webhooks.sweep();
  expect(await ownJobs()).toBe(0);
  clock.advance(2 * 60_000 + 1000);
  // (The never-delivered batches of the test above are due too: sweep them all.)
  await h.services.webhooks.sweep(10_000);
  expect(await ownJobs()).toBe(1);
  expect(await h.services.webhooks.deliver(row!.id)).toBe('sent');
});

it('rows written before migration 006 (payload on the event, body on the delivery) are sent as they were, and resent', async () => {
  // A deposit with one current event, then an older-style event and delivery for it.
  const tx = await recordDeposit(h, 'devnet-eth');
  const legacyData = { legacy: true, id: tx.id, note: 'é' };
  const legacyBody = JSON.stringify({ event: 'deposit.swept.success', data: legacyData });
  const eventId = uuidv7();
  const deliveryId = uuidv7();
  const at = new Date(clock.now().getTime() + 1000);
  await sql`INSERT INTO events (id, wallet_id, transaction_id, name, reference, payload, created_at)
            VALUES (${eventId}, ${wallet().id}, ${tx.id}, 'deposit.swept.success', ${tx.reference}, ${JSON.stringify(legacyData)}::jsonb, ${at})`.execute(
    h.database.db,
  );
  await sql`INSERT INTO webhook_deliveries (id, event_id, wallet_id, transaction_id, event, reference, url, body, status, attempts, max_attempts,
                                            next_attempt_at, created_at, updated_at)
            VALUES (${deliveryId}, ${eventId}, ${wallet().id}, ${tx.id}, 'deposit.swept.success', ${tx.reference}, ${receiver.url}, ${legacyBody},
                    'pending', 0, 6, ${clock.now()}, ${at}, ${at})`.execute(h.database.db);

  expect(await h.services.webhooks.deliver(deliveryId)).toBe('sent');
  expect(receiver.requests.at(-1)!.body).toBe(legacyBody);

  // Resend picks the latest event (the legacy one) and sends the same data.
  const res = await h.api('POST', `/v1/wallets/${wallet().id}/transactions/webhooks/resend`, { key: wallet().apiKey, body: { id: tx.id } });
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ id: tx.id });
  expect(res.body.webhookLog).toMatchObject({ event: 'deposit.swept.success', payload: legacyData });
  expect(await h.services.webhooks.deliver(res.body.webhookLog.id)).toBe('sent');
  expect(JSON.parse(receiver.requests.at(-1)!.body)).toEqual({ event: 'deposit.swept.success', data: legacyData });
});

it('a transaction whose first events are for a wallet without a URL still queues a job for its later deliveries', async () => {
  // An indexer range (or any transaction) writing events of several wallets: the first
  // statement of the batch may write no delivery at all (its wallets have no URL). The
  // deliveries written after it belong to the same batch and must still get its job,
  // instead of waiting for the sweep to find them minutes later.
  const quiet = h.wallets['devnet-bsc']!;
  expect((await h.api('GET', `/v1/wallets/${quiet.id}`, { key: quiet.apiKey })).body.data.webhookUrl).toBeNull();
  await h.services.db.transaction().execute(async (tx) => {
    await h.services.webhooks.emit(tx, {
      walletId: quiet.id,
      transactionId: null,
      name: 'deposit.success',
      reference: shortReference(),
      data: { tag: 'no-url-first' },
    });
    await h.services.webhooks.emit(tx, {
      walletId: wallet().id,
      transactionId: null,
      name: 'deposit.success',
      reference: shortReference(),
      data: { tag: 'url-second' },
    });
  });
  expect(await deliveriesTagged('no-url-first')).toHaveLength(0);
  const [row] = await deliveriesTagged('url-second');
  expect(row!.batch_id).toBeTruthy();
  expect(await jobsOfBatch(row!.batch_id!)).toBe(1);
  const before = receiver.requests.length;
  expect(await h.services.webhooks.deliverBatch(row!.batch_id!)).toBe(1);
  expect(receiver.requests.length).toBe(before + 1);
  expect(JSON.parse(receiver.requests.at(-1)!.body)).toEqual({ event: 'deposit.success', data: { tag: 'url-second' } });
});

it('a delivery closed in a claim (its wallet lost its URL) does not end the batch: the rest are still sent', async () => {
  // The claim closes, without an attempt, the deliveries of wallets whose URL was removed
  // since the event; they still take room in the claim. A claim that came back short for
  // that reason is not the end of the batch: the other wallets' deliveries behind it must
  // be sent by the batch's job, not left pending for the sweep.
  const gone = h.wallets['devnet-bsc']!;
  const setUrl = async (url: string | null) =>
    expect((await h.api('PATCH', `/v1/wallets/${gone.id}`, { key: gone.apiKey, body: { webhookUrl: url } })).status).toBe(200);
  await setUrl(receiver.url);
  const n = 40;
  await h.services.db.transaction().execute(async (tx) => {
    await h.services.webhooks.emit(tx, {
      walletId: gone.id,
      transactionId: null,
      name: 'deposit.success',
      reference: shortReference(),
      data: { tag: 'url-removed' },
    });
    for (let i = 0; i < n; i++)
      await h.services.webhooks.emit(tx, {
        walletId: wallet().id,
        transactionId: null,
        name: 'deposit.success',
        reference: shortReference(),
        data: { tag: 'behind-removed', i },
      });
  });
  await setUrl(null);
  const [closed] = await deliveriesTagged('url-removed');
  const rest = await deliveriesTagged('behind-removed');
  expect(rest).toHaveLength(n);
  expect(rest.every((r) => r.batch_id === closed!.batch_id)).toBe(true);

  const before = receiver.requests.length;
  expect(await h.services.webhooks.deliverBatch(closed!.batch_id!)).toBe(n);
  expect(receiver.requests.length).toBe(before + n);
  const { rows } = await sql<{ status: string; attempts: number; n: number }>`
    SELECT status, attempts, count(*)::int AS n FROM webhook_deliveries WHERE id = ANY(${rest.map((r) => r.id)}::uuid[])
     GROUP BY status, attempts`.execute(h.database.db);
  expect(rows).toEqual([{ status: 'success', attempts: 1, n }]);
  const { rows: gone_ } = await sql<{ status: string; attempts: number }>`
    SELECT status, attempts FROM webhook_deliveries WHERE id = ${closed!.id}`.execute(h.database.db);
  expect(gone_).toEqual([{ status: 'failed', attempts: 0 }]);
});
