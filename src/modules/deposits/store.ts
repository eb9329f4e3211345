import { sql } from 'kysely';
import type { Db, DbConn } from '../../db/pool.js';
import type { BlockRef } from '../../chains/types.js';
import { anyAddress } from '../../db/address-sql.js';
export type { NewDeposit } from '../transactions/service.js';

/** The indexer's place on a chain: the last block it read, and that block's hash (null: not known). */
export interface Cursor {
  number: bigint;
  hash: string | null;
}

export async function readCursor(db: DbConn, chainId: string): Promise<Cursor | null> {
  const { rows } = await sql<{ block_number: string; block_hash: string | null }>`
    SELECT block_number, block_hash FROM chain_cursors WHERE chain_id = ${chainId}`.execute(db);
  const row = rows[0];
  return row ? { number: BigInt(row.block_number), hash: row.block_hash } : null;
}

/** Creates the cursor if missing; returns it locked for the rest of the transaction. */
export async function lockCursor(db: DbConn, chainId: string, initial: Cursor): Promise<Cursor> {
  await sql`INSERT INTO chain_cursors (chain_id, block_number, block_hash) VALUES (${chainId}, ${initial.number}, ${initial.hash})
            ON CONFLICT (chain_id) DO NOTHING`.execute(db);
  const { rows } = await sql<{ block_number: string; block_hash: string | null }>`
    SELECT block_number, block_hash FROM chain_cursors WHERE chain_id = ${chainId} FOR UPDATE`.execute(db);
  return { number: BigInt(rows[0]!.block_number), hash: rows[0]!.block_hash };
}

export async function saveCursor(db: DbConn, chainId: string, cursor: Cursor): Promise<void> {
  await sql`UPDATE chain_cursors SET block_number = ${cursor.number}, block_hash = ${cursor.hash}, updated_at = now()
             WHERE chain_id = ${chainId}`.execute(db);
}

export async function saveBlocks(db: DbConn, chainId: string, blocks: BlockRef[]): Promise<void> {
  if (blocks.length === 0) return;
  await sql`INSERT INTO chain_blocks (chain_id, block_number, block_hash, parent_hash)
            SELECT ${chainId}::uuid, n, h, p FROM unnest(${blocks.map((b) => b.number.toString())}::bigint[], ${blocks.map((b) => b.hash)}::text[], ${blocks.map((b) => b.parentHash)}::text[]) AS t(n, h, p)
            ON CONFLICT (chain_id, block_number) DO UPDATE SET block_hash = excluded.block_hash, parent_hash = excluded.parent_hash`.execute(
    db,
  );
}

/** Forgets blocks above `number` (a reorg rewound past them) or below it (out of the window). */
export async function deleteBlocksAbove(db: DbConn, chainId: string, number: bigint): Promise<void> {
  await sql`DELETE FROM chain_blocks WHERE chain_id = ${chainId} AND block_number > ${number}`.execute(db);
}

export async function deleteBlocksBelow(db: DbConn, chainId: string, number: bigint): Promise<void> {
  await sql`DELETE FROM chain_blocks WHERE chain_id = ${chainId} AND block_number < ${number}`.execute(db);
}

export async function storedBlocksDescending(db: DbConn, chainId: string, below: bigint): Promise<{ number: bigint; hash: string }[]> {
  const { rows } = await sql<{ block_number: string; block_hash: string }>`
    SELECT block_number, block_hash FROM chain_blocks WHERE chain_id = ${chainId} AND block_number <= ${below} ORDER BY block_number DESC`.execute(
    db,
  );
  return rows.map((r) => ({ number: BigInt(r.block_number), hash: r.block_hash }));
}

export interface DepositRow {
  id: string;
  wallet_id: string;
  address_id: string | null;
  asset_id: string | null;
  status: string;
  hash: string;
  log_index: number;
  block_number: string;
  block_hash: string;
  sender_address: string | null;
  recipient_address: string | null;
  token_address: string | null;
  amount: string;
}

const depositColumns = sql`id, wallet_id, address_id, asset_id, status, hash, log_index, block_number, block_hash, sender_address, recipient_address, token_address, amount`;

export async function depositsOfHashes(db: DbConn, chainId: string, hashes: string[]): Promise<DepositRow[]> {
  if (hashes.length === 0) return [];
  const { rows } = await sql<DepositRow>`SELECT ${depositColumns} FROM transactions
     WHERE chain_id = ${chainId} AND type = 'DEPOSIT' AND hash = ANY(${hashes}::text[])`.execute(db);
  return rows;
}

/**
 * The outbound purposes of a swap's router call whose output the pool pays to an address of
 * the swapping wallet: an API swap's (swaps/flow.ts SWAP_PURPOSES.swap) and an
 * auto-settlement's (autosettlements/record.ts PURPOSE.swap).
 */
