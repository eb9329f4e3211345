/**
 * The claim statement's contract (attempts-store.ts, claimAttempts), statement by statement on
 * the real database: each business's deliveries in turn and in id order, businesses at their
 * share left out, and only the rows a claim takes locked, so a second claim of the same batch
 * made while the first one's transaction is still open takes the next ones (a claim that
 * locked the whole batch while taking a few would leave the other none, and its job would
 * end as if the batch were done).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as attempts from '../../src/modules/webhooks/attempts-store.js';
import { businessWallet } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
let a: { wallet: string; business: string };
let b: { wallet: string; business: string };

beforeAll(async () => {
  h = await startHarness({});
  // Never called: the claims below are made by hand and nothing is sent.
  const wallet = async (name: string) => {
    const { walletId, businessId } = await businessWallet(h, `Claim ${name}`, `http://localhost:9/${name}`);
    return { wallet: walletId, business: businessId };
  };
  a = await wallet('a');
  b = await wallet('b');
}, 120_000);
afterAll(async () => h?.stop());

/** One batch: `na` deliveries of A, then `nb` of B, in one transaction; their ids per business, in id order. */
async function batchOf(na: number, nb: number, tag: string): Promise<{ batch: string; a: string[]; b: string[] }> {
  await h.services.db.transaction().execute(async (tx) => {
    for (const [walletId, n] of [
      [a.wallet, na],
      [b.wallet, nb],
    ] as const) {
      for (let i = 0; i < n; i++) {
        await h.services.webhooks.emit(tx, { walletId, transactionId: null, name: 'webhook.test', reference: `${tag}-${i}`, data: { i } });
      }
    }
  });
  const { rows } = await sql<{ id: string; wallet_id: string; batch_id: string }>`
    SELECT d.id, d.wallet_id, d.batch_id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
     WHERE e.reference LIKE ${`${tag}-%`} ORDER BY d.id`.execute(h.database.db);
  expect(new Set(rows.map((r) => r.batch_id)).size).toBe(1);
  return {
    batch: rows[0]!.batch_id,
    a: rows.filter((r) => r.wallet_id === a.wallet).map((r) => r.id),
    b: rows.filter((r) => r.wallet_id === b.wallet).map((r) => r.id),
  };
}

const claim = (db: Parameters<typeof attempts.claimAttempts>[0], batch: string, limit: number, skipBusinesses: string[] = []) =>
  attempts.claimAttempts(db, { batch, now: new Date(), limit, retryDelaysMs: [60_000], finalGraceMs: 60_000, skipBusinesses });

const ids = (claimed: { attempts: { id: string }[] }) => claimed.attempts.map((r) => r.id).sort();

it("takes each business's deliveries in turn, each business's in id order", async () => {
  const batch = await batchOf(6, 2, 'turns');
  expect(ids(await claim(h.services.db, batch.batch, 4))).toEqual([batch.a[0], batch.a[1], batch.b[0], batch.b[1]].sort());
  expect(ids(await claim(h.services.db, batch.batch, 3))).toEqual(batch.a.slice(2, 5).sort());
  expect(ids(await claim(h.services.db, batch.batch, 3))).toEqual([batch.a[5]]);
  expect((await claim(h.services.db, batch.batch, 3)).attempts).toEqual([]);
});

it('leaves out the businesses it is told to skip', async () => {
  const batch = await batchOf(3, 3, 'skip');
  expect(ids(await claim(h.services.db, batch.batch, 10, [a.business]))).toEqual([...batch.b].sort());
  expect(ids(await claim(h.services.db, batch.batch, 10))).toEqual([...batch.a].sort());
});

it("locks only what it takes: a claim made while another's transaction is open takes the next ones", async () => {
  const batch = await batchOf(10, 0, 'locks');
  let second: string[] = [];
  await h.services.db.transaction().execute(async (tx) => {
    const first = ids(await claim(tx, batch.batch, 3));
    expect(first).toEqual(batch.a.slice(0, 3).sort());
    // Another connection, while the first claim's rows are still locked.
    second = ids(await claim(h.services.db, batch.batch, 3));
  });
  expect(second).toEqual(batch.a.slice(3, 6).sort());
  // Every attempt was counted once.
  const { rows } = await sql<{ attempts: number }>`
    SELECT attempts FROM webhook_deliveries WHERE id = ANY(${batch.a}::uuid[]) ORDER BY id`.execute(h.database.db);
  expect(rows.map((r) => r.attempts)).toEqual([1, 1, 1, 1, 1, 1, 0, 0, 0, 0]);
});
