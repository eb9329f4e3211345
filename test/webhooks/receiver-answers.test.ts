/**
 * What a receiver answers is text the service keeps (the log's `response`, 1 KiB): whatever
 * bytes it sends, the attempt's outcome is recorded. A 200 whose body PostgreSQL cannot
 * store as text (a NUL byte; an emoji cut in half by the 1 KiB cut) was acknowledged all the
 * same: it must not be sent again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { attemptTimes, deliveriesOf, deliveryState, eventually, recordDeposit } from '../support/fixtures.js';

const MIN = 60_000;
const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
let h: Harness;
let receiver: Receiver;

beforeAll(async () => {
  h = await startHarness({ clock, worker: true, sender: { timeoutMs: 1_500 } });
  receiver = await startReceiver();
  const eth = h.wallets['devnet-eth']!;
  const res = await h.api('PATCH', `/v1/wallets/${eth.id}`, { key: eth.apiKey, body: { webhookUrl: receiver.url } });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
});

describe('a receiver answering text PostgreSQL cannot store as it is', () => {
  for (const [what, body, kept] of [
    ['a NUL byte', 'ok\u0000', 'ok\uFFFD'],
    ['an emoji cut in half by the 1 KiB limit', `${'a'.repeat(1023)}\u{1F600}`, `${'a'.repeat(1023)}\uFFFD`],
  ] as const) {
    it(`200 with ${what}: acknowledged once, recorded, never sent again`, async () => {
      const eth = h.wallets['devnet-eth']!;
      receiver.script({ kind: 'status', status: 200, body });
      const before = receiver.requests.length;
      const tx = await recordDeposit(h, 'devnet-eth');
      const [id] = await deliveriesOf(h, tx.id);
      await receiver.waitForRequests(before + 1);
      const [attempt] = await eventually(
        () => attemptTimes(h, id!),
        (a) => a.length === 1 && a[0]!.finished_at !== null,
      );
      expect(attempt).toMatchObject({ status_code: 200, error: null });
      expect(await deliveryState(h, id!)).toMatchObject({ status: 'success', attempts: 1, next_attempt_at: null });
      // Hours later: the acknowledged event is not sent again.
      clock.advance(200 * MIN);
      await h.services.webhooks.sweep();
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.requests.length - before).toBe(1);
      const log = await h.api('GET', `/v1/wallets/${eth.id}/transactions/${tx.id}/webhooks`);
      expect(log.status).toBe(200);
      expect(log.body.data[0]).toMatchObject({ status: 'success', attempts: 1, lastStatusCode: 200, response: kept });
    });
  }
});
