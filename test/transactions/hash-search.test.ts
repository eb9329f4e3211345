/**
 * A transaction found by its hash however a client writes it: hex in any case, with or without
 * 0x (Tron shows its txID without), in the history's filter and in the dashboard's search alike
 * (the search compared lower-cased text: 0x-less or base58 spellings found nothing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';

const SLUG = 'devnet-eth';
let h: Harness;
let hash: string;
let id: string;

beforeAll(async () => {
  h = await startHarness({ specs: DEVNET_CHAINS.filter((c) => c.slug === SLUG) });
  const w = h.wallets[SLUG]!;
  const made = await h.api('POST', `/v1/wallets/${w.id}/addresses`, { body: {} });
  expect(made.status, JSON.stringify(made.body)).toBe(200);
  const sent = await chainOf(h, SLUG).sendToken('USDC', made.body.data.address, '1');
  const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(SLUG, 'testnet')!);
  const [row] = await eventually(
    async () => {
      await indexer.step();
      return (
        await sql<{
          id: string;
          hash: string;
        }>`SELECT id, hash FROM transactions WHERE type = 'DEPOSIT' AND hash = ${sent.transactionHash}`.execute(h.database.db)
      ).rows;
    },
    (rows) => rows.length === 1,
    30_000,
  );
  ({ id, hash } = row!);
}, 90_000);
afterAll(async () => {
  await h?.stop();
});

describe('a transaction found by its hash', () => {
  it('in any case, with or without 0x, in the history and in the dashboard search', async () => {
    const spellings = [hash, hash.toUpperCase().replace(/^0X/, '0x'), hash.slice(2), hash.slice(2).toUpperCase()];
    const auth = (await h.services.apiKeys.authenticate(h.businessKey))!;
    for (const spelt of spellings) {
      const listed = await h.api('GET', `/v1/wallets/${h.wallets[SLUG]!.id}/transactions?hash=${spelt}`);
      expect(listed.status, spelt).toBe(200);
      expect(
        listed.body.data.map((t: { id: string }) => t.id),
        spelt,
      ).toEqual([id]);
      const found = await h.services.transactions.search(auth, { hash: spelt }, 1, 50);
      expect(
        found.items.map((t) => t.id),
        spelt,
      ).toEqual([id]);
    }
    // Another hash finds nothing.
    expect((await h.services.transactions.search(auth, { hash: `0x${'1'.repeat(64)}` }, 1, 50)).items).toEqual([]);
  });
});
