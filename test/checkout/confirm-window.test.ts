/**
 * A session settles when its payment is confirmed within the monitoring window, however late
 * it is next recomputed: the service keeps when it saw each payment confirmed
 * (checkout_payments.confirmed_at, migration 065). Before, the recompute's own clock decided:
 * with the worker a moment behind, a payment confirmed a second before the window ended left
 * the session `invalid` when it was read two seconds after. Confirmed after the window, it is
 * still `invalid`. EVM devnet, the real indexer, the service on a manual clock.
 */
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf } from '../support/chain.js';

const SLUG = 'devnet-eth';
let h: Harness;
const clock = new ManualClock(Date.now());

beforeAll(async () => {
  h = await startHarness({ worker: true, clock });
  const w = h.wallets[SLUG]!;
  // No sweep moves the payments while the clock jumps.
  const patched = await h.api('PATCH', `/v1/wallets/${w.id}`, {
    key: w.apiKey,
    body: { configurations: { autoSweeping: { isActive: false } } },
  });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

const key = () => h.wallets[SLUG]!.apiKey;
const eth = () => chainOf(h, SLUG);

async function indexAll() {
  const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(SLUG, 'testnet')!);
  for (let i = 0; i < 100 && (await indexer.step()) !== 'idle'; i++);
}

const checkout = async (id: string) => (await h.api('GET', `/v1/checkouts/${id}`, { key: key() })).body.data as Record<string, any>;

const payments = async (id: string) =>
  (
    await sql<{ status: string; confirmed_at: Date | null }>`SELECT t.status, p.confirmed_at FROM checkout_payments p
      JOIN transactions t ON t.id = p.transaction_id WHERE p.checkout_id = ${id}`.execute(h.database.db)
  ).rows;

/** A session of a link taking 3 USDC, its payment seen a minute in; the worker stopped (behind). */
async function seenSession(): Promise<{ id: string; monitorUntil: number }> {
  const link = await h.api('POST', '/v1/payment_links', {
    key: key(),
    body: { name: 'Window', amount: '3', configurations: { expiresInMinutes: 10, monitoringMinutes: 10 } },
  });
  expect(link.status, JSON.stringify(link.body)).toBe(200);
  const c = (await h.api('POST', `/v1/payment_links/${link.body.data.id}/checkouts`, { key: key(), body: { asset: 'USDC' } })).body.data;
  await indexAll();
  await h.stopWorker();
  clock.advance(60_000);
  await eth().sendToken('USDC', c.address, '3');
  await indexAll();
  // Attached as the indexer recorded it (the job that moves the session on waits for the worker).
  expect(await payments(c.id)).toEqual([{ status: 'PENDING', confirmed_at: null }]);
  return { id: c.id, monitorUntil: new Date(c.monitorUntil).getTime() };
}

const sessions: { inWindow?: string; after?: string } = {};

describe('confirmations and the monitoring window', () => {
  it('confirmed a second before the window ends, read two seconds after it: settled, told once', async () => {
    const s = await seenSession();
    sessions.inWindow = s.id;
    try {
      clock.set(s.monitorUntil - 1_000);
      await eth().mine(2);
      await indexAll();
      expect(await payments(s.id)).toEqual([{ status: 'SUCCESS', confirmed_at: new Date(s.monitorUntil - 1_000) }]);
      clock.advance(2_000);
      expect(await checkout(s.id)).toMatchObject({ status: 'settled', amountConfirmed: '3' });
    } finally {
      await h.startWorker();
    }
    // The job the confirmation queued finds it settled already: checkout.settled once, no invalid.
    const events = async () =>
      (
        await sql<{ name: string }>`SELECT name FROM events WHERE reference = ${s.id} OR body::jsonb -> 'data' ->> 'id' = ${s.id}
          ORDER BY created_at`.execute(h.database.db)
      ).rows.map((r) => r.name);
    await expect.poll(events, { timeout: 20_000 }).toContain('checkout.settled');
    expect((await events()).filter((n) => n === 'checkout.settled' || n === 'checkout.invalid')).toEqual(['checkout.settled']);
  });

  it('confirmed only after the window ended: invalid, the payment kept unconfirmed for the session', async () => {
    const s = await seenSession();
    sessions.after = s.id;
    try {
      clock.set(s.monitorUntil + 1_000);
      await eth().mine(2);
      await indexAll();
      expect(await payments(s.id)).toEqual([{ status: 'SUCCESS', confirmed_at: null }]);
      expect(await checkout(s.id)).toMatchObject({ status: 'invalid' });
    } finally {
      await h.startWorker();
    }
  });

  it("migration 065: a payment confirmed before the column gets its transaction's last change, when within the window; run twice, the same", async () => {
    const ids = [sessions.inWindow!, sessions.after!];
    const before = await Promise.all(ids.map(payments));
    await sql`UPDATE checkout_payments SET confirmed_at = NULL WHERE checkout_id = ANY(${ids}::uuid[])`.execute(h.database.db);
    // The transactions' last change as one clock would have written it (the database's clock
    // wrote them here, while the service ran on the manual one): a second before the session's
    // window ended for the first, a second after it for the second.
    for (const [id, offset] of [
      [sessions.inWindow!, '-1 second'],
      [sessions.after!, '1 second'],
    ] as const) {
      await sql`UPDATE transactions t SET updated_at = c.monitor_until + ${offset}::interval FROM checkout_payments p, checkouts c
        WHERE p.transaction_id = t.id AND c.id = p.checkout_id AND c.id = ${id}`.execute(h.database.db);
    }
    const file = readFileSync(new URL('../../src/db/migrations/065_checkout_payment_confirmed_at.sql', import.meta.url), 'utf8');
    const backfill = file.slice(file.indexOf('UPDATE checkout_payments'));
    for (let i = 0; i < 2; i++) await sql.raw(backfill).execute(h.database.db);
    const { rows } = await sql<{ checkout_id: string; confirmed_at: Date | null; updated_at: Date }>`
      SELECT p.checkout_id, p.confirmed_at, t.updated_at FROM checkout_payments p JOIN transactions t ON t.id = p.transaction_id
       WHERE p.checkout_id = ANY(${ids}::uuid[])`.execute(h.database.db);
    const of = (id: string) => rows.find((r) => r.checkout_id === id)!;
    expect(of(sessions.inWindow!).confirmed_at).toEqual(of(sessions.inWindow!).updated_at);
    expect(of(sessions.inWindow!).confirmed_at).toEqual(before[0]![0]!.confirmed_at);
    expect(of(sessions.after!).confirmed_at).toBeNull();
  });
});
