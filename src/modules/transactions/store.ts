/**
 * The SQL that reads or writes the `transactions` table, but for deposits and their sweeps
 * (deposit-store.ts): test/architecture checks that no file outside this module writes it. Other modules reach these through TransactionService; the
 * moves they make are described in lifecycle.ts.
 */
import { sql, type Insertable } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import type { SignedFeeFields } from '../../chains/types.js';
import type { TransactionsTable } from '../../db/types.js';
import type {
  ContractCallOutcome,
  Counted,
  LegOutcome,
  Mined,
  NewLeg,
  NewWithdrawal,
  Signed,
  TransactionRow,
  WithdrawalOutcome,
} from './types.js';

export type { TransactionRow } from './types.js';

export type NewTransaction = Insertable<TransactionsTable>;

/**
 * Inserts the row unless its wallet already holds its reference (UNIQUE (wallet_id,
 * reference)): false then, and nothing written. ON CONFLICT rather than a caught 23505, so
 * the caller's transaction is not aborted and can read who holds it; a twin inserting the
 * same reference concurrently makes this wait for its commit, then skip.
 */
export async function insertTransaction(db: DbConn, row: NewTransaction, counted: Counted | null): Promise<boolean> {
  const inserted = await db
    .insertInto('transactions')
    .values({ ...row, ...countedColumns(counted) })
    .onConflict((oc) => oc.columns(['wallet_id', 'reference']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The policy_* columns (migration 049) of what a policy decision counted; all null for a row none decides. */
export function countedColumns(c: Counted | null) {
  return {
    policy_type: c?.as ?? null,
    policy_asset_id: c?.assetId ?? null,
    policy_amount: c?.amount?.toString() ?? null,
    policy_amount_usd: c?.amountUsd ?? null,
    policy_destination: c?.destination ?? null,
  };
}

/** The id of the Transaction of the wallet that holds `reference`, if any. */
export async function referenceHolder(db: DbConn, walletId: string, reference: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('transactions')
    .select('id')
    .where('wallet_id', '=', walletId)
    .where('reference', '=', reference)
    .executeTakeFirst();
  return row?.id;
}

export function findTransaction(db: DbConn, walletId: string, id: string) {
  return db.selectFrom('transactions').selectAll().where('wallet_id', '=', walletId).where('id', '=', id).executeTakeFirst();
}

export function findTransactionById(db: DbConn, id: string) {
  return db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findTransactionsByIds(db: DbConn, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([] as TransactionRow[]);
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', sql<string>`any(${ids}::uuid[])`)
    .execute();
}

export interface TransactionFilter {
  walletId: string;
  addressId?: string;
  id?: string;
  hash?: string;
  status?: string;
  type?: string;
  reference?: string;
  assetIds?: string[];
  startDate?: Date;
  /** Exclusive: the millisecond after the inclusive endDate (see TransactionService.list). */
  endBefore?: Date;
}

/**
 * `column` holds the transaction hash a client wrote: a hex hash matches however it is cased,
 * with or without 0x (EVM stores it with 0x, Tron its txID without); anything else (a Solana
 * signature, base58, where case matters) only as it is spelled. The history's filter and the
 * dashboard's search (report-store.ts) both.
 */
export function hashMatches(column: string, hash: string) {
  const hex = /^(0x)?[0-9a-fA-F]{64}$/.test(hash) ? hash.toLowerCase().replace(/^0x/, '') : null;
  return hex ? sql<boolean>`lower(${sql.ref(column)}) IN (${`0x${hex}`}, ${hex})` : sql<boolean>`${sql.ref(column)} = ${hash}`;
}

function filtered(db: DbConn, f: TransactionFilter) {
  let q = db.selectFrom('transactions').where('wallet_id', '=', f.walletId);
  if (f.addressId) q = q.where('address_id', '=', f.addressId);
  if (f.id) q = q.where('id', '=', f.id);
  if (f.hash) q = q.where(hashMatches('hash', f.hash));
  if (f.status) q = q.where('status', '=', f.status);
  if (f.type) q = q.where('type', '=', f.type);
  if (f.reference) q = q.where('reference', '=', f.reference);
  if (f.assetIds) q = q.where('asset_id', 'in', f.assetIds.length ? f.assetIds : ['00000000-0000-0000-0000-000000000000']);
  if (f.startDate) q = q.where('created_at', '>=', f.startDate);
  if (f.endBefore) q = q.where('created_at', '<', f.endBefore);
  return q;
}

export function listTransactions(db: DbConn, f: TransactionFilter, order: 'ASC' | 'DESC', offset: number, limit: number) {
  const dir = order === 'ASC' ? 'asc' : 'desc';
  return filtered(db, f).selectAll().orderBy('created_at', dir).orderBy('id', dir).offset(offset).limit(limit).execute();
}

export async function countTransactions(db: DbConn, f: TransactionFilter): Promise<number> {
  const row = await filtered(db, f)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The wallet's transactions counted by type and status (wallet analytics; index of migration 019). */
export async function countByTypeAndStatus(db: DbConn, walletId: string): Promise<{ type: string; status: string; n: number }[]> {
  const { rows } = await sql<{ type: string; status: string; n: string }>`
    SELECT type, status, count(*) AS n FROM transactions WHERE wallet_id = ${walletId} GROUP BY type, status`.execute(db);
  return rows.map((r) => ({ type: r.type, status: r.status, n: Number(r.n) }));
}

/** Confirmed deposits still at child addresses (not swept), summed per asset: base units as text. */
export async function unsweptByAsset(db: DbConn, walletId: string): Promise<{ asset_id: string; amount: string }[]> {
  const { rows } = await sql<{ asset_id: string; amount: string }>`
    SELECT asset_id, sum(amount)::text AS amount FROM transactions
     WHERE wallet_id = ${walletId} AND type = 'DEPOSIT' AND status = 'SUCCESS' AND asset_swept = false
       AND address_id IS NOT NULL AND asset_id IS NOT NULL
     GROUP BY asset_id`.execute(db);
  return rows;
}

// ---- withdrawals and sign-only withdrawals ----------------------------------------------

export async function insertWithdrawal(db: DbConn, w: NewWithdrawal): Promise<void> {
  await insertWithdrawals(db, [w]);
}

/**
 * PostgreSQL's protocol carries at most 65,535 parameters per statement, and a withdrawal row
 * has 37: a group commit of a hundred batch requests of a hundred items each would exceed it,
 * fail as a whole, and be run again request by request (withdrawals/batcher.ts).
 */
const WITHDRAWAL_ROWS_PER_INSERT = 1_000;

/** Many withdrawals in few statements; returns the rows as written (the responses are presented from them, not re-read). */
export async function insertWithdrawals(db: DbConn, list: NewWithdrawal[]): Promise<TransactionRow[]> {
  const rows: TransactionRow[] = [];
  for (let i = 0; i < list.length; i += WITHDRAWAL_ROWS_PER_INSERT) {
    rows.push(...(await insertWithdrawalRows(db, list.slice(i, i + WITHDRAWAL_ROWS_PER_INSERT))));
  }
  return rows;
}

async function insertWithdrawalRows(db: DbConn, list: NewWithdrawal[]): Promise<TransactionRow[]> {
  const values = list.map((w) => {
    const s = w.signed;
    const c = countedColumns(w.counted);
    const status = s ? 'SUCCESS' : w.awaitingApproval ? 'PENDING_APPROVAL' : 'PENDING';
    const stage = s ? 'signed' : w.awaitingApproval ? 'awaiting-approval' : 'created';
    return sql`(${w.id}, ${w.walletId}, ${w.addressId}, ${w.assetId}, ${w.chainId}, ${w.reference}, ${w.type},
            ${status}, ${stage}, ${s !== null},
            ${w.amount.toString()}, ${w.amount.toString()}, ${w.amountUsd}, ${w.currency}, ${w.rateUsd ?? null},
            ${w.rateUsd ?? null}, ${w.sender}, ${w.recipient}, ${w.token}, ${w.note},
            ${w.metadata === null ? null : JSON.stringify(w.metadata)}::jsonb, ${w.network}, 'API',
            ${w.reservedFee === null ? null : w.reservedFee.toString()}, ${s?.hash ?? null}, ${w.nonce?.toString() ?? null},
            ${s?.raw ?? null}, ${s ? JSON.stringify(s.raw) : null}::jsonb, ${signedFees(s?.fees)}::jsonb,
            ${JSON.stringify(w.amlScreening ?? {})}::jsonb,
            ${c.policy_type}, ${c.policy_asset_id}, ${c.policy_amount}, ${c.policy_amount_usd}, ${c.policy_destination},
            ${w.sendNetwork ? JSON.stringify(w.sendNetwork) : null}::jsonb, ${w.quotedFee?.toString() ?? null})`;
  });
  const { rows } = await sql<TransactionRow>`
    INSERT INTO transactions (id, wallet_id, address_id, asset_id, chain_id, reference, type, status, stage, confirmed,
                              amount, amount_paid, amount_usd, currency, rate, rate_usd, sender_address, recipient_address,
                              token_address, note, metadata, network, created_channel, reserved_fee, hash, nonce,
                              raw_transaction, signed_transaction, signed_fees, aml_screening,
                              policy_type, policy_asset_id, policy_amount, policy_amount_usd, policy_destination, send_network,
                              quoted_fee)
    VALUES ${sql.join(values)}
    RETURNING *`.execute(db);
  return rows;
}

/**
 * The version about to be broadcast: its hash is the one to look up while it is pending; only
 * while PENDING (and only for `onlyType` when given). What else is kept of it depends on the
 * flow: the signed bytes and fees (withdrawals), the bytes (settlement legs), neither
 * (contract writes).
 */
export async function recordSigned(db: DbConn, id: string, s: Signed, onlyType?: string): Promise<void> {
  await db
    .updateTable('transactions')
    .set({
      hash: s.hash,
      ...(s.raw !== undefined ? { raw_transaction: s.raw } : {}),
      nonce: s.nonce?.toString() ?? null,
      stage: 'signed',
      ...(s.fees ? { signed_fees: signedFees(s.fees) } : {}),
      ...(s.worstFee !== undefined
        ? { reserved_fee: sql<string>`GREATEST(coalesce(reserved_fee, 0), ${s.worstFee.toString()}::numeric)` }
        : {}),
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .$if(onlyType !== undefined, (q) => q.where('type', '=', onlyType!))
    .where('status', '=', 'PENDING')
    .execute();
}

/** The withdrawal (its caller holds the row lock and saw it PENDING) ends; the outcome's reason replaces any earlier one. */
export async function settleWithdrawal(db: DbConn, id: string, o: WithdrawalOutcome): Promise<void> {
  const m = o.mined;
  const fee = m ? (m.gasUsed * m.gasPrice).toString() : null;
  await sql`UPDATE transactions SET status = ${o.status}, stage = ${o.stage}, reason = ${o.reason},
                   confirmed = ${m !== null}, confirmations = ${m ? 1 : null}, hash = coalesce(${m?.hash ?? null}, hash),
                   block_number = ${m ? m.block.number.toString() : null}, block_hash = ${m?.block.hash ?? null},
                   gas_used = ${m ? m.gasUsed.toString() : null}, gas_price = ${m ? m.gasPrice.toString() : null},
                   gas_fee = ${fee}, fee = ${fee}, updated_at = now()
             WHERE id = ${id}`.execute(db);
}

/**
 * After settlement (outbound confirm.ts), for the attempt whose hash the withdrawal holds
 * (a CANCELLED one holds its cancellation's, the receipt it was settled with).
 * Depth and moved-block updates leave updated_at alone: the outcome and its effect on the
 * sender's balance are unchanged, and updated_at of a settled withdrawal is what the
 * balance check reads as "settled since" (heldBack).
 */
export async function setConfirmations(db: DbConn, id: string, hash: string, depth: number): Promise<void> {
  await sql`UPDATE transactions SET confirmations = ${depth}
             WHERE id = ${id} AND hash = ${hash} AND status IN ('SUCCESS', 'FAILED', 'CANCELLED') AND confirmations IS DISTINCT FROM ${depth}`.execute(
    db,
  );
}

export async function moveBlock(db: DbConn, id: string, m: Mined, depth: number): Promise<void> {
  const fee = (m.gasUsed * m.gasPrice).toString();
  await sql`UPDATE transactions SET block_number = ${m.block.number.toString()}, block_hash = ${m.block.hash},
                   gas_used = ${m.gasUsed.toString()}, gas_price = ${m.gasPrice.toString()}, gas_fee = ${fee}, fee = ${fee},
                   confirmations = ${depth}
             WHERE id = ${id} AND hash = ${m.hash} AND status IN ('SUCCESS', 'FAILED', 'CANCELLED')`.execute(db);
}

/**
 * The block that held the withdrawal (or its cancellation) was reorged away: PENDING again
 * (its reservation counts again), the same signed transaction being re-sent; the chain data
 * of the lost block cleared. True when the withdrawal was changed.
 */
export async function reopenAfterReorg(db: DbConn, id: string, hash: string, reason: string): Promise<boolean> {
  const r = await sql`UPDATE transactions SET status = 'PENDING', stage = 'broadcast', confirmed = false, confirmations = NULL,
                   block_number = NULL, block_hash = NULL, gas_used = NULL, gas_price = NULL, gas_fee = NULL, fee = NULL,
                   reason = ${reason}, updated_at = now()
             WHERE id = ${id} AND hash = ${hash} AND status IN ('SUCCESS', 'FAILED', 'CANCELLED')`.execute(db);
  return Number(r.numAffectedRows ?? 0n) > 0;
}

/** A retry of a FAILED withdrawal: PENDING again, reserving anew, the last attempt's chain data cleared, in the policies' windows from now (counted_at). */
export async function reopen(db: DbConn, id: string, reservedFee: bigint, nonce: bigint | null, counted: Counted): Promise<void> {
  const c = countedColumns(counted);
  await sql`UPDATE transactions SET status = 'PENDING', stage = 'created', confirmed = false, confirmations = NULL,
                   reserved_fee = ${reservedFee.toString()}, hash = NULL, block_number = NULL, block_hash = NULL, gas_used = NULL,
                   gas_price = NULL, gas_fee = NULL, fee = NULL, raw_transaction = NULL, nonce = ${nonce?.toString() ?? null}, reason = NULL,
                   counted_at = now(), policy_type = ${c.policy_type}, policy_asset_id = ${c.policy_asset_id},
                   policy_amount = ${c.policy_amount}, policy_amount_usd = ${c.policy_amount_usd},
                   policy_destination = ${c.policy_destination}, updated_at = now()
             WHERE id = ${id}`.execute(db);
}

/** An approved withdrawal goes on: PENDING/created with its nonce; false when it was no longer waiting. */
export async function grantApproval(db: DbConn, id: string, nonce: bigint | null): Promise<boolean> {
  const r = await sql`UPDATE transactions SET status = 'PENDING', stage = 'created', nonce = ${nonce === null ? null : nonce.toString()},
                   updated_at = now()
             WHERE id = ${id} AND status = 'PENDING_APPROVAL'`.execute(db);
  return Number(r.numAffectedRows ?? 0n) > 0;
}

/** A withdrawal refused while waiting for approval: CANCELLED, its reservation released. */
export async function refuseApproval(db: DbConn, id: string, reason: string): Promise<boolean> {
  const r = await sql`UPDATE transactions SET status = 'CANCELLED', stage = 'cancelled', reason = ${reason}, updated_at = now()
             WHERE id = ${id} AND status = 'PENDING_APPROVAL'`.execute(db);
  return Number(r.numAffectedRows ?? 0n) > 0;
}

// ---- settlement legs (SWAP, AUTO_SETTLEMENT) -------------------------------------------

export async function insertLeg(db: DbConn, l: NewLeg): Promise<void> {
  const c = countedColumns(l.counted);
  await sql`
    INSERT INTO transactions (id, wallet_id, address_id, asset_id, chain_id, reference, type, status, stage, confirmed,
                              amount, amount_paid, currency, to_amount, to_currency, sender_address, recipient_address,
                              token_address, reason, metadata, network, created_channel, aml_screening, reserved_fee,
                              policy_type, policy_asset_id, policy_amount, policy_amount_usd, policy_destination)
    VALUES (${l.id}, ${l.walletId}, ${l.addressId}, ${l.assetId}, ${l.chainId}, ${l.reference}, ${l.type}, 'PENDING', 'created', false,
            ${l.amount.toString()}, ${l.amount.toString()}, ${l.currency}, ${l.toAmount?.toString() ?? null}, ${l.toCurrency},
            ${l.sender}, ${l.recipient}, ${l.token}, ${l.reason}, ${JSON.stringify(l.metadata)}::jsonb, ${l.network},
            'AUTO_SETTLEMENT', '{}'::jsonb, ${l.reservedFee?.toString() ?? null},
            ${c.policy_type}, ${c.policy_asset_id}, ${c.policy_amount}, ${c.policy_amount_usd}, ${c.policy_destination})`.execute(db);
}

/** Only a PENDING leg moves: a replayed completion finds it settled and changes nothing (false). */
export async function settleLeg(db: DbConn, id: string, o: LegOutcome): Promise<boolean> {
  const m = o.mined;
  const fee = m ? (m.gasUsed * m.gasPrice).toString() : null;
  const { rows } = await sql<{ id: string }>`
    UPDATE transactions SET status = ${o.status}, stage = ${o.stage}, reason = coalesce(${o.reason}, reason),
           confirmed = ${m !== null}, confirmations = ${m ? (o.confirmations ?? 1) : null}, hash = coalesce(${m?.hash ?? null}, hash),
           block_number = ${m ? m.block.number.toString() : null}, block_hash = ${m?.block.hash ?? null},
           gas_used = ${m ? m.gasUsed.toString() : null}, gas_price = ${m ? m.gasPrice.toString() : null},
           gas_fee = ${fee}, fee = ${fee}, to_amount = coalesce(${o.toAmount?.toString() ?? null}::numeric, to_amount),
           metadata = CASE WHEN ${o.metadata === undefined} THEN metadata
                           ELSE coalesce(metadata, '{}'::jsonb) || ${JSON.stringify(o.metadata ?? {})}::jsonb END,
           updated_at = now()
     WHERE id = ${id} AND status = 'PENDING' RETURNING id`.execute(db);
  return rows.length > 0;
}

/** The AUTO_SETTLEMENT leg's amount once the swap has delivered its output. */
export async function setLegAmount(db: DbConn, id: string, amount: bigint): Promise<void> {
  // The windows count what is sent, not the quote the leg was decided on: its USD value scaled
  // at the same rate (the quote's USD per unit).
  await sql`UPDATE transactions SET amount = ${amount.toString()}, amount_paid = ${amount.toString()},
                   policy_amount_usd = CASE WHEN policy_amount > 0 THEN policy_amount_usd * ${amount.toString()}::numeric / policy_amount
                                            ELSE policy_amount_usd END,
                   policy_amount = CASE WHEN policy_asset_id IS NULL THEN policy_amount ELSE ${amount.toString()}::numeric END,
                   updated_at = now()
             WHERE id = ${id} AND status = 'PENDING'`.execute(db);
}

// ---- contract writes (CUSTOM_SMART_CONTRACT) --------------------------------------------

/** The gas a broadcast write may spend (gas limit x fee cap at acceptance), held from the sender's native balance. */
export async function reserveFee(db: DbConn, id: string, fee: bigint): Promise<void> {
  await sql`UPDATE transactions SET reserved_fee = ${fee.toString()} WHERE id = ${id}`.execute(db);
}

const text = (v: bigint | null) => (v === null ? null : v.toString());

/** The fee fields a signed transaction carried, as stored: the family's non-null ones (JSON), or null when none. */
export function signedFees(fees: SignedFeeFields | undefined): string | null {
  const present = Object.entries(fees ?? {}).filter(([, v]) => v !== null);
  return present.length ? JSON.stringify(Object.fromEntries(present)) : null;
}

/** The write (its caller holds the row lock and saw it PENDING) ends, with the receipt's figures. */
export async function settleContractCall(db: DbConn, id: string, o: ContractCallOutcome): Promise<void> {
  await sql`UPDATE transactions SET status = ${o.status}, stage = ${o.stage}, confirmed = ${o.confirmed}, hash = ${o.hash},
                   block_number = ${text(o.block?.number ?? null)}, block_hash = ${o.block?.hash ?? null}, gas_used = ${text(o.gasUsed)},
                   gas_price = ${text(o.gasPrice)}, gas_fee = ${text(o.fee)}, fee = ${text(o.fee)},
                   signed_fees = ${signedFees(o.fees)}::jsonb,
                   response = ${JSON.stringify(o.response)}::jsonb, updated_at = now()
             WHERE id = ${id}`.execute(db);
}
