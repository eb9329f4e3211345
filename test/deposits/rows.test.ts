/**
 * The indexer builds the rows of the deposits it inserts in memory (the insert returns only
 * ids, timestamps and metadata), and their webhook bodies from those rows. This checks the
 * built rows are exactly what the table then holds, column for column, and present the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { uuidv7, shortReference } from '../../src/lib/ids.js';
import * as store from '../../src/modules/transactions/deposit-store.js';
import type { NewDeposit } from '../../src/modules/transactions/service.js';
import type { TransactionRow } from '../../src/modules/transactions/service.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
// Columns the service does not read (no field of TransactionRow): written by other modules.
const POLICY_COLUMNS = ['policy_type', 'policy_asset_id', 'policy_amount', 'policy_amount_usd', 'policy_destination'];
const UNREAD_COLUMNS = ['sweep_id', 'reserved_fee', 'quoted_fee', 'send_network', ...POLICY_COLUMNS];
/** A stored row without the columns the service does not read. */
const readable = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).filter(([k]) => !UNREAD_COLUMNS.includes(k)));

beforeAll(async () => {
  h = await startHarness({ worker: false });
});
afterAll(async () => {
  await h?.stop();
});

/** `blockNumber`: the block the deposit was found in (its hash random). */
function deposit({ blockNumber = 41n, ...over }: Partial<NewDeposit> & { blockNumber?: bigint }): NewDeposit {
  const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
  const usdc = chain.assets.find((a) => a.symbol === 'USDC')!;
  return {
    id: uuidv7(),
    walletId: h.wallets['devnet-eth']!.id,
    addressId: null,
    assetId: usdc.id,
    chainId: chain.id,
    reference: shortReference(),
    amount: 1_234_567n,
    amountUsd: '1.234567',
    currency: 'USDC',
    hash: generatePrivateKey(), // any 32-byte hex
    logIndex: 3,
    block: { number: blockNumber, hash: generatePrivateKey() },
    from: privateKeyToAccount(generatePrivateKey()).address,
    to: h.wallets['devnet-eth']!.address,
    token: usdc.address,
    network: 'testnet',
    ...over,
  };
}

async function stored(ids: string[]): Promise<Record<string, unknown>[]> {
  const { rows } = await sql<Record<string, unknown>>`SELECT * FROM transactions WHERE id = ANY(${ids}::uuid[]) ORDER BY id`.execute(
    h.database.db,
  );
  return rows;
}

describe('deposit rows built by insertDeposits', () => {
  it('equal the stored rows column for column (child with metadata, master, native; pending and written confirmed) and present the same', async () => {
    const w = h.wallets['devnet-eth']!;
    const res = await h.api('POST', `/v1/wallets/${w.id}/addresses`, { key: w.apiKey, body: { metadata: { customer: 'c-42', tier: 2 } } });
    expect(res.status).toBe(200);
    const child = res.body.data as { id: string; address: string };
    const native = h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.is_native)!;
    const ds = [
      deposit({ addressId: child.id, to: child.address, blockNumber: 40n }), // 3 confirmations at head 42: confirmed
      deposit({ blockNumber: 42n }), // 1 confirmation: pending
      deposit({
        assetId: native.id,
        token: null,
        currency: native.symbol,
        amountUsd: null,
        logIndex: -1,
        amount: 10n ** 18n,
        blockNumber: 41n,
      }),
    ];
    const built = await h.database.db.transaction().execute((tx) => store.insertDeposits(tx, ds, { head: 42n, final: 40n }));
    expect(built.map((r) => r.id)).toEqual(ds.map((d) => d.id));
    expect(built.map((r) => [r.status, r.confirmations])).toEqual([
      ['SUCCESS', 3],
      ['PENDING', 1],
      ['PENDING', 2],
    ]);
    const rows = await stored(ds.map((d) => d.id));
    for (const row of rows) {
      const mine = built.find((b) => b.id === row.id)!;
      // Every column the table has is in the built row, with the same value.
      expect(
        Object.keys(row)
          .filter((k) => !(k in mine))
          .sort(),
      ).toEqual([...UNREAD_COLUMNS].sort());
      expect(mine).toEqual(readable(row));
    }
    expect(built[0]!.metadata).toEqual({ customer: 'c-42', tier: 2 });
    const present = (rs: TransactionRow[]) => h.services.transactions.presentMany(rs);
    expect(await present(built)).toEqual(await present(rows as unknown as TransactionRow[]));

    // Without a depth (the deposit finder): PENDING with no confirmations yet, as stored.
    const found = [deposit({ addressId: child.id, to: child.address })];
    const builtFound = await h.database.db.transaction().execute((tx) => store.insertDeposits(tx, found));
    expect(builtFound).toMatchObject([{ status: 'PENDING', stage: 'mined', confirmed: false, confirmations: 0 }]);
    const [storedFound] = await stored([found[0]!.id]);
    expect(builtFound[0]).toEqual(readable(storedFound!));

    // Inserted again (a replayed range): nothing written, nothing returned.
    const again = await h.database.db.transaction().execute((tx) => store.insertDeposits(tx, ds, { head: 50n, final: 48n }));
    expect(again).toEqual([]);
    expect(await stored(ds.map((d) => d.id))).toEqual(rows);
  });

  it('failDeposit fails a deposit only if still PENDING in the block it was read in (a range may have seen it before another moved it)', async () => {
    const d = deposit({ blockNumber: 60n });
    await h.database.db.transaction().execute((tx) => store.insertDeposits(tx, [d], { head: 60n, final: 58n }));
    const reason = 'The block holding this deposit was replaced (chain reorganisation)';
    // Re-mined in another block since it was read: left alone.
    expect(await store.failDeposit(h.database.db, { id: d.id, block_hash: generatePrivateKey() }, reason)).toBe(false);
    expect(await stored([d.id])).toMatchObject([{ status: 'PENDING', reason: null }]);
    expect(await store.failDeposit(h.database.db, { id: d.id, block_hash: d.block.hash }, reason)).toBe(true);
    expect(await stored([d.id])).toMatchObject([{ status: 'FAILED', stage: 'reorged', reason }]);
    // Already failed: nothing more (no second deposit.failed).
    expect(await store.failDeposit(h.database.db, { id: d.id, block_hash: d.block.hash }, reason)).toBe(false);
  });
});
