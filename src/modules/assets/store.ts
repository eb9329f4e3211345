import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';

export function listWalletAssets(db: DbConn, walletId: string) {
  return db.selectFrom('wallet_assets').selectAll().where('wallet_id', '=', walletId).orderBy('created_at').orderBy('id').execute();
}

export type WalletAssetRow = Awaited<ReturnType<typeof listWalletAssets>>[number];

/** `id` may be the wallet asset's id or the catalogue asset's id (DESIGN section 4). */
export function findWalletAsset(db: DbConn, walletId: string, id: string) {
  return db
    .selectFrom('wallet_assets')
    .selectAll()
    .where('wallet_id', '=', walletId)
    .where((eb) => eb.or([eb('id', '=', id), eb('asset_id', '=', id)]))
    .executeTakeFirst();
}

export async function upsertWalletAsset(db: DbConn, id: string, walletId: string, assetId: string, isActive: boolean) {
  return db
    .insertInto('wallet_assets')
    .values({ id, wallet_id: walletId, asset_id: assetId, is_active: isActive })
    .onConflict((oc) => oc.columns(['wallet_id', 'asset_id']).doUpdateSet({ is_active: isActive, updated_at: sql`now()` }))
    .returningAll()
    .executeTakeFirstOrThrow();
}
