/**
 * The indexer's watch set follows address changes by writer transaction id: an address
 * written by a transaction that commits late (after later ones were seen, with an old
 * timestamp) is still picked up, removals and re-additions are followed, and a refresh
 * with no change reads nothing.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { uuidv7 } from '../../src/lib/ids.js';
import { WatchSet } from '../../src/modules/deposits/watch.js';
import { eachLiveAddressPage, watchedChanges } from '../../src/modules/deposits/store.js';
import { startHarness, type Harness } from '../support/harness.js';
import { eventually } from '../support/fixtures.js';

let h: Harness;
let chainId: string;
let walletId: string;
let nextIndex = 1_000_000;

beforeAll(async () => {
  h = await startHarness({});
  const wallet = await h.services.wallets.requireRow(h.wallets['devnet-eth']!.id);
  walletId = wallet.id;
  chainId = wallet.chain_id;
});
afterAll(async () => {
  await h?.stop();
});

const randomAddress = () => `0x${randomBytes(20).toString('hex')}`;

/** Inserts a child address row in `client`'s current transaction, stamped a day ago. */
async function insertAddress(client: pg.Client, address: string): Promise<string> {
  const id = uuidv7();
  const index = nextIndex++;
  await client.query(
    `INSERT INTO addresses (id, wallet_id, chain_id, derivation_index, address, type, derivation_path, configurations, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, 'INTERNAL', $6, '{}'::jsonb, now() - interval '1 day', now() - interval '1 day')`,
    [id, walletId, chainId, index, address, `m/44'/60'/0'/0/${index}`],
  );
  return id;
}

async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: h.databaseUrl });
  await client.connect();
  return client;
}

it('picks up a late-committing writer, follows removal and re-adding, and reads nothing when idle', async () => {
  const watch = new WatchSet(h.services.db, chainId);
  await watch.refresh();
  const before = watch.size;

  const slow = await connect();
  const quick = await connect();
  try {
    const late = randomAddress();
    const early = randomAddress();
    // The slow writer starts first and commits last.
    await slow.query('BEGIN');
    await insertAddress(slow, late);
    await quick.query('BEGIN');
    const earlyId = await insertAddress(quick, early);
    await quick.query('COMMIT');

    await watch.refresh();
    expect(watch.has(early)).toBe(true);
    expect(watch.has(late)).toBe(false);

    await slow.query('COMMIT');
    await watch.refresh();
    expect(watch.has(late)).toBe(true);
    expect(watch.size).toBe(before + 2);

    // Nothing written since: the incremental read returns no rows. The horizon is the
    // oldest transaction running in the whole cluster, and other test files share it, so
    // their open transactions may hold it below our writes for a moment: wait for them.
    await watch.refresh();
    await eventually(
      async () => {
        const horizon = (await watchedChanges(h.services.db, chainId, null)).horizon;
        return (await watchedChanges(h.services.db, chainId, horizon)).rows;
      },
      (rows) => rows.length === 0,
      20_000,
    );

    // Removal (soft) and re-adding of the same row.
    await quick.query('UPDATE addresses SET deleted_at = now() WHERE id = $1', [earlyId]);
    await watch.refresh();
    expect(watch.has(early)).toBe(false);
    await quick.query('UPDATE addresses SET deleted_at = NULL WHERE id = $1', [earlyId]);
    await watch.refresh();
    expect(watch.owners(early)).toEqual([{ walletId, addressId: earlyId, internal: true }]);
  } finally {
    await slow.end();
    await quick.end();
  }
});

it('a full load reads every live address of the chain once, a page at a time, and none removed', async () => {
  const client = await connect();
  let removed: string;
  try {
    await client.query('BEGIN');
    for (let i = 0; i < 7; i++) await insertAddress(client, randomAddress());
    removed = await insertAddress(client, randomAddress());
    await client.query('UPDATE addresses SET deleted_at = now() WHERE id = $1', [removed]);
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
  const { rows: live } = await h.database.pool.query<{ id: string }>(
    'SELECT id FROM addresses WHERE chain_id = $1 AND deleted_at IS NULL',
    [chainId],
  );
  expect(live.length).toBeGreaterThan(7);
  const pages: number[] = [];
  const seen: string[] = [];
  await eachLiveAddressPage(h.services.db, chainId, 3, (page) => {
    pages.push(page.length);
    seen.push(...page.map((r) => r.id));
  });
  expect(seen.sort()).toEqual(live.map((r) => r.id).sort());
  expect(seen).not.toContain(removed!);
  // Full pages until the last, which is short (possibly empty).
  expect(pages.slice(0, -1).every((n) => n === 3)).toBe(true);
  expect(pages.at(-1)!).toBeLessThan(3);
});
