/**
 * The outbound pipeline's nonce counters ('nonce' families only): one row per (chain,
 * sender) in `nonces`, taken under a row lock in the caller's transaction. Re-exported by
 * store.ts; split off to keep that file readable in one sitting.
 */
import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';

export async function peekNonce(db: DbConn, chainId: string, address: string): Promise<bigint | null> {
  const { rows } = await sql<{
    next_nonce: string;
  }>`SELECT next_nonce FROM nonces WHERE chain_id = ${chainId} AND address = ${address}`.execute(db);
  return rows[0] ? BigInt(rows[0].next_nonce) : null;
}

/**
 * Takes the sender's next nonce. The upsert locks the counter row until the caller's
 * transaction ends, so concurrent allocations queue behind it and a rollback gives the
 * nonce back: gap- and duplicate-free across processes. `seed` (the chain's count, or 0
 * when the row already existed) only ever raises the counter, so a late or stale read of
 * the chain cannot move it backwards.
 */
export async function allocateNonce(db: DbConn, chainId: string, address: string, seed: bigint): Promise<bigint> {
  const { rows } = await sql<{ nonce: string }>`
    INSERT INTO nonces (chain_id, address, next_nonce) VALUES (${chainId}, ${address}, ${seed + 1n})
    ON CONFLICT (chain_id, address) DO UPDATE
       SET next_nonce = GREATEST(nonces.next_nonce, EXCLUDED.next_nonce - 1) + 1, updated_at = now()
    RETURNING next_nonce - 1 AS nonce`.execute(db);
  return BigInt(rows[0]!.nonce);
}

/** Takes the next nonce of a sender the counter already knows (row lock as allocateNonce); null otherwise. */
export async function takeNonce(db: DbConn, chainId: string, address: string): Promise<bigint | null> {
  return takeNonces(db, chainId, address, 1);
}

/**
 * Takes `count` consecutive nonces in one statement (a batch of sends from one sender);
 * returns the first. Same row lock, gap- and duplicate-free, as takeNonce.
 */
export async function takeNonces(db: DbConn, chainId: string, address: string, count: number): Promise<bigint | null> {
  const { rows } = await sql<{ nonce: string }>`
    UPDATE nonces SET next_nonce = next_nonce + ${count}, updated_at = now() WHERE chain_id = ${chainId} AND address = ${address}
    RETURNING next_nonce - ${count} AS nonce`.execute(db);
  return rows[0] ? BigInt(rows[0].nonce) : null;
}

/** allocateNonce for `count` consecutive nonces; returns the first. */
export async function allocateNonces(db: DbConn, chainId: string, address: string, seed: bigint, count: number): Promise<bigint> {
  const { rows } = await sql<{ nonce: string }>`
    INSERT INTO nonces (chain_id, address, next_nonce) VALUES (${chainId}, ${address}, ${seed + BigInt(count)})
    ON CONFLICT (chain_id, address) DO UPDATE
       SET next_nonce = GREATEST(nonces.next_nonce, EXCLUDED.next_nonce - ${count}) + ${count}, updated_at = now()
    RETURNING next_nonce - ${count} AS nonce`.execute(db);
  return BigInt(rows[0]!.nonce);
}

/** Raises the counter to the chain's mined count when the key was used outside the pipeline. */
export async function raiseNonce(db: DbConn, chainId: string, address: string, atLeast: bigint): Promise<void> {
  await sql`UPDATE nonces SET next_nonce = ${atLeast}, updated_at = now()
             WHERE chain_id = ${chainId} AND address = ${address} AND next_nonce < ${atLeast}`.execute(db);
}
