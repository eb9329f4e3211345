/**
 * The turns of share-weighing claims (job-shares.ts, JobShares.turn) must not cost a healthy
 * business anything. Two ways they did (found by review of the change that made concurrent
 * first claims weigh each other, share-race.test.ts):
 * - a batch job took its turn before waiting for room, so eight batch jobs waiting while the
 *   process was full of hanging attempts held every turn, and a healthy business's delivery
 *   waited for those attempts to time out;
 * - a business under its share was left out (its job deferred) only because other
 *   businesses' claims were in progress at the same moment.
 */
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { MAX_IN_FLIGHT, PER_BUSINESS_JOBS } from '../../src/modules/webhooks/delivery.js';
import { businessWallet } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

let h: Harness;
let healthy: Receiver;
/** Calls still waiting on hung attempts: they end when the test's receiver closes. */
const pending: Promise<unknown>[] = [];
const leave = (call: Promise<unknown>) => void pending.push(call);
/** A receiver whose every call hangs, for one test: closed after it, which ends them. */
let hanging: Receiver;
beforeEach(async () => {
  hanging = await startReceiver({ kind: 'hang' });
});
afterEach(async () => {
  await hanging.close();
  await Promise.allSettled(pending.splice(0));
});

beforeAll(async () => {
  // Hung attempts outlast the test; closing the receiver ends them.
  [h, healthy] = await Promise.all([startHarness({ sender: { timeoutMs: 300_000 } }), startReceiver()]);
}, 120_000);
afterAll(async () => {
  await healthy?.close();
  await h?.stop();
});

/** A wallet of a new business, its webhooks sent to `url`. */
const wallet = async (name: string, url: string) => (await businessWallet(h, name, url)).walletId;

/** `n` deliveries written in one transaction: their batch. */
async function batch(walletId: string, n: number, tag: string): Promise<string> {
  await h.services.db.transaction().execute(async (tx) => {
    for (let i = 0; i < n; i++) {
      await h.services.webhooks.emit(tx, { walletId, transactionId: null, name: 'webhook.test', reference: `${tag}-${i}`, data: { i } });
    }
  });
  const { rows } = await sql<{ batch_id: string }>`
    SELECT d.batch_id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.reference = ${`${tag}-0`}`.execute(
    h.database.db,
  );
  return rows[0]!.batch_id;
}

/** One delivery written outside a transaction (its own job): its id. */
async function single(walletId: string, reference: string): Promise<string> {
  await h.services.webhooks.emit(h.services.db, { walletId, transactionId: null, name: 'webhook.test', reference, data: {} });
  const { rows } = await sql<{ id: string }>`
    SELECT d.id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.reference = ${reference}`.execute(h.database.db);
  return rows[0]!.id;
}

/** The call's result, or 'still waiting' if it has not ended within `ms` (it waits for hung attempts that never end here). */
const within = <T>(call: Promise<T>, ms: number) =>
  Promise.race([call, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms))]);

it("batch jobs waiting for room while the process is full do not hold up another business's delivery", { timeout: 120_000 }, async () => {
  const full = await Promise.all(['Hang 1', 'Hang 2', 'Hang 3'].map((name) => wallet(name, hanging.url)));
  const waiter = await wallet('Hang 4', hanging.url);
  const ok = await wallet('Healthy 1', healthy.url);
  // The process at MAX_IN_FLIGHT: three businesses' batches, all hanging.
  // (A batch claims up to 32; a business keeps at most 48 in flight, a process 64.)
  for (const [i, w] of full.entries()) {
    leave(h.services.webhooks.deliverBatch(await batch(w, 32, `full-${i}`)));
    await hanging.waitForRequests([32, 48, 64][i]!, 20_000);
  }
  expect(hanging.requests.length).toBe(MAX_IN_FLIGHT);
  // Eight batch jobs whose first claim must wait for room.
  for (let i = 0; i < 8; i++) leave(h.services.webhooks.deliverBatch(await batch(waiter, 1, `wait-${i}`)));
  await new Promise((resolve) => setTimeout(resolve, 200));
  const id = await single(ok, 'healthy-1');
  expect(await within(h.services.webhooks.deliver(id), 30_000)).toBe('sent');
  expect(hanging.requests.length).toBe(MAX_IN_FLIGHT);
});

it(
  "a business under its share is not deferred because other businesses' first claims run at the same time",
  { timeout: 60_000 },
  async () => {
    const busy = await wallet('Busy', hanging.url);
    const others = await Promise.all(Array.from({ length: 7 }, (_, i) => wallet(`Other ${i}`, healthy.url)));
    const first = await single(busy, 'busy-1');
    const second = await single(busy, 'busy-2');
    const theirs = await Promise.all(others.map((w, i) => single(w, `other-${i}`)));
    const before = hanging.requests.length;
    leave(h.services.webhooks.deliver(first));
    await hanging.waitForRequests(before + 1, 20_000);
    // In one tick: the seven others' jobs, then the busy business's second (it runs 1 of its 8).
    const calls = theirs.map((id) => h.services.webhooks.deliver(id));
    leave(h.services.webhooks.deliver(second));
    expect(await Promise.all(calls)).toEqual(theirs.map(() => 'sent'));
    // Sent, not deferred (no worker runs here to take a deferred job up again).
    await hanging.waitForRequests(before + 2, 20_000);
  },
);

it('a batch job with nothing due ends while another business is at its share', { timeout: 60_000 }, async () => {
  const busy = await wallet('At share', hanging.url);
  const calm = await wallet('Calm', healthy.url);
  const before = hanging.requests.length;
  // The busy business at its share: PER_BUSINESS_JOBS jobs, all hanging.
  for (let i = 0; i < PER_BUSINESS_JOBS; i++) leave(h.services.webhooks.deliver(await single(busy, `at-share-${i}`)));
  await hanging.waitForRequests(before + PER_BUSINESS_JOBS, 20_000);
  const calmBatch = await batch(calm, 1, 'calm');
  expect(await within(h.services.webhooks.deliverBatch(calmBatch), 20_000)).toBe(1);
  // Again: its delivery is not due any more. The job weighs (the busy business left out),
  // finds nothing, and must end rather than weigh again and again.
  expect(await within(h.services.webhooks.deliverBatch(calmBatch), 20_000)).toBe(0);
});
