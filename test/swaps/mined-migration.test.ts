/**
 * Migration 041 renames the block id of a swap's kept mined transaction (swaps.plan.mined,
 * outbound/service.ts MinedRecord) from `blockHash` to `blockId`: a swap mined before the
 * upgrade and settled after it must read the same figures. Run here with the migration's
 * own SQL (read from the file) on rows written in the old layout, in a temporary `swaps`
 * (first on the session's search path) holding only the column it rewrites.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minedOfRecord, type MinedRecord } from '../../src/modules/outbound/service.js';
import { createDatabaseFromTemplate, dropDatabase } from '../support/harness.js';

let url: string;
let client: pg.Client;

beforeAll(async () => {
  url = await createDatabaseFromTemplate();
  client = new pg.Client({ connectionString: url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  if (url) await dropDatabase(url);
});

describe('migration 041: a swap mined before the upgrade', () => {
  it('is read back with the same hash, block and fee figures; other plans are left as they were', async () => {
    const migration = readFileSync(new URL('../../src/db/migrations/041_mined_record_block_id.sql', import.meta.url), 'utf8');
    await client.query('CREATE TEMP TABLE swaps (id int PRIMARY KEY, plan jsonb NOT NULL)');
    const old = { hash: '0xabc', blockNumber: '12', blockHash: '0xdef', gasUsed: '21000', gasPrice: '3000000000' };
    const notMined = { depth: 1, legs: ['swap'] };
    await client.query('INSERT INTO swaps VALUES (1, $1), (2, $2)', [{ depth: 3, mined: old }, notMined]);
    await client.query(migration);
    const { rows } = await client.query<{ id: number; plan: { depth: number; mined?: MinedRecord } }>(
      'SELECT id, plan FROM swaps ORDER BY id',
    );
    expect(rows[0]!.plan).toEqual({
      depth: 3,
      mined: { hash: '0xabc', blockNumber: '12', blockId: '0xdef', gasUsed: '21000', gasPrice: '3000000000' },
    });
    expect(minedOfRecord(rows[0]!.plan.mined!)).toEqual({
      hash: '0xabc',
      block: { number: 12n, hash: '0xdef' },
      gasUsed: 21_000n,
      gasPrice: 3_000_000_000n,
    });
    expect(rows[1]!.plan).toEqual(notMined);
    // Run again (nothing of the old layout left): nothing changes.
    await client.query(migration);
    const again = await client.query('SELECT id, plan FROM swaps ORDER BY id');
    expect(again.rows).toEqual(rows);
  });
});
