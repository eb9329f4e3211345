/**
 * A resend delivers "the exact body ... identical for every attempt and every resend"
 * (docs/webhooks.md). Events written before migration 006 have no `events.body`: their
 * deliveries keep their own copy of the bytes. A resend of such an event rebuilt the body
 * from `events.payload` (jsonb), whose key order and number spelling are PostgreSQL's: the
 * same value in other bytes than the original delivery sent and signed. It now copies the
 * event's first delivery's body.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { recordDeposit } from '../support/fixtures.js';
import { uuidv7 } from '../../src/lib/ids.js';

let h: Harness;
let receiver: Receiver;

beforeAll(async () => {
  h = await startHarness({ worker: true });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
});

it('a resend of an event written before migration 006 sends the bytes its original delivery sent', async () => {
  const w = h.wallets['devnet-eth']!;
  // The transaction, with no URL yet: no delivery of its own event.
  const tx = await recordDeposit(h, 'devnet-eth');
  const db = h.database.db;
  // A pre-006 event and its delivery, as such rows are: payload jsonb, no event body, the
  // delivery's own copy of the exact bytes it sent (JSON.stringify of the Transaction).
  const data = { id: tx.id, reference: tx.reference, status: 'SUCCESS', amount: '1.5', wallet: { id: w.id, name: 'x' } };
  const original = JSON.stringify({ event: 'deposit.success', data });
  const eventId = uuidv7();
  const later = new Date(Date.now() + 3_600_000);
  await sql`INSERT INTO events (id, wallet_id, transaction_id, name, reference, payload, body, created_at, txid)
            VALUES (${eventId}, ${w.id}, ${tx.id}, 'deposit.success', ${tx.reference}, ${JSON.stringify(data)}::jsonb, NULL, ${later}, '0')`.execute(
    db,
  );
  await sql`INSERT INTO webhook_deliveries (id, event_id, wallet_id, transaction_id, event, reference, url, body, status, attempts,
                                            max_attempts, next_attempt_at, created_at, updated_at)
            VALUES (${uuidv7()}, ${eventId}, ${w.id}, ${tx.id}, 'deposit.success', ${tx.reference}, ${receiver.url}, ${original},
                    'success', 1, 6, NULL, ${later}, ${later})`.execute(db);

  const patched = await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { webhookUrl: receiver.url } });
  expect(patched.status).toBe(200);
  const before = receiver.requests.length;
  const res = await h.api('POST', `/v1/wallets/${w.id}/transactions/webhooks/resend`, { key: w.apiKey, body: { id: tx.id } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await receiver.waitForRequests(before + 1, 20_000);
  const resent = receiver.requests[before]!.body;
  // Same JSON value...
  expect(JSON.parse(resent)).toEqual(JSON.parse(original));
  // ...and the same bytes (those signed and sent the first time).
  expect(resent).toBe(original);
});
