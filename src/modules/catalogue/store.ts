import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import { uuidv7 } from '../../lib/ids.js';
import type { BlockchainInfo, ChainAssetConfig } from '../../config/chains.js';

export type BlockchainRow = Awaited<ReturnType<typeof listBlockchains>>[number];

export async function upsertBlockchain(db: DbConn, info: BlockchainInfo, isActive: boolean): Promise<string> {
  const row = await db
    .insertInto('blockchains')
    .values({
      id: uuidv7(),
      slug: info.slug,
      name: info.name,
      symbol: info.symbol,
      derivation_path: info.derivationPath,
      is_evm_compatible: info.isEvmCompatible,
      is_l2: info.isL2,
      logo_url: info.logoUrl,
      token_standard: info.tokenStandard,
      is_active: isActive,
    })
    .onConflict((oc) =>
      oc.column('slug').doUpdateSet({
        name: info.name,
        symbol: info.symbol,
        derivation_path: info.derivationPath,
        is_evm_compatible: info.isEvmCompatible,
        is_l2: info.isL2,
        logo_url: info.logoUrl,
        token_standard: info.tokenStandard,
        is_active: isActive,
        updated_at: sql`now()`,
      }),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function upsertChain(
  db: DbConn,
  blockchainId: string,
  network: string,
  chainId: number,
  confirmations: number,
): Promise<string> {
  const row = await db
    .insertInto('chains')
    .values({ id: uuidv7(), blockchain_id: blockchainId, network, chain_id: String(chainId), confirmations, is_active: true })
    .onConflict((oc) =>
      oc
        .columns(['blockchain_id', 'network'])
        .doUpdateSet({ chain_id: String(chainId), confirmations, is_active: true, updated_at: sql`now()` }),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function deactivateChainsExcept(db: DbConn, keepIds: string[]): Promise<void> {
  let q = db
    .updateTable('chains')
    .set({ is_active: false, updated_at: sql`now()` })
    .where('is_active', '=', true);
  if (keepIds.length) q = q.where('id', 'not in', keepIds);
  await q.execute();
}

export async function upsertAsset(db: DbConn, chainRowId: string, asset: ChainAssetConfig): Promise<void> {
  await db
    .insertInto('assets')
    .values({
      id: uuidv7(),
      chain_id: chainRowId,
      name: asset.name,
      symbol: asset.symbol,
      address: asset.address,
      decimals: asset.decimals,
      standard: asset.standard,
      is_native: asset.isNative,
      currency: asset.currency,
      is_active: true,
    })
    .onConflict((oc) =>
      oc.columns(['chain_id', 'address']).doUpdateSet({
        name: asset.name,
        symbol: asset.symbol,
        decimals: asset.decimals,
        standard: asset.standard,
        is_native: asset.isNative,
        currency: asset.currency,
        is_active: true,
        updated_at: sql`now()`,
      }),
    )
    .execute();
}

/** Assets of a chain that the configuration no longer lists stay for history, inactive. */
export async function deactivateAssetsExcept(db: DbConn, chainRowId: string, keepAddresses: string[]): Promise<void> {
  await db
    .updateTable('assets')
    .set({ is_active: false, updated_at: sql`now()` })
    .where('chain_id', '=', chainRowId)
    .where('address', 'not in', keepAddresses)
    .execute();
}

export function listBlockchains(db: DbConn) {
  return db.selectFrom('blockchains').selectAll().orderBy('name').execute();
}

const chainColumns = [
  'chains.id as chain_row_id',
  'chains.network',
  'chains.chain_id',
  'chains.confirmations',
  'chains.is_active as chain_is_active',
  'blockchains.id as blockchain_id',
  'blockchains.slug',
  'blockchains.name as blockchain_name',
  'blockchains.symbol as blockchain_symbol',
  'blockchains.derivation_path',
  'blockchains.is_evm_compatible',
  'blockchains.is_l2',
  'blockchains.logo_url as blockchain_logo_url',
  'blockchains.token_standard',
  'blockchains.is_active as blockchain_is_active',
  'blockchains.created_at as blockchain_created_at',
  'blockchains.updated_at as blockchain_updated_at',
] as const;

export function listChains(db: DbConn) {
  return db.selectFrom('chains').innerJoin('blockchains', 'blockchains.id', 'chains.blockchain_id').select(chainColumns).execute();
}

export type ChainRow = Awaited<ReturnType<typeof listChains>>[number];

export function listAssets(db: DbConn) {
  return db.selectFrom('assets').selectAll().orderBy('symbol').execute();
}

export type AssetRow = Awaited<ReturnType<typeof listAssets>>[number];