const SWAP_CALLS = sql`('swap', 'autosettle-swap')`;

export const ownSwapKey = (walletId: string, hash: string) => `${walletId}:${hash}`;

/**
 * Which of these chain transactions are a wallet's own swaps (every version the pipeline
 * signed keeps its row and hash, stored before it was broadcast, so before it can be mined),
 * as ownSwapKey(wallet, hash).
 */
export async function ownSwaps(db: DbConn, chainId: string, hashes: string[]): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  const { rows } = await sql<{ wallet_id: string; hash: string }>`
    SELECT wallet_id, hash FROM outbound_txs
     WHERE chain_id = ${chainId} AND hash = ANY(${hashes}::text[]) AND purpose IN ${SWAP_CALLS}`.execute(db);
  return new Set(rows.map((r) => ownSwapKey(r.wallet_id, r.hash)));
}

export async function pendingDepositsBetween(db: DbConn, chainId: string, from: bigint, to: bigint): Promise<DepositRow[]> {
  const { rows } = await sql<DepositRow>`SELECT ${depositColumns} FROM transactions
     WHERE chain_id = ${chainId} AND type = 'DEPOSIT' AND status = 'PENDING' AND block_number BETWEEN ${from} AND ${to}`.execute(db);
  return rows;
}

export interface WatchedRow {
  address: string;
  wallet_id: string;
  address_id: string | null;
  /** A master or child address: the service holds its key. */
  internal: boolean;
  /** A removed (external) address: no longer watched for this wallet. */
  removed: boolean;
}

/**
 * The chain's watched addresses (masters, live child and external addresses), all of them
 * (`since` null) or those written by transactions with an id >= `since` (removals
 * included). `horizon` is the oldest transaction still running when the rows were read:
 * every row written by an older one was visible to this read, so the next refresh asks
 * `since = horizon` and misses nothing, however late a transaction commits.
 */
export async function watchedChanges(db: DbConn, chainId: string, since: string | null): Promise<{ horizon: string; rows: WatchedRow[] }> {
  const horizonRow = sql`SELECT NULL::text AS address, NULL::uuid AS wallet_id, NULL::uuid AS address_id, false AS internal, false AS removed,
                                pg_snapshot_xmin(pg_current_snapshot())::text AS horizon`;
  const { rows } =
    since === null
      ? await sql<WatchedRow & { horizon: string | null }>`
          ${horizonRow}
          UNION ALL
          SELECT address, wallet_id, id, (type = 'INTERNAL' OR key_imported), false, NULL FROM addresses WHERE chain_id = ${chainId} AND deleted_at IS NULL
          UNION ALL
          SELECT address, id, NULL, true, false, NULL FROM wallets WHERE chain_id = ${chainId}`.execute(db)
      : await sql<WatchedRow & { horizon: string | null }>`
          ${horizonRow}
          UNION ALL
          SELECT address, wallet_id, id, (type = 'INTERNAL' OR key_imported), deleted_at IS NOT NULL, NULL FROM addresses
           WHERE chain_id = ${chainId} AND watch_xid >= ${since}::xid8
          UNION ALL
          SELECT address, id, NULL, true, false, NULL FROM wallets WHERE chain_id = ${chainId} AND watch_xid >= ${since}::xid8`.execute(db);
  const horizon = rows.find((r) => r.horizon !== null)!.horizon!;
  return { horizon, rows: rows.filter((r) => r.horizon === null) };
}

/** The oldest transaction still running: a full load's rows come from no older writer than this (see `watchedChanges`). */
export async function watchHorizon(db: DbConn): Promise<string> {
  const { rows } = await sql<{ horizon: string }>`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon`.execute(db);
  return rows[0]!.horizon;
}

/**
 * The chain's live child and external addresses, handed to `use` a page of `pageSize` at a
 * time (a full load in bounded memory), from ONE scan: a cursor in a read-only transaction.
 * Pages of `ORDER BY id LIMIT n` each re-read every address after the last page and sorted
 * them (no index leads with chain_id then id): 100,000 addresses cost ten scans and sorts,
 * most of the load. The cursor's rows are one snapshot, taken after the caller's horizon.
 */
export async function eachLiveAddressPage(
  db: Db,
  chainId: string,
  pageSize: number,
  use: (page: { id: string; address: string; wallet_id: string; internal: boolean }[]) => void,
): Promise<void> {
  await db
    .transaction()
    .setAccessMode('read only')
    .execute(async (tx) => {
      await sql`DECLARE live_addresses NO SCROLL CURSOR FOR
                SELECT id, address, wallet_id, (type = 'INTERNAL' OR key_imported) AS internal FROM addresses
                 WHERE chain_id = ${chainId} AND deleted_at IS NULL`.execute(tx);
      for (;;) {
        const { rows } = await sql<{ id: string; address: string; wallet_id: string; internal: boolean }>`
          FETCH FORWARD ${sql.raw(String(Math.trunc(pageSize)))} FROM live_addresses`.execute(tx);
        use(rows);
        if (rows.length < pageSize) break;
      }
    });
}

