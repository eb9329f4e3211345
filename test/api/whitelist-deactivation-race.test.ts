/**
 * An outside address registered (`POST .../addresses/whitelist`, with or without its key)
 * while the wallet is being deactivated: once the deactivation is answered, nothing is
 * registered (docs/api.md: a deactivated wallet "issues none either, nor registers an outside
 * address", 422 WALLET_INACTIVE), as child-address issuance already guarantees
 * (address-issue-race.test.ts). The request checks the wallet when it arrives, then screens
 * the address and waits for the registration's lock; a deactivation answered meanwhile must
 * be seen by the transaction that writes the row.
 *
 * The registration is held on its own advisory lock (addresses/store.ts lockRegistration) by
 * a transaction of ours, the PATCH deactivating the wallet is answered meanwhile, then the
 * lock is let go.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { addressKey } from '../../src/chains/address-key.js';
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

async function registered(address: string) {
  const { rows } = await sql<{ n: number; keys: number }>`
    SELECT count(*)::int AS n,
           (SELECT count(*)::int FROM address_keys WHERE lower(address) = lower(${address})) AS keys
      FROM addresses WHERE wallet_id = ${wallet().id} AND lower(address) = lower(${address}) AND deleted_at IS NULL`.execute(h.database.db);
  return rows[0]!;
}

/** Whether another session waits for a lock (the registration, on its advisory lock). */
async function someoneWaits(client: pg.Client): Promise<boolean> {
  const { rows } = await client.query(
    `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
  );
  return rows.length > 0;
}

/** Registers `body` while the wallet is deactivated (answered) under it; the registration's answer. */
async function raced(body: { address: string; privateKey?: string }) {
  const client = new pg.Client({ connectionString: h.databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `address_registration:${wallet().id}:${addressKey(body.address)}`,
    ]);
    const pending = h.api('POST', `/v1/wallets/${wallet().id}/addresses/whitelist`, { body });
    for (let i = 0; i < 500 && !(await someoneWaits(client)); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await someoneWaits(client), 'the registration waits for its lock').toBe(true);
    const off = await h.api('PATCH', `/v1/wallets/${wallet().id}`, { key: h.businessKey, body: { isActive: false } });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    await client.query('COMMIT');
    return await pending;
  } finally {
    await client.end();
  }
}

describe('an outside address registered while the wallet is deactivated', () => {
  for (const withKey of [false, true]) {
    it(`${withKey ? 'with' : 'without'} its key: 422 WALLET_INACTIVE, nothing registered`, async () => {
      const privateKey = generatePrivateKey();
      const address = privateKeyToAccount(privateKey).address;
      try {
        const res = await raced(withKey ? { address, privateKey } : { address });
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(422);
        expect((res.body as any).error).toBe('WALLET_INACTIVE');
        expect(await registered(address)).toEqual({ n: 0, keys: 0 });
      } finally {
        const back = await h.api('PATCH', `/v1/wallets/${wallet().id}`, { key: h.businessKey, body: { isActive: true } });
        expect(back.status).toBe(200);
      }
    });
  }

  it('without a change the address is registered', async () => {
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const res = await h.api('POST', `/v1/wallets/${wallet().id}/addresses/whitelist`, { body: { address } });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    expect(await registered(address)).toEqual({ n: 1, keys: 0 });
  });
});
