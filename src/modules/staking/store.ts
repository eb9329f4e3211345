/**
 * What staking operations of a master are still on their way to the chain, read under the
 * master's staking lock: the rules of a new operation count them (service.ts, pendingState).
 */
import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import { addressKey } from '../../chains/address-key.js';

/** Staking operations of one master on one chain, one at a time from acceptance to COMMIT. */
export async function lockMaster(db: DbConn, chainId: string, master: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`staking:${chainId}:${addressKey(master)}`}, 0))`.execute(db);
}

export interface InFlight {
  type: string;
  amount: string;
  resource: string | null;
}

/**
 * The master's staking Transactions accepted and not yet mined (created, signed, broadcast):
 * what the chain's state, read before, does not show yet. A mined one shows there.
 */
export async function inFlight(db: DbConn, walletId: string, chainId: string, types: readonly string[]): Promise<InFlight[]> {
  const { rows } = await sql<InFlight>`
    SELECT type, amount, metadata -> 'staking' ->> 'resource' AS resource FROM transactions
     WHERE wallet_id = ${walletId} AND chain_id = ${chainId} AND type = ANY(${types}::text[])
       AND status = 'PENDING' AND stage IN ('created', 'signed', 'broadcast')`.execute(db);
  return rows;
}
