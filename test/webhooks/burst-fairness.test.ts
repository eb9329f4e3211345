/**
 * A business whose receiver hangs, with two bursts (two transactions' batches) in flight,
 * took every attempt slot of the process (MAX_IN_FLIGHT): another business's event waited
 * for those attempts to time out (15 s in production, every round). A business now keeps at
 * most PER_BUSINESS_IN_FLIGHT in flight; the rest stays for the others.
 */
import { expect, it } from 'vitest';
import { BATCH_WINDOW, MAX_IN_FLIGHT } from '../../src/modules/webhooks/delivery.js';
import { useTwoBusinesses } from './two-businesses.js';

const world = useTwoBusinesses();

it("another business's event is not held up by one business's hanging bursts", { timeout: 60_000 }, async () => {
  const { h, hanging, quick, noisy, quiet, emit } = world();
  // Two transactions of 40 events each: two batch jobs.
  for (let b = 0; b < 2; b++) await emit(noisy.id, 40, `burst-${b}`);
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
