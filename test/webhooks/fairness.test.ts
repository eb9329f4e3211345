/**
 * One tenant's slow receiver does not hold every sender: a business runs at most
 * PER_BUSINESS_JOBS delivery jobs at once in a process; its further jobs are queued again a
 * moment later instead of each holding a worker slot while other tenants' events queue
 * behind them.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PER_BUSINESS_JOBS } from '../../src/modules/webhooks/delivery.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

let h: Harness;
let hanging: Receiver;
let quick: Receiver;

beforeAll(async () => {
  // Attempts outlast the test: none of the hung ones ends before the other tenant's event
  // (the waits below, 45 s each on a machine busy enough to need them, stay within it).
  [h, hanging, quick] = await Promise.all([
    startHarness({ worker: true, sender: { timeoutMs: 120_000 } }),
    startReceiver(),
    startReceiver(),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([hanging?.close(), quick?.close()]);
  await h?.stop();
});

describe('webhook senders are shared fairly between tenants', () => {
  it("another business's event goes out while one business's receiver hangs on a flood of them", { timeout: 150_000 }, async () => {
    const noisy = h.wallets['devnet-eth']!;
    const other = await h.services.businesses.create('Quiet Business');
    const created = await h.api('POST', '/v1/wallets', {
      key: other.apiKey,
      body: { blockchain: 'devnet-eth', network: 'testnet', name: 'quiet' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const quiet = { id: created.body.data.id as string, apiKey: created.body.apiKey ?? created.body.data.apiKey };
    for (const [w, url] of [
      [noisy, hanging.url],
      [quiet, quick.url],
    ] as const) {
      const res = await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { webhookUrl: url } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const flood = PER_BUSINESS_JOBS + 30;
    hanging.script(...Array.from({ length: flood }, () => ({ kind: 'hang' as const })));
    for (let i = 0; i < flood; i++) {
      const res = await h.api('POST', `/v1/wallets/${noisy.id}/webhooks/trigger`, {
        key: noisy.apiKey,
        body: { event: 'deposit.success' },
      });
      expect(res.status).toBe(200);
    }
    await hanging.waitForRequests(PER_BUSINESS_JOBS, 45_000);
    const sent = await h.api('POST', `/v1/wallets/${quiet.id}/webhooks/trigger`, { key: quiet.apiKey, body: { event: 'deposit.success' } });
    expect(sent.status).toBe(200);
    await quick.waitForRequests(1, 45_000);
    // By then the noisy business had at most its share of jobs (one attempt each) made; the rest still wait.
    const { rows } = await sql<{ attempted: string; waiting: string }>`
      SELECT count(*) FILTER (WHERE attempts > 0)::text AS attempted, count(*) FILTER (WHERE attempts = 0)::text AS waiting
        FROM webhook_deliveries WHERE wallet_id = ${noisy.id}`.execute(h.database.db);
    expect(Number(rows[0]!.attempted)).toBeLessThanOrEqual(PER_BUSINESS_JOBS);
    expect(Number(rows[0]!.waiting)).toBeGreaterThanOrEqual(flood - PER_BUSINESS_JOBS);
  });
});
