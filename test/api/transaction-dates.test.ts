/**
 * The history's date filters (startDate, endDate: ISO 8601, inclusive) against rows whose
 * created_at PostgreSQL keeps to the microsecond while createdAt shows milliseconds, and
 * dates written with other UTC offsets than Z.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';
import { recordDeposit } from '../support/fixtures.js';

let h: Harness;
let w: TestWallet;
let deposit: string;

/** What the deposit's createdAt shows: its stored time has 456 microseconds more. */
const SHOWN = '2026-03-01T10:00:00.123Z';

beforeAll(async () => {
  h = await startHarness();
  w = h.wallets['devnet-eth']!;
  deposit = (await recordDeposit(h, 'devnet-eth')).id;
  await sql`UPDATE transactions SET created_at = '2026-03-01T10:00:00.123456Z' WHERE id = ${deposit}`.execute(h.database.db);
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

async function ids(query: Record<string, string>): Promise<string[]> {
  const res = await h.api('GET', `/v1/wallets/${w.id}/transactions?${new URLSearchParams(query)}`, { key: w.apiKey });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.map((t: { id: string }) => t.id);
}

describe('GET /v1/wallets/{walletId}/transactions date filters', () => {
  it("an endDate equal to a transaction's createdAt includes it (inclusive, at the precision shown)", async () => {
    const [one] = (await h.api('GET', `/v1/wallets/${w.id}/transactions?id=${deposit}`, { key: w.apiKey })).body.data;
    expect(one.createdAt).toBe(SHOWN);
    expect(await ids({ endDate: SHOWN })).toContain(deposit);
    expect(await ids({ startDate: SHOWN, endDate: SHOWN })).toEqual([deposit]);
    expect(await ids({ endDate: '2026-03-01T10:00:00.122Z' })).not.toContain(deposit);
    expect(await ids({ startDate: '2026-03-01T10:00:00.124Z' })).not.toContain(deposit);
  });

  it('compares startDate and endDate as instants, whatever offsets they are written with', async () => {
    // 07:00Z to 11:00Z: a valid range holding the deposit, though "12:00+05:00" sorts after "11:00Z" as text.
    expect(await ids({ startDate: '2026-03-01T12:00:00+05:00', endDate: '2026-03-01T11:00:00Z' })).toEqual([deposit]);
    // 10:00Z to 09:00Z: start after end, though "10:00Z" sorts before "14:00+05:00" as text.
    const res = await h.api(
      'GET',
      `/v1/wallets/${w.id}/transactions?${new URLSearchParams({ startDate: '2026-03-01T10:00:00Z', endDate: '2026-03-01T14:00:00+05:00' })}`,
      { key: w.apiKey },
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ field: 'startDate' }] });
  });
});
