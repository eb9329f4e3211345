import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';

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

export async function settleWrite(db: DbConn, id: string, o: WriteOutcome): Promise<void> {
  await sql`UPDATE transactions SET status = ${o.status}, stage = ${o.stage}, confirmed = ${o.confirmed}, hash = ${o.hash},
                   block_number = ${text(o.blockNumber)}, block_hash = ${o.blockHash}, gas_used = ${text(o.gasUsed)},
                   gas_price = ${text(o.gasPrice)}, gas_fee = ${text(o.fee)}, fee = ${text(o.fee)},
                   max_fee_per_gas = ${text(o.maxFeePerGas)}, max_priority_fee_per_gas = ${text(o.maxPriorityFeePerGas)},
                   response = ${JSON.stringify(o.response)}::jsonb, updated_at = now()
             WHERE id = ${id}`.execute(db);
}
