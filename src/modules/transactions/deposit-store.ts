/**
 * The `transactions` table's writes of deposits: recorded as found (in bulk), screened,
 * relocated or failed through reorgs, confirmed; then attached to their sweep and marked
 * swept. The rest of the table's SQL is store.ts; both are reached through TransactionWrites
 * (writes.ts).
 */
import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import { depositRow } from './rows.js';
import type { DepositLocation, NewDeposit, Swept, TransactionRow } from './types.js';
import type { BlockPointer } from '../../chains/types.js';

// ---- deposits (flow 'deposit') ------------------------------------------------------

/**
 * Bulk insert; returns the rows actually inserted, whole (a recorded (chain, hash, log index,
 * wallet) is skipped: each wallet watching the recipient has its own record of a transfer). With `depth`, each deposit starts with its confirmations so far and one
 * at or below the final block `depth.final` is written straight as SUCCESS (a backfill): one write instead
 * of an insert and two updates. The rows are built here from what was inserted; only what
 * the database supplies (the id of each row written, its timestamp and its address's
 * metadata) comes back, not ~55 columns per row to parse.
 */
export async function insertDeposits(db: DbConn, ds: NewDeposit[], depth?: { head: bigint; final: bigint }): Promise<TransactionRow[]> {
  if (ds.length === 0) return [];
  const col = <T>(f: (d: NewDeposit) => T) => ds.map(f);
  const confirmations = (d: NewDeposit) => (depth ? Number(depth.head - d.block.number + 1n) : 0);
  const settled = (d: NewDeposit) => depth !== undefined && d.block.number <= depth.final;
  const { rows } = await sql<{ id: string; created_at: Date; metadata: TransactionRow['metadata'] }>`
    INSERT INTO transactions (id, wallet_id, address_id, asset_id, chain_id, reference, type, status, stage, confirmed, confirmations,
                              amount, amount_paid, amount_usd, currency, rate, rate_usd, hash, log_index, block_number, block_hash,
                              sender_address, recipient_address, token_address, network, created_channel, metadata, aml_screening, aml_held)
    SELECT t.id, t.wallet_id, t.address_id, t.asset_id, t.chain_id, t.reference, 'DEPOSIT',
           CASE WHEN t.settled THEN 'SUCCESS' ELSE 'PENDING' END, CASE WHEN t.settled THEN 'confirmed' ELSE 'mined' END,
           t.settled, t.confirmations,
           t.amount, t.amount, t.amount_usd, t.currency, t.rate_usd, t.rate_usd, t.hash, t.log_index, t.block_number, t.block_hash,
           t.sender, t.recipient, t.token, t.network, 'BLOCKCHAIN', a.metadata, t.aml_screening, t.aml_held
      FROM unnest(${col((d) => d.id)}::uuid[], ${col((d) => d.walletId)}::uuid[], ${col((d) => d.addressId)}::uuid[],
                  ${col((d) => d.assetId)}::uuid[], ${col((d) => d.chainId)}::uuid[], ${col((d) => d.reference)}::text[],
                  ${col((d) => d.amount.toString())}::numeric[], ${col((d) => d.amountUsd)}::text[], ${col((d) => d.rateUsd ?? null)}::text[],
                  ${col((d) => d.currency)}::text[],
                  ${col((d) => d.hash)}::text[], ${col((d) => d.logIndex)}::int[], ${col((d) => d.block.number.toString())}::bigint[],
                  ${col((d) => d.block.hash)}::text[], ${col((d) => d.from)}::text[], ${col((d) => d.to)}::text[],
                  ${col((d) => d.token)}::text[], ${col((d) => d.network)}::text[], ${col(confirmations)}::int[],
                  ${col(settled)}::boolean[], ${col((d) => JSON.stringify(d.amlScreening ?? {}))}::jsonb[],
                  ${col((d) => d.amlHeld ?? false)}::boolean[])
           AS t(id, wallet_id, address_id, asset_id, chain_id, reference, amount, amount_usd, rate_usd, currency, hash, log_index, block_number,
                block_hash, sender, recipient, token, network, confirmations, settled, aml_screening, aml_held)
      LEFT JOIN addresses a ON a.id = t.address_id
    ON CONFLICT (chain_id, hash, log_index, wallet_id) WHERE type = 'DEPOSIT' AND status <> 'FAILED' DO NOTHING
    RETURNING id, created_at, metadata`.execute(db);
  const written = new Map(rows.map((r) => [r.id, r]));
  return ds.flatMap((d) => {
    const r = written.get(d.id);
    return r ? [depositRow(d, settled(d), confirmations(d), r)] : [];
  });
}

