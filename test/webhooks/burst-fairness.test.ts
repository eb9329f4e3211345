/**
 * A business whose receiver hangs, with two bursts (two transactions' batches) in flight,
 * took every attempt slot of the process (MAX_IN_FLIGHT): another business's event waited
 * for those attempts to time out (15 s in production, every round). A business now keeps at
 * most PER_BUSINESS_IN_FLIGHT in flight; the rest stays for the others.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BATCH_WINDOW, MAX_IN_FLIGHT } from '../../src/modules/webhooks/delivery.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

let h: Harness;
let hanging: Receiver;
let quick: Receiver;

beforeAll(async () => {
  [h, hanging, quick] = await Promise.all([
    startHarness({ worker: true, sender: { timeoutMs: 30_000 } }),
    startReceiver(),
    startReceiver(),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([hanging?.close(), quick?.close()]);
  await h?.stop();
});

it("another business's event is not held up by one business's hanging bursts", { timeout: 60_000 }, async () => {
  const noisy = h.wallets['devnet-eth']!;
  const other = await h.services.businesses.create('Quiet Business');
  const created = await h.api('POST', '/v1/wallets', {
    key: other.apiKey,
    body: { blockchain: 'devnet-eth', network: 'testnet', name: 'quiet' },
  });
  expect(created.status).toBe(200);
  const quiet = { id: created.body.data.id as string, apiKey: created.body.apiKey ?? created.body.data.apiKey };
  for (const [w, url] of [
    [noisy, hanging.url],
    [quiet, quick.url],
  ] as const) {
    expect((await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { webhookUrl: url } })).status).toBe(200);
  }
  hanging.fallback = { kind: 'hang' };
  // Two transactions of 40 events each: two batch jobs.
  for (let b = 0; b < 2; b++) {
    await h.services.db.transaction().execute(async (tx) => {
      for (let i = 0; i < 40; i++) {
        await h.services.webhooks.emit(tx, {
          walletId: noisy.id,
          transactionId: null,
          name: 'webhook.test',
          reference: `burst-${b}-${i}`,
          data: { i },
        });
      }
    });
  }
  // Both bursts have started: the noisy business holds its share of the process's attempts.
  await hanging.waitForRequests(MAX_IN_FLIGHT - BATCH_WINDOW / 2, 20_000);
  const started = Date.now();
  const sent = await h.api('POST', `/v1/wallets/${quiet.id}/webhooks/trigger`, { key: quiet.apiKey, body: { event: 'deposit.success' } });
  expect(sent.status).toBe(200);
  await quick.waitForRequests(1, 40_000);
  const waited = Date.now() - started;
  expect(waited, `the quiet business's event waited ${waited} ms`).toBeLessThan(5_000);
  // The noisy one's hung attempts all still count; none was given a slot past its share.
  expect(hanging.requests.length).toBe(MAX_IN_FLIGHT - BATCH_WINDOW / 2);
});
