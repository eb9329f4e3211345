import { sql } from 'kysely';
import type { NetworkData } from '../../chains/types.js';
import type { DbConn } from '../../db/pool.js';
import { addressKey } from '../../chains/address-key.js';
import { sameAddress } from '../../db/address-sql.js';

export type SalvageStep = 'topup' | 'lend' | 'transfer' | 'give_back';
export type SalvageStage = SalvageStep | 'done' | 'failed';

export interface SalvageRow {
  id: string;
  wallet_id: string;
  chain_id: string;
  from_index: number | null;
  sender: string;
  recipient: string;
  token: string | null;
  amount: string;
  network: NetworkData;
  lend: NetworkData | null;
  give_back: NetworkData | null;
  whole_balance: boolean;
  /**
   * What the recovery's steps from the master may burn beyond its top-up's value (the top-up's
   * fee, a lend's and give-back's): heldBack holds it at the master while it is pending.
   */
  master_fee: string | null;
  /** The parts of master_fee its top-up and its lend burn: heldBack lets each go once that step is mined. */
  master_fee_topup: string | null;
  master_fee_lend: string | null;
  status: 'pending' | 'success' | 'failed';
  stage: SalvageStage;
  topup_outbound_id: string | null;
  lend_outbound_id: string | null;
  transfer_outbound_id: string | null;
  give_back_outbound_id: string | null;
  error: string | null;
}

export async function insertSalvage(
  db: DbConn,
  s: Pick<
    SalvageRow,
    | 'id'
    | 'wallet_id'
    | 'chain_id'
    | 'from_index'
    | 'sender'
    | 'recipient'
    | 'token'
    | 'amount'
    | 'network'
    | 'lend'
    | 'give_back'
    | 'whole_balance'
    | 'master_fee'
    | 'master_fee_topup'
    | 'master_fee_lend'
    | 'stage'
  >,
): Promise<void> {
  await sql`
    INSERT INTO salvages (id, wallet_id, chain_id, from_index, sender, recipient, token, amount, network, lend, give_back,
                          whole_balance, master_fee, master_fee_topup, master_fee_lend, status, stage)
    VALUES (${s.id}, ${s.wallet_id}, ${s.chain_id}, ${s.from_index}, ${s.sender}, ${s.recipient}, ${s.token}, ${s.amount},
            ${JSON.stringify(s.network)}::jsonb, ${s.lend === null ? null : JSON.stringify(s.lend)}::jsonb,
            ${s.give_back === null ? null : JSON.stringify(s.give_back)}::jsonb, ${s.whole_balance}, ${s.master_fee},
            ${s.master_fee_topup}, ${s.master_fee_lend}, 'pending', ${s.stage})`.execute(db);
}

export async function lockSalvage(db: DbConn, id: string): Promise<SalvageRow | undefined> {
  const { rows } = await sql<SalvageRow>`SELECT * FROM salvages WHERE id = ${id} FOR UPDATE`.execute(db);
  return rows[0];
}

/** The step's outbound row is queued: the salvage moves on to that stage. */
export async function setOutbound(db: DbConn, id: string, step: SalvageStep, outboundId: string): Promise<void> {
  const column = sql.ref(`${step}_outbound_id`);
  await sql`UPDATE salvages SET ${column} = ${outboundId}, stage = ${step}, updated_at = now() WHERE id = ${id}`.execute(db);
}

/**
 * The version of a step's transaction that settled (outbound.settled: a speed-up's replacement
 * or the original mined after all, a rebuild after expiry) becomes the step's row: setOutbound
 * recorded the first version, which a replacement or rebuild left 'replaced', without a receipt.
 */
export async function setSettled(db: DbConn, id: string, step: SalvageStep, outboundId: string): Promise<void> {
  const column = sql.ref(`${step}_outbound_id`);
  await sql`UPDATE salvages SET ${column} = ${outboundId}, updated_at = now() WHERE id = ${id}`.execute(db);
}

export async function finishSalvage(db: DbConn, id: string, ok: boolean, error: string | null): Promise<void> {
  await sql`UPDATE salvages SET status = ${ok ? 'success' : 'failed'}, stage = ${ok ? 'done' : 'failed'}, error = ${error},
                   updated_at = now()
             WHERE id = ${id}`.execute(db);
}

/** Whether another salvage from the same sender is in flight (its funding and balance reads would be stale). */
export async function senderBusy(db: DbConn, chainId: string, sender: string): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`
    SELECT id FROM salvages WHERE chain_id = ${chainId} AND sender = ${sender} AND status = 'pending' LIMIT 1`.execute(db);
  return rows.length > 0;
}