/** The chain's wallets (their master addresses). */
export async function mastersOfChain(db: DbConn, chainId: string): Promise<{ id: string; address: string }[]> {
  const { rows } = await sql<{ id: string; address: string }>`SELECT id, address FROM wallets WHERE chain_id = ${chainId}`.execute(db);
  return rows;
}

/** Every wallet watching some addresses of the chain (the deposit finder's view of the watch set). */
export async function watchersOf(db: DbConn, chainId: string, addresses: string[]): Promise<WatchedRow[]> {
  if (addresses.length === 0) return [];
  const { rows } = await sql<WatchedRow>`
    SELECT address, wallet_id, id AS address_id, (type = 'INTERNAL' OR key_imported) AS internal, false AS removed FROM addresses
     WHERE chain_id = ${chainId} AND deleted_at IS NULL AND ${anyAddress('address', addresses)}
    UNION ALL
    SELECT address, id, NULL, true, false FROM wallets WHERE chain_id = ${chainId} AND ${anyAddress('address', addresses)}`.execute(db);
  return rows;
}

export async function enabledAssetsOfChain(db: DbConn, chainId: string): Promise<{ wallet_id: string; asset_id: string }[]> {
  const { rows } = await sql<{ wallet_id: string; asset_id: string }>`
    SELECT wa.wallet_id, wa.asset_id FROM wallet_assets wa JOIN wallets w ON w.id = wa.wallet_id
     WHERE w.chain_id = ${chainId} AND wa.is_active`.execute(db);
  return rows;
}

export interface DepositRepair {
  id: string;
  transaction_id: string;
  owner_wallet_id: string;
  hash: string;
}

/** The chain's deposits recorded for the wrong wallet that are not repaired yet (migration 012). */
export async function dueRepairs(db: DbConn, chainId: string): Promise<DepositRepair[]> {
  const { rows } = await sql<DepositRepair>`
    SELECT id, transaction_id, owner_wallet_id, hash FROM deposit_repairs
     WHERE chain_id = ${chainId} AND done_at IS NULL ORDER BY created_at, id`.execute(db);
  return rows;
}

/** Closes a repair; false when another process closed it first. */
export async function closeRepair(db: DbConn, id: string, note: string): Promise<boolean> {
  const { rows } =
    await sql`UPDATE deposit_repairs SET done_at = now(), note = ${note} WHERE id = ${id} AND done_at IS NULL RETURNING id`.execute(db);
  return rows.length > 0;
}

/** The cursor row, share-locked for the rest of the transaction (a range's commit waits, and is waited for); null before the first range. */
export async function shareLockCursor(db: DbConn, chainId: string): Promise<Cursor | null> {
  const { rows } = await sql<{ block_number: string; block_hash: string | null }>`
    SELECT block_number, block_hash FROM chain_cursors WHERE chain_id = ${chainId} FOR SHARE`.execute(db);
  const row = rows[0];
  return row ? { number: BigInt(row.block_number), hash: row.block_hash } : null;
}

/** The stored (verified) hashes of these block numbers, by number (those still in the kept window). */
export async function storedHashes(db: DbConn, chainId: string, numbers: bigint[]): Promise<Map<bigint, string>> {
  if (numbers.length === 0) return new Map();
  const { rows } = await sql<{ block_number: string; block_hash: string }>`
    SELECT block_number, block_hash FROM chain_blocks
     WHERE chain_id = ${chainId} AND block_number = ANY(${numbers.map(String)}::bigint[])`.execute(db);
  return new Map(rows.map((r) => [BigInt(r.block_number), r.block_hash]));
}

/**
 * Pending deposits of the range recorded in a block the range did not read there (its block
 * at that number has another hash): written by the deposit finder from a block replaced
 * since. Read under the cursor lock, so a finder that committed before it is seen.
 */
export async function pendingOffBlocks(db: DbConn, chainId: string, blocks: BlockRef[]): Promise<DepositRow[]> {
  if (blocks.length === 0) return [];
  const { rows } = await sql<DepositRow>`SELECT ${depositColumns} FROM transactions t
     JOIN unnest(${blocks.map((b) => b.number.toString())}::bigint[], ${blocks.map((b) => b.hash)}::text[]) AS r(n, h) ON r.n = t.block_number
     WHERE t.chain_id = ${chainId} AND t.type = 'DEPOSIT' AND t.status = 'PENDING' AND t.block_hash <> r.h
       AND t.block_number BETWEEN ${blocks[0]!.number} AND ${blocks.at(-1)!.number}`.execute(db);
  return rows;
}
