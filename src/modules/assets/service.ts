/** Assets enabled on a wallet ("wallet assets"). */
import type { Static } from '@sinclair/typebox';
import type { Db } from '../../db/pool.js';
import { NotFoundError } from '../../lib/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import type { AuthContext } from '../apikeys/service.js';
import type { AssetHandle, CatalogueService } from '../catalogue/service.js';
import type { WalletRow, WalletService } from '../wallets/service.js';
import type { WalletAssetSchema } from './schemas.js';
import * as store from './store.js';

export type WalletAssetView = Static<typeof WalletAssetSchema>;

export interface EnabledAsset {
  walletAsset: store.WalletAssetRow;
  asset: AssetHandle;
  view: WalletAssetView;
}

export class WalletAssetService {
  constructor(
    private readonly db: Db,
    private readonly wallets: WalletService,
    private readonly catalogue: CatalogueService,
  ) {}

  async list(auth: AuthContext, walletId: string): Promise<WalletAssetView[]> {
    await this.wallets.require(auth, walletId);
    const rows = await store.listWalletAssets(this.db, walletId);
    return rows.flatMap((r) => {
      const asset = this.catalogue.asset(r.asset_id);
      return asset ? [present(r, asset)] : [];
    });
  }

  async setActive(auth: AuthContext, walletId: string, assetId: string, isActive: boolean): Promise<WalletAssetView> {
    const wallet = await this.wallets.require(auth, walletId);
    const existing = await store.findWalletAsset(this.db, walletId, assetId);
    const catalogueId = existing?.asset_id ?? assetId;
    const asset = this.catalogue.asset(catalogueId);
    // An asset of another chain is as unknown to this wallet as a made-up id.
    if (!asset || asset.chain.id !== wallet.chain_id || (!existing && !asset.row.is_active)) throw new NotFoundError('Asset');
    const row = await store.upsertWalletAsset(this.db, existing?.id ?? uuidv7(), walletId, catalogueId, isActive);
    return present(row, asset);
  }

  /** Active wallet assets whose catalogue asset is active too: what balances cover. */
  async enabled(wallet: WalletRow): Promise<EnabledAsset[]> {
    const rows = await store.listWalletAssets(this.db, wallet.id);
    return rows.flatMap((r) => {
      const asset = this.catalogue.asset(r.asset_id);
      if (!r.is_active || !asset || !asset.row.is_active) return [];
      return [{ walletAsset: r, asset, view: present(r, asset) }];
    });
  }

  /** Whether `id` (wallet-asset or catalogue id) names an asset of the wallet's chain. */
  async belongsToChain(wallet: WalletRow, id: string): Promise<boolean> {
    const walletAsset = await store.findWalletAsset(this.db, wallet.id, id);
    const asset = this.catalogue.asset(walletAsset?.asset_id ?? id);
    return asset !== undefined && asset.chain.id === wallet.chain_id;
  }

  /** One enabled asset by wallet-asset id or catalogue id, or null when it is not enabled. */
  async findEnabled(wallet: WalletRow, id: string): Promise<EnabledAsset | null> {
    return (await this.enabled(wallet)).find((e) => e.walletAsset.id === id || e.asset.row.id === id) ?? null;
  }
}

function present(row: store.WalletAssetRow, asset: AssetHandle): WalletAssetView {
  return {
    id: row.id,
    asset: asset.view,
    isActive: row.is_active,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
