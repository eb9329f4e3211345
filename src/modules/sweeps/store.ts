import { sql } from 'kysely';
import type { NetworkData } from '../../chains/types.js';
import type { DbConn } from '../../db/pool.js';
import { jobs } from '../../jobs/store.js';

export interface SweepRow {
  id: string;
  wallet_id: string;
  address_id: string;
  chain_id: string;
  asset_id: string;
  status: 'pending' | 'success' | 'failed';
  stage: 'topup' | 'lend' | 'transfer' | 'give_back' | 'done' | 'failed';
  amount: string;
  /** The network data the transfer is signed with, as funded (Sender.fundedNetwork); null on a sweep that never started. */
  network: NetworkData | null;
  /** The family's lend and give-back steps (ChildFeeFunding 'lend'), when resources are lent. */
  lend: NetworkData | null;
  give_back: NetworkData | null;
  topup_outbound_id: string | null;
  lend_outbound_id: string | null;
  transfer_outbound_id: string | null;
  give_back_outbound_id: string | null;
}

export interface SweepableDeposit {
  id: string;
  wallet_id: string;
  address_id: string;
  asset_id: string;
  amount: string;
  sweep_id: string | null;
  /** The block it was mined in: a sweep whose transfer was mined in an earlier block did not carry it (null: not known, never carried). */
  block_number: string | null;
}

/**
 * Serialises sweep planning per address (row lock). NO KEY, as every row lock on a parent
 * row here: a withdrawal from the address holds the address's nonce row and then inserts a
 * Transaction naming the address (a foreign-key check, KEY SHARE); a full FOR UPDATE here,
 * held while the sweep waits for that same nonce row, would deadlock with it.
 */
export async function lockAddress(db: DbConn, addressId: string): Promise<LockedAddress | undefined> {
  const { rows } = await sql<LockedAddress>`
    SELECT id, derivation_index, key_imported, type, configurations FROM addresses WHERE id = ${addressId} FOR NO KEY UPDATE`.execute(db);
  return rows[0];
}

/**
 * Of these deposits, those a sweep carries (in flight or done; not a failed one's), read after
 * locking their addresses as a sweep plans under them (lockAddress, in id order): a sweep
 * that has not attached them by then sees what the caller writes before it commits.
 */
export async function carriedBySweeps(db: DbConn, depositIds: string[]): Promise<string[]> {
  if (depositIds.length === 0) return [];
  await sql`
    SELECT id FROM addresses
     WHERE id IN (SELECT address_id FROM transactions WHERE id = ANY(${depositIds}::uuid[]) AND address_id IS NOT NULL)
     ORDER BY id FOR NO KEY UPDATE`.execute(db);
  const { rows } = await sql<{ id: string }>`
    SELECT t.id FROM transactions t JOIN sweeps s ON s.id = t.sweep_id
     WHERE t.id = ANY(${depositIds}::uuid[]) AND s.status <> 'failed'`.execute(db);
  return rows.map((r) => r.id);
}

/** The address as the sweep sees it under its row lock (its key may have gone meanwhile). */
export interface LockedAddress {
  id: string;
  derivation_index: number | null;
  key_imported: boolean;
  type: string;
  configurations: Record<string, unknown>;
}

export async function activeSweep(db: DbConn, addressId: string, assetId: string): Promise<SweepRow | undefined> {
  const { rows } =
    await sql<SweepRow>`SELECT * FROM sweeps WHERE address_id = ${addressId} AND asset_id = ${assetId} AND status = 'pending'`.execute(db);
  return rows[0];
}

/**
 * Whether a deposit of the asset to the address is held by AML screening (a listed sender,
 * not released): a sweep moves the address's whole balance, so none is made while one is.
 * A held deposit a reorg took away (FAILED) holds nothing: its money never arrived (revived,
 * it holds again); nor does one swept before it was held (found listed by a later re-screen):
 * its money has left the address, as withdrawals/store.ts heldBack reckons it.
 */
