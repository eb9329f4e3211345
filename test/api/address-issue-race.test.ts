/**
 * A child address asked for while the wallet is being deactivated (or its address issuance
 * switched off): once that change has committed, no address is issued (docs/api.md: "a
 * wallet with isActive: false issues none either"; `addresses.isActive: false` stops new
 * child addresses, 422 ADDRESSES_DISABLED). The request checked the wallet when it arrived;
 * the PATCH's transaction holds the wallet's row while it writes, and the issuing
 * transaction waits for that row: what it then issues must follow what was committed.
 *
 * The PATCH is played by a transaction of our own doing what wallets/service.ts `update`
 * does (the row locked, the change written, COMMIT), held open until the request is seen
 * waiting for the row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ specs: [DEVNET_CHAINS[0]!] });
}, 120_000);

afterAll(async () => {
  await h?.stop();
});

const wallet = () => h.wallets['devnet-eth']!;

async function addresses(): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM addresses WHERE wallet_id = ${wallet().id} AND type = 'INTERNAL'`.execute(h.database.db);
  return rows[0]!.n;
}

/** Whether some session waits for a row lock (the issuing transaction, on the wallet's row). */
async function someoneWaits(client: pg.Client): Promise<boolean> {
  const { rows } = await client.query(
    `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
  );
  return rows.length > 0;
}

/** POST an address while a transaction holding the wallet's row commits `change`; the POST's answer. */
async function raced(change: string) {
  const client = new pg.Client({ connectionString: h.databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT id FROM wallets WHERE id = $1 FOR NO KEY UPDATE', [wallet().id]);
    const pending = h.api('POST', `/v1/wallets/${wallet().id}/addresses`, { body: { name: 'raced' } });
    for (let i = 0; i < 500 && !(await someoneWaits(client)); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await someoneWaits(client), 'the request waits for the wallet row').toBe(true);
    await client.query(change, [wallet().id]);
    await client.query('COMMIT');
    return await pending;
  } finally {
    await client.end();
  }
}

describe('a deactivation committed while an address is being issued', () => {
  it('the wallet deactivated meanwhile: 422 WALLET_INACTIVE, no address issued', async () => {
    const before = await addresses();
    try {
      const res = await raced(`UPDATE wallets SET is_active = false, updated_at = now() WHERE id = $1`);
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(422);
      expect((res.body as any).error).toBe('WALLET_INACTIVE');
      expect(await addresses()).toBe(before);
    } finally {
      const back = await h.api('PATCH', `/v1/wallets/${wallet().id}`, { key: h.businessKey, body: { isActive: true } });
      expect(back.status).toBe(200);
    }
  });

  it('issuance switched off meanwhile: 422 ADDRESSES_DISABLED, no address issued', async () => {
    const before = await addresses();
    try {
      const res = await raced(
        `UPDATE wallets SET configurations = jsonb_set(coalesce(configurations, '{}'::jsonb), '{addresses}',
           coalesce(configurations->'addresses', '{}'::jsonb) || '{"isActive": false}'::jsonb), updated_at = now() WHERE id = $1`,
      );
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(422);
      expect((res.body as any).error).toBe('ADDRESSES_DISABLED');
      expect(await addresses()).toBe(before);
    } finally {
      const back = await h.api('PATCH', `/v1/wallets/${wallet().id}`, {
        key: h.businessKey,
        body: { configurations: { addresses: { isActive: true } } },
      });
      expect(back.status, JSON.stringify(back.body)).toBe(200);
    }
  });

  it('without a change the address is issued', async () => {
    const before = await addresses();
    const res = await h.api('POST', `/v1/wallets/${wallet().id}/addresses`, { body: { name: 'plain' } });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    expect(await addresses()).toBe(before + 1);
  });
});
