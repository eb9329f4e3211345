/**
 * The addresses one chain's indexer watches (masters, child and external addresses of
 * every wallet on the chain), held in memory so matching a transfer costs a hash lookup
 * whatever their number. New addresses are picked up incrementally on every step.
 */
import type { Db } from '../../db/pool.js';
import * as store from './store.js';

export interface Owner {
  walletId: string;
  addressId: string | null;
}

// Rows are read by last change (a removed external address added again is a change); a
// transaction may commit a little after the time it stamped, so every refresh re-reads a
// window behind the newest row seen.
const OVERLAP_MS = 60_000;
const FULL_RELOAD_MS = 5 * 60_000;

export class WatchSet {
  #owners = new Map<string, Owner>();
  #enabled = new Map<string, Set<string>>();
  #newest: Date | null = null;
  #lastFullLoad = 0;
  #lastRefresh = 0;

  constructor(
    private readonly db: Db,
    private readonly chainId: string,
  ) {}

  async refresh(): Promise<void> {
    const full = this.#newest === null || Date.now() - this.#lastFullLoad > FULL_RELOAD_MS;
    const since = full ? null : new Date(this.#newest!.getTime() - OVERLAP_MS);
    const startedAt = Date.now();
    const [rows, enabled, removed] = await Promise.all([
      store.watchedSince(this.db, this.chainId, since),
      store.enabledAssetsOfChain(this.db, this.chainId),
      full ? Promise.resolve([]) : store.removedSince(this.db, this.chainId, new Date(this.#lastRefresh - OVERLAP_MS)),
    ]);
    this.#lastRefresh = startedAt;
    if (full) {
      // A full load replaces the map, so addresses removed since (external ones) drop out.
      this.#lastFullLoad = Date.now();
      this.#owners = new Map();
    }
    for (const row of rows) {
      this.#owners.set(row.address.toLowerCase(), { walletId: row.wallet_id, addressId: row.address_id });
      if (!this.#newest || row.changed_at > this.#newest) this.#newest = row.changed_at;
    }
    for (const address of removed) {
      // Re-added in the meantime? Then the rows above have just put it back.
      if (!rows.some((r) => r.address.toLowerCase() === address.toLowerCase())) this.#owners.delete(address.toLowerCase());
    }
    const map = new Map<string, Set<string>>();
    for (const { wallet_id, asset_id } of enabled) {
      let set = map.get(wallet_id);
      if (!set) map.set(wallet_id, (set = new Set()));
      set.add(asset_id);
    }
    this.#enabled = map;
  }

  readonly has = (address: string): boolean => this.#owners.has(address.toLowerCase());

  get(address: string): Owner | undefined {
    return this.#owners.get(address.toLowerCase());
  }

  isEnabled(walletId: string, assetId: string): boolean {
    return this.#enabled.get(walletId)?.has(assetId) ?? false;
  }

  get size(): number {
    return this.#owners.size;
  }
}
