import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import type { Move } from './rules.js';

/**
 * The hash of a write's signed transaction, stored as soon as it is signed (and again when
 * a replacement is), so a client can follow it before it is mined; only while PENDING.
 */
export async function recordSignedHash(db: DbConn, id: string, hash: string, nonce: bigint): Promise<void> {
  await sql`UPDATE transactions SET hash = ${hash}, nonce = ${nonce.toString()}, stage = 'signed', updated_at = now()
             WHERE id = ${id} AND type = 'CUSTOM_SMART_CONTRACT' AND status = 'PENDING'`.execute(db);
}

/** Locks a contract write's transaction for its settlement; undefined once it has left PENDING. */
export async function lockPendingWrite(db: DbConn, id: string): Promise<{ id: string } | undefined> {
  const { rows } = await sql<{ id: string }>`
    SELECT id FROM transactions WHERE id = ${id} AND type = 'CUSTOM_SMART_CONTRACT' AND status = 'PENDING' FOR NO KEY UPDATE`.execute(db);
  return rows[0];
}

export interface WriteOutcome {
  status: 'SUCCESS' | 'FAILED';
  stage: string;
  confirmed: boolean;
  hash: string | null;
  blockNumber: bigint | null;
  blockHash: string | null;
  gasUsed: bigint | null;
  gasPrice: bigint | null;
  fee: bigint | null;
  maxFeePerGas: bigint | null;
  maxPriorityFeePerGas: bigint | null;
  response: unknown;
}

const text = (v: bigint | null) => (v === null ? null : v.toString());

/**
 * What a write moves (contract_moves) and the spenders it grants allowances to
 * (contract_spenders, kept for good: their allowances are read at every later check).
 * Sign-only writes reserve nothing: their moves are born settled (-infinity).
 */
export async function recordMoves(db: DbConn, chainId: string, id: string, moves: Move[], signOnly: boolean): Promise<void> {
  if (moves.length === 0) return;
  const rows = moves.map(
    (m, i) => sql`(${id}, ${i}, ${chainId}, ${m.owner}, ${m.assetId}, ${m.amount.toString()}, ${m.kind}, ${m.beneficiary},
                   ${signOnly ? sql`'-infinity'::timestamptz` : sql`NULL::timestamptz`})`,
  );
  await sql`INSERT INTO contract_moves (transaction_id, position, chain_id, owner_address, asset_id, amount, kind, beneficiary, settled_at)
            VALUES ${sql.join(rows)}`.execute(db);
  const spenders = moves.filter((m) => m.kind === 'allowance' && m.token);
  if (spenders.length === 0) return;
  await sql`INSERT INTO contract_spenders (chain_id, owner_address, token_address, spender)
            VALUES ${sql.join(spenders.map((m) => sql`(${chainId}, ${m.owner}, ${m.token}, ${m.beneficiary})`))}
            ON CONFLICT DO NOTHING`.execute(db);
}

/** The gas a broadcast write may spend (gas limit x fee cap at acceptance), held from the sender's native balance. */
export async function reserveFee(db: DbConn, id: string, fee: bigint): Promise<void> {
  await sql`UPDATE transactions SET reserved_fee = ${fee.toString()} WHERE id = ${id}`.execute(db);
}

export async function settleWrite(db: DbConn, id: string, o: WriteOutcome): Promise<void> {
  // Same statement time as the transaction's updated_at: the moves count as settled from then (withdrawals/funds.ts).
  await sql`UPDATE contract_moves SET settled_at = now() WHERE transaction_id = ${id}`.execute(db);
  await sql`UPDATE transactions SET status = ${o.status}, stage = ${o.stage}, confirmed = ${o.confirmed}, hash = ${o.hash},
                   block_number = ${text(o.blockNumber)}, block_hash = ${o.blockHash}, gas_used = ${text(o.gasUsed)},
                   gas_price = ${text(o.gasPrice)}, gas_fee = ${text(o.fee)}, fee = ${text(o.fee)},
                   max_fee_per_gas = ${text(o.maxFeePerGas)}, max_priority_fee_per_gas = ${text(o.maxPriorityFeePerGas)},
                   response = ${JSON.stringify(o.response)}::jsonb, updated_at = now()
             WHERE id = ${id}`.execute(db);
}
