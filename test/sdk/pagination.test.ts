/**
 * `for await` over a page-numbered list (newest first) while rows are inserted: a row written
 * between two page reads shifts the rest down by one, so the next page began with the last
 * item already read; the iterator now yields each item once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WalletClient } from '../../packages/sdk/src/index.js';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';

let h: Harness;
let w: TestWallet;

beforeAll(async () => {
  h = await startHarness({ specs: undefined });
  w = h.wallets['devnet-eth']!;
});
afterAll(async () => h?.stop());

describe('paged iteration while rows are inserted', () => {
  it('yields every address once', async () => {
    const client = new WalletClient({ baseUrl: h.baseUrl, apiKey: w.apiKey });
    for (let i = 0; i < 4; i++) await client.addresses.create(w.id, { name: `a${i}` });
    const seen: string[] = [];
    let inserted = false;
    for await (const a of client.addresses.list(w.id, { limit: 2 })) {
      seen.push(a.id);
      // A customer signs up while the loop runs (after the first page was read).
      if (!inserted && seen.length === 2) {
        inserted = true;
        await client.addresses.create(w.id, { name: 'new customer' });
      }
    }
    const dupes = seen.filter((id, i) => seen.indexOf(id) !== i);
    expect(dupes).toEqual([]);
  }, 60_000);
});
