/** Assets enabled on a wallet ("wallet assets"). */
import type { Static } from '@sinclair/typebox';
import type { Db, DbConn } from '../../db/pool.js';
import type { Changes } from '../../db/changes.js';
import type { TtlCache } from '../../lib/ttl-cache.js';
import { BusinessRuleError, NotFoundError } from '../../lib/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import type { AuthContext } from '../apikeys/service.js';
import type { AssetHandle, CatalogueService } from '../catalogue/service.js';
import type { WalletRef, WalletService } from '../wallets/service.js';
import type { WalletAssetSchema } from './schemas.js';
import * as store from './store.js';

export type WalletAssetView = Static<typeof WalletAssetSchema>;

export interface EnabledAsset {
  walletAsset: store.WalletAssetRow;
  asset: AssetHandle;
  view: WalletAssetView;
}

/** Published when a wallet's assets change (enable, disable); the id is the wallet's. */
export const WALLET_ASSETS_CHANGED = 'wallet_assets';

export class WalletAssetService {
  /** Wallet id -> its enabled assets, for balance reads (`enabledCached`). */
  readonly #enabled: TtlCache<string, readonly EnabledAsset[]>;

  constructor(
    private readonly db: Db,
    private readonly wallets: WalletService,
    private readonly catalogue: CatalogueService,
    private readonly changes: Changes,
  ) {
    this.#enabled = changes.cache('walletAssets');
    changes.on(WALLET_ASSETS_CHANGED, (walletId) => this.#enabled.delete(walletId));
  }

  async list(auth: AuthContext, walletId: string): Promise<WalletAssetView[]> {
    await this.wallets.require(auth, walletId);
    const rows = await store.listWalletAssets(this.db, walletId);
    return rows.flatMap((r) => {
      const asset = this.catalogue.asset(r.asset_id);
      return asset ? [present(r, asset)] : [];
    });
  }

  /**
   * Enables or disables an asset on a wallet: `PATCH .../assets/{assetId}` `{ isActive }`,
   * `POST .../assets` `{ assetId }` and `DELETE .../assets/{assetId}` all come here. Disabling
   * keeps the wallet asset (inactive) and its history; the indexer and balances leave it
   * out from the COMMIT on. Enabling reads the token's decimals() on chain first.
   *
   * `from`: where the id came from. In a path (PATCH, DELETE) an asset of another chain is
   * as unknown to this wallet as a made-up id (404); named in a body (POST), it is a known
   * catalogue asset (GET /v1/assets lists them all) that this wallet cannot hold (422).
   */
  async setActive(
    auth: AuthContext,
    walletId: string,
    assetId: string,
    isActive: boolean,
    from: 'path' | 'body' = 'path',
  ): Promise<WalletAssetView> {
    const wallet = await this.wallets.require(auth, walletId);
    const existing = await store.findWalletAsset(this.db, walletId, assetId);
    const catalogueId = existing?.asset_id ?? assetId;
    const asset = this.catalogue.asset(catalogueId);
    if (!asset || (!existing && !asset.row.is_active)) throw new NotFoundError('Asset');
    if (asset.chain.id !== wallet.chain_id) {
      if (from === 'path') throw new NotFoundError('Asset');
      const chain = `${asset.chain.row.blockchain_name} (${asset.chain.row.network})`;
      const own = this.catalogue.chain(wallet.chain_id).row;
      throw new BusinessRuleError(
        'ASSET_CHAIN_MISMATCH',
        `Asset ${asset.row.symbol} ${asset.row.id} is on ${chain}; this wallet is on ${own.blockchain_name} (${own.network})`,
        [{ field: 'assetId', message: `an asset of ${chain}, not of the wallet's chain` }],
      );
    }
    if (isActive) await this.#checkDecimals(asset);
    // changes.transaction: balance reads in every process stop (or start) showing it at COMMIT.
    const row = await this.changes.transaction(async (tx) => {
      // After the payouts being accepted, before those that follow (wallets/store.ts lockStanding).
      await this.wallets.lockStanding(tx, walletId);
      const upserted = await store.upsertWalletAsset(tx, existing?.id ?? uuidv7(), walletId, catalogueId, isActive);
      await this.changes.publish(tx, WALLET_ASSETS_CHANGED, walletId);
      return upserted;
    });
    return present(row, asset);
  }

  /**
   * The token on chain must agree with the catalogue on decimals(), or every amount of it
   * would be off by powers of ten (a wrong address or decimals in the chains file). A chain
   * that cannot be reached is a 503 (CHAIN_UNAVAILABLE), as for other chain reads.
   */
  async #checkDecimals(asset: AssetHandle): Promise<void> {
    if (asset.row.is_native) return;
    const onChain = await asset.chain.adapter.readTokenDecimals(asset.row.address);
    if (onChain === asset.row.decimals) return;
    const what = onChain === null ? 'does not answer decimals()' : `reports ${onChain} decimals`;
    throw new BusinessRuleError(
      'ASSET_DECIMALS_MISMATCH',
      `The ${asset.row.symbol} contract ${asset.row.address} ${what} on chain, but the catalogue says ${asset.row.decimals}; fix the chains file before enabling it`,
      [{ field: 'assetId', message: `decimals(): ${onChain ?? 'no answer'} on chain, ${asset.row.decimals} in the catalogue` }],
    );
  }

