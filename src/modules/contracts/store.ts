import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import type { Move } from './types.js';

/** Locks a contract write's transaction for its settlement; undefined once it has left PENDING. */
export async function lockPendingWrite(db: DbConn, id: string): Promise<{ id: string } | undefined> {
  const { rows } = await sql<{ id: string }>`
    SELECT id FROM transactions WHERE id = ${id} AND type = 'CUSTOM_SMART_CONTRACT' AND status = 'PENDING' FOR NO KEY UPDATE`.execute(db);
  return rows[0];
}

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

/** A write's moves count as settled from now (the same statement time as its transaction's updated_at: withdrawals/funds.ts). */
export async function settleMoves(db: DbConn, id: string): Promise<void> {
  await sql`UPDATE contract_moves SET settled_at = now() WHERE transaction_id = ${id}`.execute(db);
}

/** A write reopened after a reorganisation: its moves are held again until it settles anew. */
export async function unsettleMoves(db: DbConn, id: string): Promise<void> {
  await sql`UPDATE contract_moves SET settled_at = NULL WHERE transaction_id = ${id}`.execute(db);
}
