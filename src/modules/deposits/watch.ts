/**
 * The addresses one chain's indexer watches (masters, child and external addresses of
 * every wallet on the chain), held in memory so matching a transfer costs a hash lookup
 * whatever their number. Changes are picked up incrementally on every step.
 */
import type { Db } from '../../db/pool.js';
import * as store from './store.js';

export interface Owner {
  walletId: string;
  addressId: string | null;
}

// A full load now and then, as a safety net (e.g. rows written before migration 006,
// which carry no writer transaction id).
const FULL_RELOAD_MS = 5 * 60_000;
/** Address rows per statement of a full load. */
const FULL_LOAD_PAGE = 10_000;

export class WatchSet {
  #owners = new Map<string, Owner>();
  #enabled = new Map<string, Set<string>>();
  /**
   * The oldest transaction still running at the last refresh: rows written by older ones
   * were all visible then, so the next refresh reads only rows written from it on. Unlike a
   * time window, this costs nothing while nobody writes, and never misses a transaction
   * that commits long after it started.
   */
  #horizon: string | null = null;
  #lastFullLoad = 0;
  #generation = 0;

  /**
   * Changes whenever a refresh may have changed the set (a full load, or any changed row),
   * so a scan matched against an older set can be recognised.
   */
  get generation(): number {
    return this.#generation;
  }

  constructor(
    private readonly db: Db,
    private readonly chainId: string,
  ) {}

  async refresh(): Promise<void> {
    const full = this.#horizon === null || Date.now() - this.#lastFullLoad > FULL_RELOAD_MS;
    // A full load replaces the map, so addresses removed since drop out.
    const [horizon, enabled] = await Promise.all([
      full ? this.fullLoad() : this.applyChanges(),
      store.enabledAssetsOfChain(this.db, this.chainId),
    ]);
    this.#horizon = horizon;
    const map = new Map<string, Set<string>>();
    for (const { wallet_id, asset_id } of enabled) {
      let set = map.get(wallet_id);
      if (!set) map.set(wallet_id, (set = new Set()));
      set.add(asset_id);
    }
    this.#enabled = map;
  }

  /**
   * Loads every watched address in pages, so the transient rows of a load stay small
   * (100,000 rows at once peaked at +43 MB of heap). The horizon is read first: a writer
   * that commits during the load is at or above it, so the next incremental read sees it.
   */
  private async fullLoad(): Promise<string> {
    const horizon = await store.watchHorizon(this.db);
    const owners = new Map<string, Owner>();
    // One string per wallet id instead of one per row.
    const walletIds = new Map<string, string>();
    const wallet = (id: string) => walletIds.get(id) ?? (walletIds.set(id, id), id);
    for (let after: string | null = null; ;) {
      const page = await store.liveAddressesPage(this.db, this.chainId, after, FULL_LOAD_PAGE);
      for (const row of page) owners.set(row.address.toLowerCase(), { walletId: wallet(row.wallet_id), addressId: row.id });
      if (page.length < FULL_LOAD_PAGE) break;
      after = page.at(-1)!.id;
    }
    // Masters last: a master address wins over a child row with the same address, as before.
    for (const row of await store.mastersOfChain(this.db, this.chainId)) {
      owners.set(row.address.toLowerCase(), { walletId: wallet(row.id), addressId: null });
    }
    this.#owners = owners;
    this.#generation++;
    this.#lastFullLoad = Date.now();
    return horizon;
  }

  /** Applies the rows written since the last horizon; returns the new horizon. */
  private async applyChanges(): Promise<string> {
    const changes = await store.watchedChanges(this.db, this.chainId, this.#horizon);
    if (changes.rows.length) this.#generation++;
    const removed: string[] = [];
    for (const row of changes.rows) {
      const key = row.address.toLowerCase();
      if (!row.removed) this.#owners.set(key, { walletId: row.wallet_id, addressId: row.address_id });
      else if (this.#owners.get(key)?.addressId === row.address_id) {
        this.#owners.delete(key);
        removed.push(key);
      }
    }
    // Another wallet may still watch an address one wallet removed.
    for (const row of await store.liveOwnersOf(this.db, this.chainId, removed)) {
      this.#owners.set(row.address.toLowerCase(), { walletId: row.wallet_id, addressId: row.address_id });
    }
    return changes.horizon;
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
