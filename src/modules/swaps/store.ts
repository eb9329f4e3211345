/** The SQL of API swaps: quotes given to clients (swap_quotes) and swaps executed (swaps). */
import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import type { NetworkData } from '../../chains/types.js';
import type { MinedRecord } from '../outbound/service.js';
import { addressKey } from '../../chains/address-key.js';

/** What a quote or a swap keeps of its route (decimal strings): what later steps sign without a new quote. */
export interface RoutePlan {
  path: string[];
  amountOut: string;
  midAmountOut: string;
  reference: string;
  referenceKind: 'par' | 'mid' | 'quote';
  candidates: { path: string[]; amountOut: string }[];
}

export interface QuoteRow {
  id: string;
  wallet_id: string;
  address_id: string | null;
  chain_id: string;
  from_asset_id: string;
  to_asset_id: string;
  amount_in: string;
  amount_out: string;
  min_out: string;
  order: string;
  slippage_tolerance: string;
  recipient: string | null;
  plan: RoutePlan;
  expires_at: Date;
  used_by: string | null;
}

export async function insertQuote(db: DbConn, q: Omit<QuoteRow, 'used_by'>): Promise<void> {
  await sql`
    INSERT INTO swap_quotes (id, wallet_id, address_id, chain_id, from_asset_id, to_asset_id, amount_in, amount_out, min_out,
                             "order", slippage_tolerance, recipient, plan, expires_at)
    VALUES (${q.id}, ${q.wallet_id}, ${q.address_id}, ${q.chain_id}, ${q.from_asset_id}, ${q.to_asset_id}, ${q.amount_in},
            ${q.amount_out}, ${q.min_out}, ${q.order}, ${q.slippage_tolerance}, ${q.recipient}, ${JSON.stringify(q.plan)}::jsonb,
            ${q.expires_at})`.execute(db);
}

/** The quote, when it was given to this wallet (and address): another's looks like none. */
export async function findQuote(db: DbConn, id: string, walletId: string, addressId: string | null): Promise<QuoteRow | undefined> {
  const { rows } = await sql<QuoteRow>`
    SELECT * FROM swap_quotes WHERE id = ${id} AND wallet_id = ${walletId} AND address_id IS NOT DISTINCT FROM ${addressId}`.execute(db);
  return rows[0];
}

/** Marks the quote used by the swap `by`, only if unused: false when another swap took it first. */
export async function useQuote(db: DbConn, id: string, by: string): Promise<boolean> {
  const { rows } = await sql<{
    id: string;
  }>`UPDATE swap_quotes SET used_by = ${by} WHERE id = ${id} AND used_by IS NULL RETURNING id`.execute(db);
  return rows.length > 0;
}

export type SwapStage = 'topup' | 'sending' | 'swapped' | 'done' | 'failed';

/** The swap plan a swap row keeps: its route, deadline, approvals, and for a child the network data its top-up paid for (opaque: the family's). */
export interface SwapPlan extends RoutePlan {
  deadline: string;
  approvals: string[];
  network?: NetworkData;
  /** The swap's transaction once final (its output is read from its receipt), as the pipeline stores it (outbound minedRecord). */
  mined?: MinedRecord;
  depth?: number;
}

export interface SwapRow {
  id: string;
  wallet_id: string;
  address_id: string | null;
  chain_id: string;
  from_index: number;
  sender: string;
  recipient: string;
  asset_in_id: string;
  asset_out_id: string;
  amount_in: string;
  min_out: string;
  plan: SwapPlan;
  status: 'pending' | 'success' | 'failed';
  stage: SwapStage;
  amount_out: string | null;
  error: string | null;
  /** A child's top-up's own fee, paid by the master (null: no top-up, or accepted before migration 061). */
  topup_fee: string | null;
}

export async function insertSwap(db: DbConn, s: Omit<SwapRow, 'status' | 'amount_out' | 'error'>): Promise<void> {
  await sql`
    INSERT INTO swaps (id, wallet_id, address_id, chain_id, from_index, sender, recipient, asset_in_id, asset_out_id, amount_in, min_out,
                       plan, status, stage, topup_fee)
    VALUES (${s.id}, ${s.wallet_id}, ${s.address_id}, ${s.chain_id}, ${s.from_index}, ${s.sender}, ${s.recipient}, ${s.asset_in_id},
            ${s.asset_out_id}, ${s.amount_in}, ${s.min_out}, ${JSON.stringify(s.plan)}::jsonb, 'pending', ${s.stage},
            ${s.topup_fee})`.execute(db);
}

export async function lockSwap(db: DbConn, id: string): Promise<SwapRow | undefined> {
  const { rows } = await sql<SwapRow>`SELECT * FROM swaps WHERE id = ${id} FOR UPDATE`.execute(db);
  return rows[0];
}

export async function findSwap(db: DbConn, id: string): Promise<SwapRow | undefined> {
  const { rows } = await sql<SwapRow>`SELECT * FROM swaps WHERE id = ${id}`.execute(db);
  return rows[0];
}