export async function holdsAmlHeld(db: DbConn, addressId: string, assetId: string): Promise<boolean> {
  const { rows } = await sql`SELECT 1 FROM transactions
     WHERE address_id = ${addressId} AND asset_id = ${assetId} AND aml_held AND status <> 'FAILED' AND NOT asset_swept
     LIMIT 1`.execute(db);
  return rows.length > 0;
}

/**
 * What AML screening holds of the native coin at an address (deposits from listed senders,
 * not released): it stays where it is, so a token sweep's network fee is never paid from it.
 */
export async function amlHeldNative(db: DbConn, addressId: string): Promise<bigint> {
  const { rows } = await sql<{ held: string }>`
    SELECT coalesce(sum(t.amount), 0)::text AS held FROM transactions t JOIN assets a ON a.id = t.asset_id
     WHERE t.address_id = ${addressId} AND t.aml_held AND t.status <> 'FAILED' AND NOT t.asset_swept AND a.is_native`.execute(db);
  return BigInt(rows[0]!.held);
}

/**
 * Confirmed deposits of an address and asset that no sweep has taken yet. A deposit an
 * auto-settlement rule took where it landed (a settlement from the address itself, under
 * way or done) is the rule's: its money leaves by the settlement, not by a sweep. One whose
 * settlement failed stays at the address and is swept like any other.
 */
export async function unsweptDeposits(db: DbConn, addressId: string, assetId: string): Promise<SweepableDeposit[]> {
  const { rows } = await sql<SweepableDeposit>`
    SELECT t.id, t.wallet_id, t.address_id, t.asset_id, t.amount, t.sweep_id, t.block_number FROM transactions t
     LEFT JOIN sweeps s ON s.id = t.sweep_id
     WHERE t.address_id = ${addressId} AND t.asset_id = ${assetId} AND t.type = 'DEPOSIT' AND t.status = 'SUCCESS'
       AND t.asset_swept = false AND (t.sweep_id IS NULL OR s.status = 'failed')
       AND NOT EXISTS (SELECT 1 FROM auto_settlements a
                        WHERE a.deposit_id = t.id AND a.from_index <> 0 AND a.status IN ('pending', 'success'))
     ORDER BY t.created_at`.execute(db);
  return rows;
}

/**
 * What auto-settlements from the address have taken of the asset and not yet planned (stage
 * `queued`: no leg written, so nothing else holds their input): the rules' money, which a sweep
 * of the address's balance must leave where it is. Planned ones hold their legs like
 * withdrawals (WithdrawalService.inFlight).
 */
export async function takenByRules(db: DbConn, addressId: string, assetId: string): Promise<bigint> {
  const { rows } = await sql<{ taken: string }>`
    SELECT coalesce(sum(a.amount_in), 0)::text AS taken FROM transactions t JOIN auto_settlements a ON a.deposit_id = t.id
     WHERE t.address_id = ${addressId} AND t.type = 'DEPOSIT' AND a.asset_in_id = ${assetId} AND a.from_index <> 0
       AND a.status = 'pending' AND a.stage = 'queued'`.execute(db);
  return BigInt(rows[0]!.taken);
}

export async function insertSweep(
  db: DbConn,
  s: {
    id: string;
    walletId: string;
    addressId: string;
    chainId: string;
    assetId: string;
    /** `failed`: a sweep that ended before it started (the funds were gone), with its `error`. */
    status: 'pending' | 'failed';
    stage: 'topup' | 'lend' | 'transfer' | 'failed';
    amount: bigint;
    network?: NetworkData | null;
    lend?: NetworkData | null;
    giveBack?: NetworkData | null;
    /** What the transfer may cost the child in the native coin (heldBack holds it while the sweep is pending). */
    reservedFee?: bigint;
    /**
     * What the sweep's steps from the master may burn beyond its top-up's value (the top-up's
     * fee, a lend's and give-back's): heldBack holds it at the master while the sweep is pending.
     */
    masterFee?: bigint;
    /** The parts of masterFee its top-up and its lend burn: heldBack lets each go once that step is mined. */
    masterFeeSteps?: { topup: bigint; lend: bigint };
    error?: string;
  },
): Promise<void> {
  const json = (v: NetworkData | null | undefined) => (v ? JSON.stringify(v) : null);
  await sql`INSERT INTO sweeps (id, wallet_id, address_id, chain_id, asset_id, status, stage, amount, network, lend, give_back, reserved_fee, master_fee, master_fee_topup, master_fee_lend, error)
            VALUES (${s.id}, ${s.walletId}, ${s.addressId}, ${s.chainId}, ${s.assetId}, ${s.status}, ${s.stage}, ${s.amount.toString()},
                    ${json(s.network)}::jsonb, ${json(s.lend)}::jsonb, ${json(s.giveBack)}::jsonb, ${s.reservedFee?.toString() ?? null},
                    ${s.masterFee?.toString() ?? null}, ${s.masterFeeSteps?.topup.toString() ?? null},
                    ${s.masterFeeSteps?.lend.toString() ?? null}, ${s.error ?? null})`.execute(db);
}

