/**
 * The catalogue: blockchains, their configured networks (chains) and assets. It is synced
 * from the configuration at start and then held in memory, since it only changes when the
 * configuration does (and every process syncs the same configuration).
 */
import type { Db } from '../../db/pool.js';
import type { ChainConfig } from '../../config/index.js';
import { EVM_CATALOGUE } from '../../config/catalogue.js';
import { ChainRegistry, chainKey, type ChainAdapter } from '../../chains/registry.js';
import { NotFoundError } from '../../lib/errors.js';
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

export interface AssetHandle {
  row: store.AssetRow;
  chain: ChainHandle;
  view: AssetView;
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

  /** Writes the configured chains into the database and loads the catalogue. */
  static async start(db: Db, chains: ChainConfig[]): Promise<CatalogueService> {
    await db.transaction().execute(async (tx) => {
      const configured = new Set(chains.map((c) => c.blockchain.slug));
      for (const known of EVM_CATALOGUE) {
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
    const service = new CatalogueService(db, new ChainRegistry(chains));
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
      this.#assets.set(row.id, { row, chain, view: presentAsset(row, chain.row) });
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

  blockchainView(chain: ChainHandle): BlockchainView {
    return presentChainBlockchain(chain.row);
  }

  close(): void {
    this.registry.close();
  }
}
