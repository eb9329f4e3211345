/**
 * The catalogue: blockchains, their configured networks (chains) and assets. It is synced
 * from the configuration at start and then held in memory, since it only changes when the
 * configuration does (and every process syncs the same configuration).
 */
import type { Db } from '../../db/pool.js';
import type { ChainConfig } from '../../config/index.js';
import type { PriceFeedConfig } from '../../config/chains.js';
import { pageMeta, type PageMeta } from '../../lib/schema.js';
import { CATALOGUE, ChainRegistry, chainKey, type AdapterFor, type ChainAdapter } from '../../chains/registry.js';
import { NotFoundError } from '../../lib/errors.js';
import { addressKey } from '../../chains/address-key.js';
import * as store from './store.js';
import { presentAsset, presentBlockchain, presentChainBlockchain, type AssetView, type BlockchainView } from './present.js';

export interface ChainHandle {
  id: string;
  key: string;
  row: store.ChainRow;
  config: ChainConfig;
  adapter: ChainAdapter;
  assets: store.AssetRow[];
}

/** The chain's catalogued token (not its native coin) at `address`, compared as the family compares addresses. */
export function tokenAt(chain: Pick<ChainHandle, 'assets'>, address: string): store.AssetRow | undefined {
  const key = addressKey(address);
  return chain.assets.find((a) => !a.is_native && a.address !== null && addressKey(a.address) === key);
}

export interface AssetHandle {
  row: store.AssetRow;
  chain: ChainHandle;
  view: AssetView;
  /** The asset's USD price feed (the chain's configuration, by symbol); null when none. */
  priceFeed: PriceFeedConfig | null;
}

/** Filters of `GET /v1/assets`, as the described service names them. */
export interface AssetFilter {
  network?: string;
  /** Any letter case. */
  symbol?: string;
  blockchainId?: string;
}

export class CatalogueService {
  readonly registry: ChainRegistry;
  readonly #chains = new Map<string, ChainHandle>();
  readonly #chainsByKey = new Map<string, ChainHandle>();
  readonly #assets = new Map<string, AssetHandle>();

  private constructor(
    private readonly db: Db,
    registry: ChainRegistry,
  ) {
    this.registry = registry;
  }

  /** Writes the configured chains into the database and loads the catalogue; `adapterFor`: see ChainRegistry. */
  static async start(db: Db, chains: ChainConfig[], adapterFor?: AdapterFor): Promise<CatalogueService> {
    await db.transaction().execute(async (tx) => {
      const configured = new Set(chains.map((c) => c.blockchain.slug));
      for (const known of CATALOGUE) {
        if (configured.has(known.slug)) continue;
        await store.upsertBlockchain(tx, { ...known, tokenStandard: known.tokenStandard }, false);
      }
      const keep: string[] = [];
      for (const chain of chains) {
        const blockchainId = await store.upsertBlockchain(tx, chain.blockchain, true);
        const chainRowId = await store.upsertChain(tx, blockchainId, chain.network, chain.chainId, chain.confirmations);
        keep.push(chainRowId);
        for (const asset of chain.assets) await store.upsertAsset(tx, chainRowId, asset);
        await store.deactivateAssetsExcept(
          tx,
          chainRowId,
          chain.assets.map((a) => a.address),
        );
      }
      await store.deactivateChainsExcept(tx, keep);
    });
    const service = new CatalogueService(db, new ChainRegistry(chains, adapterFor));
    await service.load(chains);
    return service;
  }

  private async load(chains: ChainConfig[]): Promise<void> {
    const [chainRows, assetRows] = await Promise.all([store.listChains(this.db), store.listAssets(this.db)]);
    for (const row of chainRows) {
      const key = chainKey(row.slug, row.network);
      const config = chains.find((c) => chainKey(c.blockchain.slug, c.network) === key);
      const adapter = this.registry.find(row.slug, row.network);
      if (!config || !adapter || !row.chain_is_active) continue;
      const handle: ChainHandle = { id: row.chain_row_id, key, row, config, adapter, assets: [] };
      this.#chains.set(handle.id, handle);
      this.#chainsByKey.set(key, handle);
    }
    for (const row of assetRows) {
      const chain = this.#chains.get(row.chain_id);
      if (!chain) continue;
      if (row.is_active) chain.assets.push(row);
      // A row the configuration no longer lists keeps its history, not a symbol's feed.
      const priceFeed = (row.is_active && chain.config.priceFeeds?.[row.symbol]) || null;
      this.#assets.set(row.id, { row, chain, view: presentAsset(row, chain.row), priceFeed });
    }
  }

  async listBlockchains(): Promise<BlockchainView[]> {
    return (await store.listBlockchains(this.db)).map(presentBlockchain);
  }

  chains(): ChainHandle[] {
    return [...this.#chains.values()];
  }

  /** A configured chain by row id; wallets always point at one. */
  chain(id: string): ChainHandle {
    const chain = this.#chains.get(id);
    if (!chain) throw new NotFoundError('Chain');
    return chain;
  }

  findChain(slug: string, network: string): ChainHandle | undefined {
    return this.#chainsByKey.get(chainKey(slug, network));
  }

  asset(id: string): AssetHandle | undefined {
    return this.#assets.get(id);
  }

  /** Active assets of the configured chains, blockchain by blockchain (native coin first). */
  activeAssets(): AssetHandle[] {
    return [...this.#assets.values()]
      .filter((a) => a.row.is_active)
      .sort(
        (a, b) =>
          a.chain.row.blockchain_name.localeCompare(b.chain.row.blockchain_name) ||
          a.chain.row.network.localeCompare(b.chain.row.network) ||
          Number(b.row.is_native) - Number(a.row.is_native) ||
          a.row.symbol.localeCompare(b.row.symbol) ||
          a.row.id.localeCompare(b.row.id),
      );
  }

  /** `GET /v1/assets`: the shared catalogue, filtered and paginated (it is held in memory). */
  listAssets(filter: AssetFilter, page: number, limit: number): { items: AssetView[]; meta: PageMeta } {
    const symbol = filter.symbol?.toUpperCase();
    const all = this.activeAssets().filter(
      (a) =>
        (!filter.network || a.chain.row.network === filter.network) &&
        (!symbol || a.row.symbol.toUpperCase() === symbol) &&
        (!filter.blockchainId || a.chain.row.blockchain_id === filter.blockchainId),
    );
    const items = all.slice((page - 1) * limit, page * limit).map((a) => a.view);
    return { items, meta: pageMeta(page, limit, items.length, all.length) };
  }

  blockchainView(chain: ChainHandle): BlockchainView {
    return presentChainBlockchain(chain.row);
  }

  close(): void {
    this.registry.close();
  }
}
