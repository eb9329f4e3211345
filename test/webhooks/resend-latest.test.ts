/**
 * A resend delivers the transaction's latest event. "Latest" was the event's `created_at`,
 * which is the clock of the process that wrote it: with two processes whose clocks differ (an
 * API replica's deposit finder and the indexer, a worker on another host), an event written
 * after another could carry an earlier time, and a resend then delivered the older state
 * (`deposit.processing` after the merchant had `deposit.success`). The order of writing is
 * kept by the database (events.seq, migration 066) and decides.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { uuidv7 } from '../../src/lib/ids.js';
import { ManualClock } from '../../src/lib/clock.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { recordDeposit } from '../support/fixtures.js';

let h: Harness;
let receiver: Receiver;
const clock = new ManualClock(Date.now());

beforeAll(async () => {
  h = await startHarness({ worker: true, clock });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
});

it('resends the event written last, even when the clock that wrote it was behind', async () => {
  const w = h.wallets['devnet-eth']!;
  const tx = await recordDeposit(h, 'devnet-eth', { event: 'deposit.processing' });
  // The confirmation, written afterwards by a process whose clock is a minute behind.
  clock.advance(-60_000);
  await h.database.db.transaction().execute((t) => h.services.webhooks.emitForTransaction(t, tx.id, 'deposit.success'));
  clock.advance(60_000);

  const patched = await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { webhookUrl: receiver.url } });
  expect(patched.status).toBe(200);
  const before = receiver.requests.length;
  const res = await h.api('POST', `/v1/wallets/${w.id}/transactions/webhooks/resend`, { key: w.apiKey, body: { id: tx.id } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.webhookLog.event).toBe('deposit.success');
  await receiver.waitForRequests(before + 1, 20_000);
  expect(JSON.parse(receiver.requests[before]!.body).event).toBe('deposit.success');

  // An event from before migration 066 (no write order), however late its time, is older
  // than every event written since.
  const later = new Date(clock.now().getTime() + 3_600_000);
  await sql`INSERT INTO events (id, wallet_id, transaction_id, name, reference, body, created_at, seq)
            VALUES (${uuidv7()}, ${w.id}, ${tx.id}, 'deposit.failed', ${tx.reference}, '{}', ${later}, NULL)`.execute(h.database.db);
  const again = await h.api('POST', `/v1/wallets/${w.id}/transactions/webhooks/resend`, { key: w.apiKey, body: { id: tx.id } });
  expect(again.status, JSON.stringify(again.body)).toBe(200);
  expect(again.body.webhookLog.event).toBe('deposit.success');
});