/** See TransactionWrites.setDepositScreening. */
export async function setDepositScreening(
  db: DbConn,
  id: string,
  from: 'held' | 'not-screened',
  screening: Record<string, unknown>,
  held: boolean,
): Promise<boolean> {
  const state = from === 'held' ? sql`aml_held` : sql`aml_screening->>'status' = 'NOT_SCREENED'`;
  const { rows } =
    await sql`UPDATE transactions SET aml_screening = ${JSON.stringify(screening)}::jsonb, aml_held = ${held}, updated_at = now()
             WHERE id = ${id} AND type = 'DEPOSIT' AND ${state} RETURNING id`.execute(db);
  return rows.length > 0;
}

/**
 * Moves the deposits out of the way of relocations (parkDeposits, then relocateDeposit each,
 * in one transaction): a transaction's records shift together when it is re-mined, and one
 * moved first onto the position another still holds would break the one-record-per-position
 * index. Parked at -2147483647, -2147483646, ...: far below any real position (a top-level
 * native transfer is -1, a Solana SOL transfer -1 minus its account's index, under 256);
 * nothing stays parked.
 */
export async function parkDeposits(db: DbConn, ids: string[]): Promise<void> {
  await sql`UPDATE transactions t SET log_index = -2147483648 + p.n
              FROM unnest(${ids}::uuid[]) WITH ORDINALITY AS p(id, n) WHERE t.id = p.id`.execute(db);
}

/**
 * The same transfer found at another position (re-mined after a reorg); revives a failed one,
 * whose reason (why it had failed: failDeposit) goes with its failure: a live deposit has none.
 */
export async function relocateDeposit(db: DbConn, id: string, loc: DepositLocation): Promise<void> {
  await sql`UPDATE transactions SET log_index = ${loc.logIndex}, block_number = ${loc.block.number.toString()}, block_hash = ${loc.block.hash},
                   status = 'PENDING', stage = 'mined', confirmed = false, confirmations = 0, reason = NULL, updated_at = now()
             WHERE id = ${id}`.execute(db);
}

/**
 * A deposit whose block was replaced while the node has its transaction in a later block:
 * moved there (its log index stays until the range that scans that block relocates it), if
 * still PENDING in the block it was read in.
 */
export async function moveDepositAhead(db: DbConn, d: { id: string; block_hash: string }, block: BlockPointer): Promise<void> {
  await sql`UPDATE transactions SET block_number = ${block.number.toString()}, block_hash = ${block.hash}, confirmations = 0, updated_at = now()
             WHERE id = ${d.id} AND status = 'PENDING' AND block_hash = ${d.block_hash}`.execute(db);
}

/** Fails a deposit still PENDING in the block it was seen in; false when it has moved on since. */
export async function failDeposit(db: DbConn, d: { id: string; block_hash: string }, reason: string): Promise<boolean> {
  const { rows } =
    await sql`UPDATE transactions SET status = 'FAILED', stage = 'reorged', confirmed = false, reason = ${reason}, updated_at = now()
             WHERE id = ${d.id} AND status = 'PENDING' AND block_hash = ${d.block_hash} RETURNING id`.execute(db);
  return rows.length > 0;
}

/**
 * Recounts confirmations of the chain's pending deposits up to `verifiedTo` and returns
 * the ids at or below the final block `final` (now SUCCESS): ChainAdapter.finalizedHead.
 */
export async function confirmDeposits(
  db: DbConn,
  chainId: string,
  head: bigint,
  verifiedTo: bigint,
  final: bigint,
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
       AND block_number <= ${final.toString()}::bigint
     RETURNING id`.execute(db);
  return rows.map((r) => r.id);
}

// ---- sweeps of deposits -----------------------------------------------------------------

export async function attachDeposits(db: DbConn, sweepId: string, depositIds: string[]): Promise<void> {
  await sql`UPDATE transactions SET sweep_id = ${sweepId}, updated_at = now() WHERE id = ANY(${depositIds}::uuid[])`.execute(db);
}

export async function markSwept(db: DbConn, depositId: string, s: Swept): Promise<void> {
  await sql`UPDATE transactions SET asset_swept = true, asset_swept_amount = ${s.amount}, asset_swept_at = now(),
                   asset_swept_gas_fee = ${s.gasFee.toString()}, asset_swept_hash = ${s.hash},
                   asset_swept_sender_address = ${s.from}, asset_swept_recipient_address = ${s.to},
                   asset_swept_response = ${JSON.stringify(s.response)}::jsonb, updated_at = now()
             WHERE id = ${depositId}`.execute(db);
}

/**
 * Clears what a sweep marked: a sweep's transfer a reorganisation undid (sent again, it
 * reverted) fails after its deposits were marked swept; for any other failure they were not.
 */
export async function recordSweepFailure(db: DbConn, depositId: string, response: unknown): Promise<void> {
  await sql`UPDATE transactions SET asset_swept = false, asset_swept_amount = NULL, asset_swept_at = NULL, asset_swept_gas_fee = NULL,
                   asset_swept_hash = NULL, asset_swept_sender_address = NULL, asset_swept_recipient_address = NULL,
                   asset_swept_response = ${JSON.stringify(response)}::jsonb, updated_at = now()
             WHERE id = ${depositId}`.execute(db);
}
