/**
 * Every process holds the offline lists in memory and reloads a list whose version changed
 * (lists.ts). A list imported while a process was reloading another (an operator's daily job
 * importing the OFAC list and then an internal one, back to back) must be loaded all the
 * same: the process may not note a version whose entries it never read, or it screens
 * against the old list until the next import of that list. The import is made to commit
 * exactly while the reload reads the first list's entries (a plugin on the reload's
 * database handle), so the test is deterministic.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { createDatabase, type Database$ } from '../../src/db/pool.js';
import type { Changes } from '../../src/db/changes.js';
import { createLogger } from '../../src/lib/logger.js';
import { importList, OfflineLists } from '../../src/modules/aml/lists.js';
import type { ParsedList } from '../../src/modules/aml/sdn.js';
import { createDatabaseFromTemplate, dropDatabase } from '../support/harness.js';

let url: string;
let database: Database$;
// The notices are not what is tested: each reload is called here.
const changes = { publish: async () => undefined } as unknown as Changes;

beforeAll(async () => {
  url = await createDatabaseFromTemplate();
  database = createDatabase(url, createLogger('silent'));
});
afterAll(async () => {
  await database?.close();
  if (url) await dropDatabase(url);
});

const list = (...addresses: string[]): ParsedList => ({
  fileName: 'list.txt',
  sha256: addresses.join(','),
  format: 'plain',
  publishedAt: null,
  entries: addresses.map((address) => ({ address, ticker: '', entity: null })),
});

/** Runs `hook` once, after the next read of a list's entries returns and before the reload goes on. */
class AfterEntriesRead implements KyselyPlugin {
  hook: (() => Promise<void>) | null = null;
  readonly #entryReads = new Set<unknown>();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const node = args.node as { kind: string; sqlFragments?: readonly string[] };
    if (node.kind === 'RawNode' && node.sqlFragments?.join('?').includes('FROM aml_list_entries')) this.#entryReads.add(args.queryId);
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.#entryReads.delete(args.queryId) && this.hook) {
      const hook = this.hook;
      this.hook = null;
      await hook();
    }
    return args.result;
  }
}

describe('offline lists reloaded while another list is imported', () => {
  it('a list whose import committed during the reload of another is loaded', async () => {
    const X = '0x1111111111111111111111111111111111111111';
    const Y = '0x2222222222222222222222222222222222222222';
    const Z = 'TVqRLB8Bnnsve8BJ2DvtdUTxJcmz6zyGxW';
    await importList(database.db, changes, 'ofac', list(X));
    const plugin = new AfterEntriesRead();
    const lists = new OfflineLists(database.db.withPlugin(plugin), createLogger('silent'));
    await lists.refresh();
    expect(lists.has('ofac', X)).toBe(true);

    // The OFAC list changes; while this process reads its new entries, the internal list is imported.
    await importList(database.db, changes, 'ofac', list(X, Y));
    plugin.hook = async () => void (await importList(database.db, changes, 'internal', list(Z)));
    await lists.refresh();
    expect(plugin.hook).toBeNull();
    expect(lists.has('ofac', Y)).toBe(true);
    // The internal list's notice (and the periodic comparison) run the reload again.
    await lists.refresh();
    expect(lists.sources()).toEqual(['internal', 'ofac']);
    expect(lists.has('internal', Z)).toBe(true);
  });
});
