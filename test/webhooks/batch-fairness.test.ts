/**
 * One database transaction can emit events of several businesses (an indexer range confirms
 * deposits to every wallet on the chain): their deliveries share one batch job, which claims
 * BATCH_WINDOW of them at a time. Claimed in id order, a business with many deliveries and a
 * hanging receiver filled the window, and another business's delivery in the same batch
 * waited for those attempts to time out (15 s in production, a round at a time). A claim now
 * takes each business's deliveries in turn.
 */
import { expect, it } from 'vitest';
import { BATCH_WINDOW } from '../../src/modules/webhooks/delivery.js';
import { useTwoBusinesses } from './two-businesses.js';

const world = useTwoBusinesses();

it("a business's delivery in a shared batch is not held up behind another business's hanging ones", { timeout: 60_000 }, async () => {
  const { h, quick, noisy, quiet } = world();
  // One transaction: more of the noisy business's events than a window holds, then one of the quiet one's.
  const started = Date.now();
  await h.services.db.transaction().execute(async (tx) => {
    for (let i = 0; i < BATCH_WINDOW + 8; i++) {
      await h.services.webhooks.emit(tx, {
        walletId: noisy.id,
        transactionId: null,
        name: 'webhook.test',
        reference: `n-${i}`,
        data: { i },
      });
    }
    await h.services.webhooks.emit(tx, { walletId: quiet.id, transactionId: null, name: 'webhook.test', reference: 'q-0', data: { q: 0 } });
  });
  await quick.waitForRequests(1, 40_000);
  const waited = Date.now() - started;
  expect(waited, `the quiet business's delivery waited ${waited} ms`).toBeLessThan(5_000);
});