export async function updateSwap(
  db: DbConn,
  id: string,
  p: { stage?: SwapStage; status?: SwapRow['status']; plan?: SwapPlan; amountOut?: bigint; error?: string },
): Promise<void> {
  await sql`
    UPDATE swaps SET stage = coalesce(${p.stage ?? null}, stage), status = coalesce(${p.status ?? null}, status),
           plan = coalesce(${p.plan === undefined ? null : JSON.stringify(p.plan)}::jsonb, plan),
           amount_out = coalesce(${p.amountOut?.toString() ?? null}::numeric, amount_out), error = coalesce(${p.error ?? null}, error),
           updated_at = now()
     WHERE id = ${id}`.execute(db);
}

/**
 * Serialises the swaps of one sender, API swaps and auto-settlements' swaps alike (the
 * executor takes it too, SwapService.lockSender): its allowance and balance reads are the one
 * swap's to use (transaction-scoped).
 */
export async function lockSender(db: DbConn, chainId: string, sender: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`swap:${chainId}:${addressKey(sender)}`}, 0))`.execute(db);
}

/** Who an API swap sends from, for the look at the sender's other swaps. */
export interface SwapSender {
  chainId: string;
  walletId: string;
  /** The address's index in the wallet (0: the master). */
  fromIndex: number;
  /** The swap's input asset. */
  assetInId: string;
}

/**
 * The sender's swaps in flight that an API swap's reads of its allowance and balances must
 * not overlap, and the database's time of the look (`at`): its API swaps, and its
 * auto-settlements whose moves would make those reads wrong, by the rule the settlements
 * apply among themselves (autosettlements/store.ts senderBusy): from a child any planned one
 * (its gas and top-up), from the master one swapping the same input asset whose approve or
 * swap is not yet final (the allowance).
 */
export interface SenderSwaps {
  pending: number;
  at: Date;
}

export async function senderSwaps(db: DbConn, s: SwapSender): Promise<SenderSwaps> {
  const { rows } = await sql<SenderSwaps>`
    SELECT (SELECT count(*)::int FROM swaps
             WHERE chain_id = ${s.chainId} AND wallet_id = ${s.walletId} AND from_index = ${s.fromIndex} AND status = 'pending')
         + (SELECT count(*)::int FROM auto_settlements
             WHERE chain_id = ${s.chainId} AND wallet_id = ${s.walletId} AND from_index = ${s.fromIndex} AND status = 'pending'
               AND stage <> 'queued' AND (from_index <> 0 OR (stage = 'sending' AND ${sameSwapInput(s)}))) AS pending,
           statement_timestamp() AS at`.execute(db);
  return rows[0]!;
}

/**
 * Whether a swap of the sender, or a settlement that uses what an API swap reads, was written
 * at or after `since`: begun, or moved on (every step of either updates its row once the step
 * is seen on chain, in a transaction begun after that; so one whose approve or router pull
 * landed after `since` shows here, whatever stage it has reached since: autosettlements/
 * store.ts movedSince's rule).
 */
export async function swapsMovedSince(db: DbConn, s: SwapSender, since: Date): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`
    SELECT id FROM swaps
     WHERE chain_id = ${s.chainId} AND wallet_id = ${s.walletId} AND from_index = ${s.fromIndex} AND updated_at >= ${since}
    UNION ALL
    SELECT id FROM auto_settlements
     WHERE chain_id = ${s.chainId} AND wallet_id = ${s.walletId} AND from_index = ${s.fromIndex} AND updated_at >= ${since}
       AND stage <> 'queued' AND (from_index <> 0 OR ${sameSwapInput(s)})
     LIMIT 1`.execute(db);
  return rows.length > 0;
}

/** A settlement row swapping the API swap's input asset. */
const sameSwapInput = (s: SwapSender) => sql`(asset_in_id = ${s.assetInId} AND asset_out_id <> asset_in_id)`;

/**
 * The API swaps of the sender an auto-settlement from the same address weighs (SwapService.
 * seenBySettlement): from a child any, from the master those whose input is the settlement's.
 * `pending`: one whose approve or swap is not yet final, or a child's top-up (stages topup and
 * sending: wait for it; one at `swapped` has moved nothing more on chain); `moved`: one was
 * written at or after `since` (the settlement's reads may be stale: plan again; never without
 * a `since`).
 */
export async function apiSwapsOf(db: DbConn, s: SwapSender, since: Date | null): Promise<{ pending: boolean; moved: boolean }> {
  const { rows } = await sql<{ pending: boolean; moved: boolean }>`
    SELECT EXISTS (SELECT 1 FROM swaps
                    WHERE chain_id = ${s.chainId} AND wallet_id = ${s.walletId} AND from_index = ${s.fromIndex} AND status = 'pending'
                      AND stage IN ('topup', 'sending') AND (from_index <> 0 OR asset_in_id = ${s.assetInId})) AS pending,
           ${since}::timestamptz IS NOT NULL AND EXISTS (SELECT 1 FROM swaps
                    WHERE chain_id = ${s.chainId} AND wallet_id = ${s.walletId} AND from_index = ${s.fromIndex} AND updated_at >= ${since}
                      AND (from_index <> 0 OR asset_in_id = ${s.assetInId})) AS moved`.execute(db);
  return rows[0]!;
}
