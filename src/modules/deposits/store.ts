import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import type { BlockRef } from '../../chains/types.js';
import type { TransactionRow } from '../transactions/service.js';

export interface Cursor {
  blockNumber: bigint;
  blockHash: string | null;
}

export async function readCursor(db: DbConn, chainId: string): Promise<Cursor | null> {
  const { rows } = await sql<{ block_number: string; block_hash: string | null }>`
    SELECT block_number, block_hash FROM chain_cursors WHERE chain_id = ${chainId}`.execute(db);
  const row = rows[0];
  return row ? { blockNumber: BigInt(row.block_number), blockHash: row.block_hash } : null;
}

/** Creates the cursor if missing; returns it locked for the rest of the transaction. */
export async function lockCursor(db: DbConn, chainId: string, initial: Cursor): Promise<Cursor> {
  await sql`INSERT INTO chain_cursors (chain_id, block_number, block_hash) VALUES (${chainId}, ${initial.blockNumber}, ${initial.blockHash})
            ON CONFLICT (chain_id) DO NOTHING`.execute(db);
  const { rows } = await sql<{ block_number: string; block_hash: string | null }>`
    SELECT block_number, block_hash FROM chain_cursors WHERE chain_id = ${chainId} FOR UPDATE`.execute(db);
  return { blockNumber: BigInt(rows[0]!.block_number), blockHash: rows[0]!.block_hash };
}