/**
 * The address's successful sweeps of the asset whose transfer was mined after block `after`,
 * in the order they were mined, each with what it moved beyond the deposits it is recorded for
 * (a sweep moves the whole balance, so deposits mined but not yet confirmed when it was planned
 * went along). What a sweep of the native coin moved counts its own fee (reserved_fee, what it
 * held for it): it took the whole free balance, and the fee came out of the deposits' coin, so a
 * deposit it took along is not short of its fee.
 */
export async function carrierSweeps(
  db: DbConn,
  addressId: string,
  assetId: string,
  after: bigint,
): Promise<{ id: string; block: bigint; surplus: bigint }[]> {
  const { rows } = await sql<{ id: string; block_number: string; surplus: string }>`
    SELECT s.id, o.block_number,
           s.amount + CASE WHEN a.is_native THEN coalesce(s.reserved_fee, 0) ELSE 0 END
           - (SELECT coalesce(sum(t.amount), 0) FROM transactions t WHERE t.address_id = ${addressId} AND t.sweep_id = s.id) AS surplus
      FROM sweeps s JOIN assets a ON a.id = s.asset_id JOIN outbound_txs o ON o.id = s.transfer_outbound_id
     WHERE s.address_id = ${addressId} AND s.asset_id = ${assetId} AND s.status = 'success' AND o.block_number > ${after.toString()}::bigint
     ORDER BY o.block_number, s.created_at, s.id`.execute(db);
  return rows.map((r) => ({ id: r.id, block: BigInt(r.block_number), surplus: BigInt(r.surplus) }));
}

export async function setOutbound(
  db: DbConn,
  sweepId: string,
  field: 'topup' | 'lend' | 'transfer' | 'give_back',
  outboundId: string,
): Promise<void> {
  if (field === 'topup')
    await sql`UPDATE sweeps SET topup_outbound_id = ${outboundId}, updated_at = now() WHERE id = ${sweepId}`.execute(db);
  else if (field === 'lend')
    await sql`UPDATE sweeps SET lend_outbound_id = ${outboundId}, stage = 'lend', updated_at = now() WHERE id = ${sweepId}`.execute(db);
  else if (field === 'give_back')
    await sql`UPDATE sweeps SET give_back_outbound_id = ${outboundId}, stage = 'give_back', updated_at = now() WHERE id = ${sweepId}`.execute(
      db,
    );
  else
    await sql`UPDATE sweeps SET transfer_outbound_id = ${outboundId}, stage = 'transfer', updated_at = now() WHERE id = ${sweepId}`.execute(
      db,
    );
}

/**
 * The version of a step's transaction that settled (outbound.settled: a speed-up's replacement
 * or the original mined after all, a rebuild after expiry) becomes the step's row: setOutbound
 * recorded the first version, which a replacement or rebuild left 'replaced', without a receipt.
 */
export async function setSettled(
  db: DbConn,
  sweepId: string,
  field: 'topup' | 'lend' | 'transfer' | 'give_back',
  outboundId: string,
): Promise<void> {
  const column = sql.ref(`${field}_outbound_id`);
  await sql`UPDATE sweeps SET ${column} = ${outboundId}, updated_at = now() WHERE id = ${sweepId}`.execute(db);
}

