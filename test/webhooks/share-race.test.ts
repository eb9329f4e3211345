/**
 * A burst of one business's delivery jobs starting together: each job's first claim weighed
 * the business's share before any of them had counted its job, so all of them could come back
 * with that business and it ran more than PER_BUSINESS_JOBS jobs (seen in CI as 9 of 8 in
 * fairness.test.ts, where the worker picks up many jobs at once). Here the jobs are started
 * by hand, all in the same tick, without a worker, so the race is certain, not likely.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PER_BUSINESS_JOBS } from '../../src/modules/webhooks/delivery.js';
import { businessWallet } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

let h: Harness;
let hanging: Receiver;

beforeAll(async () => {
  // The hung attempts outlast the test; closing the receiver ends them.
  [h, hanging] = await Promise.all([startHarness({ sender: { timeoutMs: 120_000 } }), startReceiver({ kind: 'hang' })]);
}, 120_000);
afterAll(async () => {
  await hanging?.close();
  await h?.stop();
});

/** A new business with a wallet whose webhook URL hangs. */
const hangingWallet = async (name: string) => (await businessWallet(h, name, hanging.url)).walletId;

/** Resolves with the results of the calls that end (deferred ones), once `n` have. */
function firstSettled<T>(calls: Promise<T>[], n: number, timeoutMs: number): Promise<T[]> {
  const ended: T[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${ended.length} of ${n} calls ended in ${timeoutMs} ms`)), timeoutMs);
    for (const call of calls) {
      call.then(
        (r) => {
          ended.push(r);
          if (ended.length === n) {
            clearTimeout(timer);
            resolve(ended);
          }
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    }
  });
}

async function attempted(walletId: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    SELECT count(*)::text AS n FROM webhook_deliveries WHERE wallet_id = ${walletId} AND attempts > 0`.execute(h.database.db);
  return Number(rows[0]!.n);
}

const extra = 4;

it('single-delivery jobs started together run no more than the share of their business', { timeout: 90_000 }, async () => {
  const walletId = await hangingWallet('Burst One');
  const before = hanging.requests.length;
  // Written outside a transaction: one job (and no batch) per delivery.
  for (let i = 0; i < PER_BUSINESS_JOBS + extra; i++) {
    await h.services.webhooks.emit(h.services.db, {
      walletId,
      transactionId: null,
      name: 'webhook.test',
      reference: `one-${i}`,
      data: { i },
    });
  }
  const { rows } = await sql<{ id: string }>`SELECT id FROM webhook_deliveries WHERE wallet_id = ${walletId}`.execute(h.database.db);
  expect(rows).toHaveLength(PER_BUSINESS_JOBS + extra);
  const calls = rows.map((r) => h.services.webhooks.deliver(r.id));
  const ended = await firstSettled(calls, extra, 20_000);
  expect(ended).toEqual(Array.from({ length: extra }, () => 'deferred'));
  await hanging.waitForRequests(before + PER_BUSINESS_JOBS, 30_000);
  expect(await attempted(walletId)).toBe(PER_BUSINESS_JOBS);
});

it('batch jobs started together run no more than the share of their business', { timeout: 90_000 }, async () => {
  const walletId = await hangingWallet('Burst Batch');
  const before = hanging.requests.length;
  // One transaction each: one batch (and job) per delivery.
  for (let i = 0; i < PER_BUSINESS_JOBS + extra; i++) {
    await h.services.db
      .transaction()
      .execute((tx) =>
        h.services.webhooks.emit(tx, { walletId, transactionId: null, name: 'webhook.test', reference: `batch-${i}`, data: { i } }),
      );
  }
  const { rows } = await sql<{ batch_id: string }>`
    SELECT batch_id FROM webhook_deliveries WHERE wallet_id = ${walletId}`.execute(h.database.db);
  expect(new Set(rows.map((r) => r.batch_id)).size).toBe(PER_BUSINESS_JOBS + extra);
  const calls = rows.map((r) => h.services.webhooks.deliverBatch(r.batch_id));
  const ended = await firstSettled(calls, extra, 20_000);
  expect(ended).toEqual(Array.from({ length: extra }, () => 'deferred'));
  await hanging.waitForRequests(before + PER_BUSINESS_JOBS, 30_000);
  expect(await attempted(walletId)).toBe(PER_BUSINESS_JOBS);
});
