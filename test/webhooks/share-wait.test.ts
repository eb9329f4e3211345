/**
 * A batch near the share left by another business: a busy business (40 attempts hanging,
 * under its share of PER_BUSINESS_IN_FLIGHT) leaves every claim of the process room for 8
 * (claims still awaited may all be its). cfb0178 made a batch whose claim would be that small
 * wait until all its own attempts ended: a quiet business with one hanging receiver call in
 * its batch then had the rest of its events wait for that call's timeout, though their
 * ending could not make the room any larger (another business's attempts keep it small).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BATCH_WINDOW } from '../../src/modules/webhooks/delivery.js';
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

it(
  "a batch is not held behind its own hanging attempt when another business's load keeps the room small",
  { timeout: 60_000 },
  async () => {
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
    // The noisy business: a full window, then 8 more, all hanging (40, under its share of 48).
    for (const n of [BATCH_WINDOW, 8]) {
      await h.services.db.transaction().execute(async (tx) => {
        for (let i = 0; i < n; i++) {
          await h.services.webhooks.emit(tx, {
            walletId: noisy.id,
            transactionId: null,
            name: 'webhook.test',
            reference: `n-${n}-${i}`,
            data: { i },
          });
        }
      });
      await hanging.waitForRequests(hanging.requests.length + n, 20_000);
    }
    // The quiet business: 20 events in one batch, the first one's receiver call hangs.
    quick.script({ kind: 'hang' });
    const started = Date.now();
    await h.services.db.transaction().execute(async (tx) => {
      for (let i = 0; i < 20; i++) {
        await h.services.webhooks.emit(tx, {
          walletId: quiet.id,
          transactionId: null,
          name: 'webhook.test',
          reference: `q-${i}`,
          data: { i },
        });
      }
    });
    await quick.waitForRequests(20, 40_000);
    const waited = Date.now() - started;
    expect(waited, `the quiet business's events waited ${waited} ms`).toBeLessThan(5_000);
  },
);
