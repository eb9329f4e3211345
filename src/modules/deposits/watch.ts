/**
 * The addresses one chain's indexer watches (masters, child and external addresses of
 * every wallet on the chain), held in memory so matching a transfer costs a hash lookup
 * whatever their number. Changes are picked up incrementally on every step.
 */
import type { Db } from '../../db/pool.js';
import * as store from './store.js';
import { addressKey } from '../../chains/address-key.js';

/** A wallet credited with deposits to an address: `addressId` null for its master address. */
export interface Owner {
  walletId: string;
  addressId: string | null;
}

/** A wallet watching an address, and whether the service holds the address's key (master or child). */
export interface Watcher extends Owner {
  internal: boolean;
}

/**
 * The wallets credited with a transfer to an address its watchers watch. An address the
 * service holds a key for is the key holder's alone, whoever else registered it as external
 * (a registration written before that was refused, or racing a new child address); an
 * outside address is credited to every wallet watching it, each with its own record. Two
 * key holders of one address cannot happen (keys are random); the master would win.
 */
export function credited(watchers: readonly Watcher[]): Watcher[] {
  let holder: Watcher | undefined;
  for (const w of watchers) if (w.internal && (!holder || (holder.addressId !== null && w.addressId === null))) holder = w;
  return holder ? [holder] : [...watchers];
}

/** One watcher (the usual case, kept unboxed: 100,000 addresses) or several. */
type Entry = Watcher | Watcher[];

const same = (a: Watcher, b: Watcher) => a.addressId === b.addressId && a.walletId === b.walletId;

// A full load now and then, as a safety net (e.g. rows written before migration 006,
// which carry no writer transaction id).
const FULL_RELOAD_MS = 5 * 60_000;
/** Address rows per statement of a full load. */
const FULL_LOAD_PAGE = 10_000;

export class WatchSet {
  #owners = new Map<string, Entry>();
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
    const owners = new Map<string, Entry>();
    // One string per wallet id instead of one per row.
    const walletIds = new Map<string, string>();
    const wallet = (id: string) => walletIds.get(id) ?? (walletIds.set(id, id), id);
    await store.eachLiveAddressPage(this.db, this.chainId, FULL_LOAD_PAGE, (page) => {
      for (const row of page) add(owners, row.address, { walletId: wallet(row.wallet_id), addressId: row.id, internal: row.internal });
    });
    for (const row of await store.mastersOfChain(this.db, this.chainId)) {
      add(owners, row.address, { walletId: wallet(row.id), addressId: null, internal: true });
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
    for (const row of changes.rows) {
      const watcher = { walletId: row.wallet_id, addressId: row.address_id, internal: row.internal };
      // Every watcher is kept, so one wallet's removal leaves the others' as they were.
      if (row.removed) remove(this.#owners, row.address, watcher);
      else add(this.#owners, row.address, watcher);
    }
    return changes.horizon;
  }

  readonly has = (address: string): boolean => this.#owners.has(addressKey(address));

  /** The wallets a transfer to `address` is credited to (see `credited`); empty when unwatched. */
  owners(address: string): Watcher[] {
    const entry = this.#owners.get(addressKey(address));
    if (!entry) return [];
    return Array.isArray(entry) ? credited(entry) : [entry];
  }

  isEnabled(walletId: string, assetId: string): boolean {
    return this.#enabled.get(walletId)?.has(assetId) ?? false;
  }

  get size(): number {
    return this.#owners.size;
  }
}

/** Adds (or replaces) one wallet's watch of an address. */
function add(map: Map<string, Entry>, address: string, w: Watcher): void {
  const key = addressKey(address);
  const entry = map.get(key);
  if (!entry) map.set(key, w);
  else if (!Array.isArray(entry)) map.set(key, same(entry, w) ? w : [entry, w]);
  else {
    const i = entry.findIndex((e) => same(e, w));
    if (i >= 0) entry[i] = w;
    else entry.push(w);
  }
}

function remove(map: Map<string, Entry>, address: string, w: Watcher): void {
  const key = addressKey(address);
  const entry = map.get(key);
  if (!entry) return;
  const rest = (Array.isArray(entry) ? entry : [entry]).filter((e) => !same(e, w));
  if (rest.length === 0) map.delete(key);
  else map.set(key, rest.length === 1 ? rest[0]! : rest);
}