  /** Active wallet assets whose catalogue asset is active too: what balances cover. Read fresh (on `db`: a caller's transaction). */
  async enabled(wallet: Pick<WalletRef, 'id'>, db: DbConn = this.db): Promise<EnabledAsset[]> {
    const rows = await store.listWalletAssets(db, wallet.id);
    return rows.flatMap((r) => {
      const asset = this.catalogue.asset(r.asset_id);
      if (!r.is_active || !asset || !asset.row.is_active) return [];
      return [Object.freeze({ walletAsset: r, asset, view: present(r, asset) })];
    });
  }

  /**
   * `enabled`, from memory when recently read: for balance reads. Enabling or disabling
   * goes through `setActive`, which invalidates it in every process at COMMIT. (The
   * catalogue side cannot change while a process runs.) Shared between requests: read only.
   */
  async enabledCached(wallet: Pick<WalletRef, 'id'>): Promise<readonly EnabledAsset[]> {
    return (await this.#enabled.getOrLoad(wallet.id, async () => Object.freeze(await this.enabled(wallet)))) ?? [];
  }

  /** Whether `id` (wallet-asset or catalogue id) names an asset of the wallet's chain. */
  async belongsToChain(wallet: Pick<WalletRef, 'id' | 'chain_id'>, id: string): Promise<boolean> {
    const walletAsset = await store.findWalletAsset(this.db, wallet.id, id);
    const asset = this.catalogue.asset(walletAsset?.asset_id ?? id);
    return asset !== undefined && asset.chain.id === wallet.chain_id;
  }

  /** One enabled asset by wallet-asset id or catalogue id, or null when it is not enabled (cached, as `enabledCached`). */
  /**
   * The chain's native coin as a wallet asset, enabled or not (`GET .../balance` without
   * `assetId`, as the described service answers): the wallet's entry when it has one, else
   * the catalogue coin shaped as a wallet asset (its id, `isActive: false`). Null when the
   * chain's catalogue has no active native coin.
   */
  async nativeEntry(wallet: Pick<WalletRef, 'id' | 'chain_id'>): Promise<{ asset: AssetHandle; view: WalletAssetView } | null> {
    const enabled = (await this.enabledCached(wallet)).find((e) => e.asset.row.is_native);
    if (enabled) return enabled;
    const row = this.catalogue.chain(wallet.chain_id).assets.find((a) => a.is_native && a.is_active);
    const asset = row ? this.catalogue.asset(row.id) : undefined;
    if (!asset) return null;
    const own = await store.findWalletAsset(this.db, wallet.id, asset.row.id);
    if (own) return { asset, view: present(own, asset) };
    const at = asset.row.created_at.toISOString();
    return { asset, view: { id: asset.row.id, asset: asset.view, isActive: false, createdAt: at, updatedAt: at } };
  }

  async findEnabled(wallet: Pick<WalletRef, 'id'>, id: string): Promise<EnabledAsset | null> {
    return (await this.enabledCached(wallet)).find((e) => e.walletAsset.id === id || e.asset.row.id === id) ?? null;
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
