import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';

export interface NewApiKey {
  id: string;
  businessId: string;
  walletId: string | null;
  prefix: string;
  hash: Buffer;
  ciphertext: Buffer;
}

export async function insertKey(db: DbConn, key: NewApiKey): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({
      id: key.id,
      business_id: key.businessId,
      wallet_id: key.walletId,
      prefix: key.prefix,
      key_hash: key.hash,
      key_ciphertext: key.ciphertext,
    })
    .execute();
}

/** Revokes the wallet's live key; returns how many were revoked (0 or 1). */
export async function revokeWalletKeys(db: DbConn, walletId: string): Promise<number> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: sql`now()` })
    .where('wallet_id', '=', walletId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export function findLiveKeyByHash(db: DbConn, hash: Buffer) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'business_id', 'wallet_id', 'key_hash', 'prefix'])
    .where('key_hash', '=', hash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

export function findLiveWalletKey(db: DbConn, walletId: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'prefix', 'key_ciphertext', 'created_at'])
    .where('wallet_id', '=', walletId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

export function findLiveBusinessKey(db: DbConn, businessId: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'prefix', 'key_ciphertext'])
    .where('business_id', '=', businessId)
    .where('wallet_id', 'is', null)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}