/**
 * One recovery of a sender at a time on a chain named by rpcUrl (foreign.ts), keyed by that
 * chain's id: a claim row (migration 043) that expires after `ttlMs` should its holder never
 * release it. False when another holds it.
 */
export async function claimForeignSender(db: DbConn, chainId: number, sender: string, token: string, ttlMs: number): Promise<boolean> {
  const { rows } = await sql<{ token: string }>`
    INSERT INTO foreign_salvage_claims (chain_id, sender_key, token, expires_at)
    VALUES (${chainId}, ${addressKey(sender)}, ${token}, now() + make_interval(secs => ${ttlMs / 1000}))
    ON CONFLICT (chain_id, sender_key) DO UPDATE SET token = EXCLUDED.token, expires_at = EXCLUDED.expires_at
      WHERE foreign_salvage_claims.expires_at < now()
    RETURNING token`.execute(db);
  return rows.length > 0;
}

/**
 * The claim made longer, if `token` still holds it: false when it expired and another took
 * it over (the holder's node calls outlasted the claim; it must not sign or broadcast then).
 */
export async function renewForeignSender(db: DbConn, chainId: number, sender: string, token: string, ttlMs: number): Promise<boolean> {
  const { rows } = await sql<{ token: string }>`
    UPDATE foreign_salvage_claims SET expires_at = now() + make_interval(secs => ${ttlMs / 1000})
     WHERE chain_id = ${chainId} AND sender_key = ${addressKey(sender)} AND token = ${token}
    RETURNING token`.execute(db);
  return rows.length > 0;
}

export async function releaseForeignSender(db: DbConn, chainId: number, sender: string, token: string): Promise<void> {
  await sql`DELETE FROM foreign_salvage_claims WHERE chain_id = ${chainId} AND sender_key = ${addressKey(sender)} AND token = ${token}`.execute(
    db,
  );
}

/** Serialises salvages of one sender (transaction-scoped advisory lock). */
export async function lockSender(db: DbConn, chainId: string, sender: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`salvage:${chainId}:${sender}`}, 0))`.execute(db);
}

/** A recovery on a chain named by rpcUrl still PENDING (foreign.ts settleEarlier). */
export interface PendingForeign {
  id: string;
  hash: string | null;
  nonce: string | null;
}

/**
 * The wallet's recoveries from `sender` on the chain named by rpcUrl whose id is
 * `foreignChainId` (metadata.salvage.chainId) still PENDING, oldest nonce first, but `except`
 * (the request's own, once recorded).
 */
export async function pendingForeign(
  db: DbConn,
  walletId: string,
  ownChainId: string,
  sender: string,
  foreignChainId: number,
  except: string | null,
): Promise<PendingForeign[]> {
  const { rows } = await sql<PendingForeign>`
    SELECT id, hash, nonce::text AS nonce FROM transactions
     WHERE wallet_id = ${walletId} AND chain_id = ${ownChainId} AND type = 'SALVAGE' AND status = 'PENDING'
       AND ${sameAddress('sender_address', sender)}
       AND metadata -> 'salvage' ->> 'chainId' = ${String(foreignChainId)} AND (${except}::uuid IS NULL OR id <> ${except}::uuid)
       -- A configured chain's recovery (its steps in salvages, its outbound rows) is never one.
       AND NOT EXISTS (SELECT 1 FROM salvages s WHERE s.id = transactions.id)
     ORDER BY nonce NULLS FIRST, id`.execute(db);
  return rows;
}

/**
 * The hashes of the wallet's other recoveries from `sender` on the chain named by rpcUrl whose
 * id is `foreignChainId` signed with `nonce` (any status): one of them mined proves that
 * nonce taken by another transfer (foreign.ts settleEarlier).
 */
export async function foreignSameNonce(
  db: DbConn,
  walletId: string,
  ownChainId: string,
  sender: string,
  foreignChainId: number,
  t: { id: string; nonce: string; hash: string },
): Promise<string[]> {
  const { rows } = await sql<{ hash: string }>`
    SELECT hash FROM transactions
     WHERE wallet_id = ${walletId} AND chain_id = ${ownChainId} AND type = 'SALVAGE' AND ${sameAddress('sender_address', sender)}
       AND metadata -> 'salvage' ->> 'chainId' = ${String(foreignChainId)} AND nonce = ${t.nonce}::numeric
       AND id <> ${t.id}::uuid AND hash IS NOT NULL AND hash <> ${t.hash}
       AND NOT EXISTS (SELECT 1 FROM salvages s WHERE s.id = transactions.id)`.execute(db);
  return rows.map((r) => r.hash);
}
