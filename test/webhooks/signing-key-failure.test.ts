/**
 * An attempt whose signing key cannot be read (the key vault, an HSM or a KMS, or the
 * database answering an error for a moment) is still an attempt: it was claimed (counted,
 * the schedule moved on), so its outcome is recorded with the reason, nothing is sent, and
 * the retry comes at its time. Before, the error escaped the attempt: the claimed attempt
 * kept no outcome and no error in the log, no retry job was queued, and a final attempt
 * ended as "no outcome recorded".
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { RETRY_DELAYS_MS } from '../../src/modules/webhooks/schedule.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

let h: Harness;
let receiver: Receiver;
const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);

// No worker: the test makes the attempts itself.
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

it('a signing key that cannot be read fails the attempt with its reason, logged, and the retry signs and sends', async () => {
  const w = h.wallets['devnet-eth']!;
  const sent = await h.api('POST', `/v1/wallets/${w.id}/webhooks/test`, { key: w.apiKey });
  expect(sent.status).toBe(200);
  const deliveryId = sent.body.data.id as string;

  const apiKeys = h.services.apiKeys;
  const reveal = apiKeys.revealWalletKey.bind(apiKeys);
  apiKeys.revealWalletKey = () => Promise.reject(new Error('the key vault is unreachable'));
  try {
    expect(await h.services.webhooks.deliver(deliveryId)).toBe('sent');
  } finally {
    apiKeys.revealWalletKey = reveal;
  }
  expect(receiver.requests).toHaveLength(0);
  const failed = await h.services.webhooks.log.one(w.id, deliveryId);
  expect(failed).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null });
  expect(failed.response).toMatch(/signing key could not be read/);
  // The vault's own message is the operator's (logged), not the tenant's.
  expect(failed.response).not.toMatch(/vault is unreachable/);
  expect(failed.history).toHaveLength(1);
  expect(failed.history[0]!.error).toMatch(/signing key could not be read/);
  expect(h.logs()).toMatch(/webhook signing key could not be read/);
  expect(failed.nextAttemptAt).toBe(new Date(clock.now().getTime() + RETRY_DELAYS_MS[0]!).toISOString());
  // Its retry has a job, as after any failed attempt (not only the sweep's pass).
  const { rows } = await sql<{ n: string }>`
    SELECT count(*) AS n FROM graphile_worker._private_jobs WHERE payload->>'deliveryId' = ${deliveryId}`.execute(h.database.db);
  expect(Number(rows[0]!.n)).toBe(1);

  // The retry, at its time, reads the key again: signed and sent.
  clock.advance(RETRY_DELAYS_MS[0]!);
  expect(await h.services.webhooks.deliver(deliveryId)).toBe('sent');
  expect(receiver.requests).toHaveLength(1);
  expect(await h.services.webhooks.log.one(w.id, deliveryId)).toMatchObject({ status: 'success', attempts: 2 });
});
