/**
 * The offline lists (the OFAC SDN list's digital currency addresses; any list imported with
 * `aml import`), held in memory by every process: screening an address against them is a
 * set lookup. An import replaces a list whole in one transaction and announces it
 * (db/changes.ts, topic `aml-list`); every process reloads that list when the notice
 * arrives, and compares the lists' versions every `refreshMs` besides (a missed notice, a
 * listener reconnecting). Nothing is fetched from the network at run time.
 */
import type { Db, DbConn } from '../../db/pool.js';
import type { Changes } from '../../db/changes.js';
import type { Logger } from '../../lib/logger.js';
import { addressKey } from '../../chains/address-key.js';
import type { ParsedList } from './sdn.js';
import * as store from './store.js';

export const LIST_CHANGED = 'aml-list';
/** A list's name: the provider it is screened as ('ofac' by default). */
export const SOURCE = /^[a-z][a-z0-9-]{0,31}$/;

export type ListInfo = Omit<store.ListRow, 'version'>;

export class OfflineLists {
  readonly #keys = new Map<string, Set<string>>();
  #info: ListInfo[] = [];
  #versions = new Map<string, string>();
  #timer: NodeJS.Timeout | null = null;
  #refreshing: Promise<void> | null = null;
  #again = false;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly refreshMs = 30_000,
  ) {}

  async start(changes: Changes): Promise<void> {
    changes.on(LIST_CHANGED, () => void this.refresh().catch((err) => this.logger.warn({ err }, 'AML list reload failed')));
    await this.refresh();
    this.#timer = setInterval(() => void this.refresh().catch(() => undefined), this.refreshMs);
    this.#timer.unref();
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** The lists in force (imported), by name. */
  sources(): string[] {
    return this.#info.map((l) => l.source);
  }

  info(): ListInfo[] {
    return this.#info;
  }

  has(source: string, address: string): boolean {
    return this.#keys.get(source)?.has(addressKey(address)) ?? false;
  }

  /** Reloads the lists whose version changed (one reload at a time; a notice meanwhile runs another after it). */
  refresh(): Promise<void> {
    if (this.#refreshing) {
      this.#again = true;
      return this.#refreshing;
    }
    this.#refreshing = (async () => {
      try {
        do {
          this.#again = false;
          await this.#reload();
        } while (this.#again);
      } finally {
        this.#refreshing = null;
      }
    })();
    return this.#refreshing;
  }

  /**
   * The lists and their versions are read once, before any entries: what is noted is what was
   * read then, and the entries loaded after are at least that new. (Read again after the
   * entries, a list imported meanwhile was noted at its new version with its entries never
   * loaded, and no later comparison saw it change: screened as empty until its next import.)
   * A list imported during the reload has a newer version than the one noted, so the next
   * reload (its notice, or the periodic comparison) loads it.
   */
  async #reload(): Promise<void> {
    const rows = await store.lists(this.db);
    const versions = new Map(rows.map((r) => [r.source, r.version]));
    const changed = [...versions].filter(([source, v]) => this.#versions.get(source) !== v).map(([s]) => s);
    const gone = [...this.#versions.keys()].filter((s) => !versions.has(s));
    if (changed.length === 0 && gone.length === 0) return;
    for (const source of changed) this.#keys.set(source, new Set(await store.entryKeys(this.db, source)));
    for (const source of gone) this.#keys.delete(source);
    this.#info = rows.map(({ version: _v, ...info }) => info);
    this.#versions = versions;
    this.logger.info({ lists: this.#info.map((l) => ({ source: l.source, entries: l.entries })) }, 'AML lists loaded');
  }
}

/**
 * Replaces list `source` by the parsed file, atomically (one transaction: the old entries
 * go and the new ones come together, or nothing changes), and announces it to every
 * process. Returns what changed.
 */
export async function importList(
  db: Db,
  changes: Changes,
  source: string,
  parsed: ParsedList,
): Promise<{ version: string; entries: number; removed: number }> {
  if (!SOURCE.test(source)) throw new Error(`list name "${source}": lower-case letters, digits and dashes, 32 at most`);
  const seen = new Set<string>();
  const entries = parsed.entries.flatMap((e) => {
    const key = addressKey(e.address);
    const k = `${key}|${e.ticker}`;
    if (seen.has(k)) return [];
    seen.add(k);
    return [{ addressKey: key, address: e.address, ticker: e.ticker, entity: e.entity }];
  });
  return db.transaction().execute(async (tx: DbConn) => {
    const r = await store.replaceList(
      tx,
      { source, fileName: parsed.fileName, sha256: parsed.sha256, format: parsed.format, publishedAt: parsed.publishedAt },
      entries,
    );
    await changes.publish(tx, LIST_CHANGED, source);
    return { version: r.version, entries: entries.length, removed: r.removed };
  });
}