export async function saveCursor(db: DbConn, chainId: string, cursor: Cursor): Promise<void> {
  await sql`UPDATE chain_cursors SET block_number = ${cursor.blockNumber}, block_hash = ${cursor.blockHash}, updated_at = now()
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

export async function pendingDepositsBetween(db: DbConn, chainId: string, from: bigint, to: bigint): Promise<DepositRow[]> {
  const { rows } = await sql<DepositRow>`SELECT ${depositColumns} FROM transactions
     WHERE chain_id = ${chainId} AND type = 'DEPOSIT' AND status = 'PENDING' AND block_number BETWEEN ${from} AND ${to}`.execute(db);
  return rows;
}

export interface NewDeposit {
  id: string;
  walletId: string;
  addressId: string | null;
  assetId: string;
  chainId: string;
  reference: string;
  amount: bigint;
  amountUsd: string | null;
  /** The rate `amountUsd` was computed at (rate and rateUSD); none without it. */
  rateUsd?: string | null;
  currency: string;
  hash: string;
  logIndex: number;
  blockNumber: bigint;
  blockHash: string;
  from: string;
  to: string;
  token: string | null;
  network: string;
}

/** The same transfer found at another position (re-mined after a reorg); revives a failed one. */
export async function relocateDeposit(
  db: DbConn,
  id: string,
  loc: { logIndex: number; blockNumber: bigint; blockHash: string },
): Promise<void> {
  await sql`UPDATE transactions SET log_index = ${loc.logIndex}, block_number = ${loc.blockNumber.toString()}, block_hash = ${loc.blockHash},
                   status = 'PENDING', stage = 'mined', confirmed = false, confirmations = 0, updated_at = now()
             WHERE id = ${id}`.execute(db);
}

/** Fails a deposit still PENDING in the block it was seen in; false when it has moved on since. */
export async function failDeposit(db: DbConn, d: Pick<DepositRow, 'id' | 'block_hash'>, reason: string): Promise<boolean> {
  const { rows } =
    await sql`UPDATE transactions SET status = 'FAILED', stage = 'reorged', confirmed = false, reason = ${reason}, updated_at = now()
             WHERE id = ${d.id} AND status = 'PENDING' AND block_hash = ${d.block_hash} RETURNING id`.execute(db);
  return rows.length > 0;
}

/**
 * Recounts confirmations of the chain's pending deposits up to `verifiedTo` and returns
 * the ids that reached `required` (now SUCCESS).
 */
export async function confirmDeposits(
  db: DbConn,
  chainId: string,
  head: bigint,
  verifiedTo: bigint,
  required: number,
  only?: string[],
): Promise<string[]> {
  // `only`: these deposits and no others (the deposit finder: it must not lock the chain's
  // other pending deposits, which an indexer range may be updating in another order).
  const these = only ? sql`AND id = ANY(${only}::uuid[])` : sql``;
  await sql`UPDATE transactions SET confirmations = (${head.toString()}::bigint - block_number + 1)::int, updated_at = now()
             WHERE chain_id = ${chainId} AND type = 'DEPOSIT' AND status = 'PENDING' AND block_number <= ${verifiedTo} ${these}
               AND confirmations IS DISTINCT FROM (${head.toString()}::bigint - block_number + 1)::int`.execute(db);
  const { rows } = await sql<{ id: string }>`
    UPDATE transactions SET status = 'SUCCESS', stage = 'confirmed', confirmed = true, updated_at = now()
     WHERE chain_id = ${chainId} AND type = 'DEPOSIT' AND status = 'PENDING' AND block_number <= ${verifiedTo} ${these}
       AND ${head.toString()}::bigint - block_number + 1 >= ${required}
     RETURNING id`.execute(db);
  return rows.map((r) => r.id);
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
          SELECT address, wallet_id, id, type = 'INTERNAL', false, NULL FROM addresses WHERE chain_id = ${chainId} AND deleted_at IS NULL
          UNION ALL
          SELECT address, id, NULL, true, false, NULL FROM wallets WHERE chain_id = ${chainId}`.execute(db)
      : await sql<WatchedRow & { horizon: string | null }>`
          ${horizonRow}
          UNION ALL
          SELECT address, wallet_id, id, type = 'INTERNAL', deleted_at IS NOT NULL, NULL FROM addresses
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

/** One page (by id) of the chain's live child and external addresses, for a full load in bounded memory. */
export async function liveAddressesPage(
  db: DbConn,
  chainId: string,
  afterId: string | null,
  limit: number,
): Promise<{ id: string; address: string; wallet_id: string; internal: boolean }[]> {
  const { rows } = await sql<{ id: string; address: string; wallet_id: string; internal: boolean }>`
    SELECT id, address, wallet_id, type = 'INTERNAL' AS internal FROM addresses
     WHERE chain_id = ${chainId} AND deleted_at IS NULL AND (${afterId}::uuid IS NULL OR id > ${afterId}::uuid)
     ORDER BY id LIMIT ${limit}`.execute(db);
  return rows;
}

/** The chain's wallets (their master addresses). */
export async function mastersOfChain(db: DbConn, chainId: string): Promise<{ id: string; address: string }[]> {
  const { rows } = await sql<{ id: string; address: string }>`SELECT id, address FROM wallets WHERE chain_id = ${chainId}`.execute(db);
  return rows;
}

/** Every wallet watching some addresses of the chain (the deposit finder's view of the watch set). */
export async function watchersOf(db: DbConn, chainId: string, addresses: string[]): Promise<WatchedRow[]> {
  if (addresses.length === 0) return [];
  const lower = addresses.map((a) => a.toLowerCase());
  const { rows } = await sql<WatchedRow>`
    SELECT address, wallet_id, id AS address_id, type = 'INTERNAL' AS internal, false AS removed FROM addresses
     WHERE chain_id = ${chainId} AND deleted_at IS NULL AND lower(address) = ANY(${lower}::text[])
    UNION ALL
    SELECT address, id, NULL, true, false FROM wallets WHERE chain_id = ${chainId} AND lower(address) = ANY(${lower}::text[])`.execute(db);
  return rows;
}

export async function enabledAssetsOfChain(db: DbConn, chainId: string): Promise<{ wallet_id: string; asset_id: string }[]> {
  const { rows } = await sql<{ wallet_id: string; asset_id: string }>`
    SELECT wa.wallet_id, wa.asset_id FROM wallet_assets wa JOIN wallets w ON w.id = wa.wallet_id
     WHERE w.chain_id = ${chainId} AND wa.is_active`.execute(db);
  return rows;
}

/**
 * Bulk insert; returns the rows actually inserted, whole (a recorded (chain, hash, log index,
 * wallet) is skipped: each wallet watching the recipient has its own record of a transfer). With `depth`, each deposit starts with its confirmations so far and one
 * already at `depth.required` is written straight as SUCCESS (a backfill): one write instead
 * of an insert and two updates. The rows are built here from what was inserted; only what
 * the database supplies (the id of each row written, its timestamp and its address's
 * metadata) comes back, not ~55 columns per row to parse.
 */
export async function insertDeposits(db: DbConn, ds: NewDeposit[], depth?: { head: bigint; required: number }): Promise<TransactionRow[]> {
  if (ds.length === 0) return [];
  const col = <T>(f: (d: NewDeposit) => T) => ds.map(f);
  const confirmations = (d: NewDeposit) => (depth ? Number(depth.head - d.blockNumber + 1n) : 0);
  const settled = (d: NewDeposit) => depth !== undefined && confirmations(d) >= depth.required;
  const { rows } = await sql<{ id: string; created_at: Date; metadata: TransactionRow['metadata'] }>`
    INSERT INTO transactions (id, wallet_id, address_id, asset_id, chain_id, reference, type, status, stage, confirmed, confirmations,
                              amount, amount_paid, amount_usd, currency, rate, rate_usd, hash, log_index, block_number, block_hash,
                              sender_address, recipient_address, token_address, network, created_channel, metadata, aml_screening)
    SELECT t.id, t.wallet_id, t.address_id, t.asset_id, t.chain_id, t.reference, 'DEPOSIT',
           CASE WHEN t.settled THEN 'SUCCESS' ELSE 'PENDING' END, CASE WHEN t.settled THEN 'confirmed' ELSE 'mined' END,
           t.settled, t.confirmations,
           t.amount, t.amount, t.amount_usd, t.currency, t.rate_usd, t.rate_usd, t.hash, t.log_index, t.block_number, t.block_hash,
           t.sender, t.recipient, t.token, t.network, 'BLOCKCHAIN', a.metadata, '{}'::jsonb
      FROM unnest(${col((d) => d.id)}::uuid[], ${col((d) => d.walletId)}::uuid[], ${col((d) => d.addressId)}::uuid[],
                  ${col((d) => d.assetId)}::uuid[], ${col((d) => d.chainId)}::uuid[], ${col((d) => d.reference)}::text[],
                  ${col((d) => d.amount.toString())}::numeric[], ${col((d) => d.amountUsd)}::text[], ${col((d) => d.rateUsd ?? null)}::text[],
                  ${col((d) => d.currency)}::text[],
                  ${col((d) => d.hash)}::text[], ${col((d) => d.logIndex)}::int[], ${col((d) => d.blockNumber.toString())}::bigint[],
                  ${col((d) => d.blockHash)}::text[], ${col((d) => d.from)}::text[], ${col((d) => d.to)}::text[],
                  ${col((d) => d.token)}::text[], ${col((d) => d.network)}::text[], ${col(confirmations)}::int[],
                  ${col(settled)}::boolean[])
           AS t(id, wallet_id, address_id, asset_id, chain_id, reference, amount, amount_usd, rate_usd, currency, hash, log_index, block_number,
                block_hash, sender, recipient, token, network, confirmations, settled)
      LEFT JOIN addresses a ON a.id = t.address_id
    ON CONFLICT (chain_id, hash, log_index, wallet_id) WHERE type = 'DEPOSIT' DO NOTHING
    RETURNING id, created_at, metadata`.execute(db);
  const written = new Map(rows.map((r) => [r.id, r]));
  return ds.flatMap((d) => {
    const r = written.get(d.id);
    return r ? [depositRow(d, settled(d), confirmations(d), r)] : [];
  });
}

/**
 * The row `insertDeposits` wrote for `d`, as SELECT * would read it. Typed as the whole
 * TransactionRow: a column added to the table must be given its value here too (and
 * test/deposits/rows.test.ts compares this with the stored row).
 */
function depositRow(
  d: NewDeposit,
  settled: boolean,
  confirmations: number,
  db: { created_at: Date; metadata: TransactionRow['metadata'] },
): TransactionRow {
  const rate = d.rateUsd ?? null;
  return {
    id: d.id,
    wallet_id: d.walletId,
    address_id: d.addressId,
    asset_id: d.assetId,
    chain_id: d.chainId,
    reference: d.reference,
    type: 'DEPOSIT',
    status: settled ? 'SUCCESS' : 'PENDING',
    stage: settled ? 'confirmed' : 'mined',
    confirmed: settled,
    confirmations,
    amount: d.amount.toString(),
    amount_paid: d.amount.toString(),
    amount_usd: d.amountUsd,
    currency: d.currency,
    rate,
    rate_usd: rate,
    to_amount: null,
    to_currency: null,
    fee: null,
    fee_hash: null,
    fee_metadata: null,
    gas_fee: null,
    gas_price: null,
    gas_used: null,
    hash: d.hash,
    log_index: d.logIndex,
    block_hash: d.blockHash,
    block_number: d.blockNumber.toString(),
    sender_address: d.from,
    recipient_address: d.to,
    token_address: d.token,
    note: null,
    reason: null,
    metadata: db.metadata,
    network: d.network,
    created_channel: 'BLOCKCHAIN',
    signed_transaction: null,
    aml_screening: {},
    nonce: null,
    raw_transaction: null,
    max_fee_per_gas: null,
    max_priority_fee_per_gas: null,
    asset_swept: false,
    asset_swept_amount: null,
    asset_swept_at: null,
    asset_swept_gas_fee: null,
    asset_swept_hash: null,
    asset_swept_recipient_address: null,
    asset_swept_sender_address: null,
    asset_swept_response: null,
    response: null,
    created_at: db.created_at,
    updated_at: db.created_at,
  };
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