export async function lockSweep(db: DbConn, id: string): Promise<SweepRow | undefined> {
  const { rows } = await sql<SweepRow>`SELECT * FROM sweeps WHERE id = ${id} FOR UPDATE`.execute(db);
  return rows[0];
}

export async function finishSweep(db: DbConn, id: string, ok: boolean, error: string | null): Promise<void> {
  await sql`UPDATE sweeps SET status = ${ok ? 'success' : 'failed'}, stage = ${ok ? 'done' : 'failed'}, error = ${error}, updated_at = now() WHERE id = ${id}`.execute(
    db,
  );
}

export async function depositsOfSweep(db: DbConn, sweepId: string): Promise<{ id: string; amount: string }[]> {
  const { rows } = await sql<{
    id: string;
    amount: string;
  }>`SELECT id, amount FROM transactions WHERE sweep_id = ${sweepId} ORDER BY created_at`.execute(db);
  return rows;
}

export async function depositForSweep(db: DbConn, walletId: string, id: string) {
  const { rows } = await sql<{
    id: string;
    type: string;
    status: string;
    address_id: string | null;
    asset_id: string | null;
    asset_swept: boolean;
    sweep_id: string | null;
    sweep_status: string | null;
  }>`
    SELECT t.id, t.type, t.status, t.address_id, t.asset_id, t.asset_swept, t.sweep_id, s.status AS sweep_status
      FROM transactions t LEFT JOIN sweeps s ON s.id = t.sweep_id
     WHERE t.wallet_id = ${walletId} AND t.id = ${id}`.execute(db);
  return rows[0];
}

export async function enqueueSweepJob(db: DbConn, addressId: string, assetId: string): Promise<void> {
  await jobs.sweep_address.add(db, { addressId, assetId }, { key: `sweep:${addressId}:${assetId}`, maxAttempts: 25 });
}

/** Job sweep_deposits: confirmed deposits auto-sweep may apply to (SweepService.sweepConfirmed). */
export async function enqueueSweepDeposits(db: DbConn, depositIds: string[]): Promise<void> {
  if (depositIds.length === 0) return;
  await jobs.sweep_deposits.add(db, { depositIds }, { maxAttempts: 25 });
}

export interface DepositContext {
  id: string;
  wallet_id: string;
  address_id: string | null;
  asset_id: string | null;
  amount: string;
  address_type: string | null;
  /** The wallet imported the address's key (it is swept like a child address). */
  key_imported: boolean | null;
  disable_auto_sweep: boolean | null;
  wallet_configurations: Record<string, unknown>;
  /** Held by AML screening until released. */
  aml_held: boolean;
}

/** What the auto-sweep decision needs about deposits, their addresses and wallets. */
export async function depositContexts(db: DbConn, depositIds: string[]): Promise<DepositContext[]> {
  const { rows } = await sql<DepositContext>`
    SELECT t.id, t.wallet_id, t.address_id, t.asset_id, t.amount, t.aml_held, a.type AS address_type, a.key_imported,
           (a.configurations ->> 'disableAutoSweep')::boolean AS disable_auto_sweep, w.configurations AS wallet_configurations
      FROM transactions t JOIN wallets w ON w.id = t.wallet_id LEFT JOIN addresses a ON a.id = t.address_id
     WHERE t.id = ANY(${depositIds}::uuid[])`.execute(db);
  return rows;
}

/** One job per (address, asset); the job key folds duplicates into one. */
export async function enqueueSweepJobs(db: DbConn, pairs: { addressId: string; assetId: string }[]): Promise<void> {
  if (pairs.length === 0) return;
  const add = jobs.sweep_address.addAllSql(
    { addressId: sql`a::text`, assetId: sql`s::text` },
    { key: sql`'sweep:' || a::text || ':' || s::text` },
  );
  await sql`SELECT ${add}
              FROM (SELECT DISTINCT a, s FROM unnest(${pairs.map((p) => p.addressId)}::uuid[], ${pairs.map((p) => p.assetId)}::uuid[]) AS t(a, s)) AS u`.execute(
    db,
  );
}
