/**
 * The in-memory caches behind authentication and balance reads (db/changes.ts), through
 * real HTTP on two service instances sharing one real PostgreSQL, as two `npm start -- api`
 * processes would: a revoked key and a disabled asset take effect in both, the
 * cross-process path is the NOTIFY (b keeps entries for a minute here, so only a notification
 * can make it refuse one sooner; test/api/revocation.test.ts measures the shipped 90 ms
 * bound), a revocation written behind the service's back notifies through migration 037's
 * trigger, a dropped listener connection flushes the cache, and the caches stay bounded.
 * test/api/auth-limits.test.ts has the rest of the unknown-key cache.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { createDatabase, type Database$ } from '../../src/db/pool.js';
import { Changes } from '../../src/db/changes.js';
import { LocalKeyVault } from '../../src/keys/vault.js';
import { createServices, type Services } from '../../src/services.js';
import { buildServer } from '../../src/server.js';
import { createLogger } from '../../src/lib/logger.js';
import pg from 'pg';
import { startHarness, type Harness } from '../support/harness.js';
import { CHANGES_CHANNEL } from '../../src/db/changes.js';

let h: Harness;
/** The second "process": its own pool, service graph, caches, listener and HTTP server. */
let b: { database: Database$; services: Services; app: FastifyInstance; baseUrl: string };
const MAX_ENTRIES = 3;

beforeAll(async () => {
  h = await startHarness();
  const logger = createLogger('silent');
  const database = createDatabase(h.databaseUrl, logger);
  const services = await createServices(
    database.db,
    new LocalKeyVault(h.kek),
    {
      chains: h.devnet.chains.map((c) => c.config),
      addressLimit: 100_000,
      keyExport: { testnet: true, mainnet: false },
      // The guessing test below sends hundreds of bad keys from one address.
      apiLimits: { keyRate: 0, authFailures: 0, authFailureWindowS: 60 },
    },
    // Entries live a minute (good keys too, instead of 90 ms): only an invalidation removes
    // them while a test runs, however slow the machine.
    { logger, databaseUrl: h.databaseUrl, cache: { maxEntries: MAX_ENTRIES, ttlMs: 60_000, liveKeyTtlMs: 60_000 } },
  );
  const app = await buildServer({ services, logger });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  b = { database, services, app, baseUrl: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
});

afterAll(async () => {
  await b?.app.close();
  await b?.services.close();
  await b?.database.close();
  await h?.stop();
});

/** A request to either instance. */
async function call(instance: 'a' | 'b', method: string, path: string, key: string, body?: unknown) {
  const base = instance === 'a' ? h.baseUrl : b.baseUrl;
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function newWallet(name: string): Promise<{ id: string; apiKey: string }> {
  const res = await call('a', 'POST', '/v1/wallets', h.businessKey, { blockchain: 'devnet-eth', network: 'testnet', name });
  expect(res.status).toBe(200);
  return { id: res.body.data.id, apiKey: res.body.data.apiKey };
}

const balances = (instance: 'a' | 'b', walletId: string, key: string) => call(instance, 'GET', `/v1/wallets/${walletId}/balances`, key);
const symbols = (res: { body: any }) =>
  (res.body.data as { asset: { asset: { symbol: string } } }[]).map((e) => e.asset.asset.symbol).sort();

/** Counts the API-key lookups (store.findLiveKeysByHashes) any pg client of this process sends. */
function countKeyLookups(): { n: number; stop(): void } {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const counter = {
    n: 0,
    stop: () => {
      proto.query = original;
    },
  };
  proto.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0];
    const text = typeof q === 'string' ? q : ((q as { text?: string } | null)?.text ?? '');
    if (text.includes('key_hash = ANY')) counter.n++;
    return original.apply(this, args);
  };
  return counter;
}

/** Polls one instance with a key until it is refused; fails after 10 s (b caches good keys for a minute). */
async function refusedSoon(instance: 'a' | 'b', walletId: string, key: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { status } = await balances(instance, walletId, key);
    if (status === 401) return;
    expect(status).toBe(200);
    if (Date.now() > deadline) throw new Error(`${instance} still accepts the revoked key after 10 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('cache invalidation', () => {
  it('both instances listen, so their caches are on', () => {
    expect(h.services.changes.live).toBe(true);
    expect(b.services.changes.live).toBe(true);
  });

  it('a regenerated key answers 401 on the very next request, in the same instance', async () => {
    const w = await newWallet('Rotate here');
    for (let i = 0; i < 3; i++) expect((await balances('a', w.id, w.apiKey)).status).toBe(200);
    const regen = await call('a', 'POST', `/v1/wallets/${w.id}/api-key/regenerate`, h.businessKey);
    expect(regen.status).toBe(200);
    const old = await balances('a', w.id, w.apiKey);
    expect(old.status).toBe(401);
    expect(old.body).toMatchObject({ statusCode: 401, error: expect.any(String), requestId: expect.any(String) });
    expect((await balances('a', w.id, regen.body.data.apiKey)).status).toBe(200);
  });

  it('concurrent regenerations all succeed, in both instances, and leave exactly one working key', async () => {
    const w = await newWallet('Rotate at once');
    const regens = await Promise.all(
      (['a', 'b', 'a', 'b', 'a', 'b'] as const).map((i) => call(i, 'POST', `/v1/wallets/${w.id}/api-key/regenerate`, h.businessKey)),
    );
    expect(regens.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const working = [];
    for (const r of regens) if ((await balances('a', w.id, r.body.data.apiKey)).status === 200) working.push(r);
    expect(working).toHaveLength(1);
    expect((await balances('a', w.id, w.apiKey)).status).toBe(401);
  });

  it('a good key is read from the database once, then from the cache', async () => {
    const w = await newWallet('Cached key');
    const lookups = countKeyLookups();
    try {
      for (let i = 0; i < 4; i++) expect((await call('b', 'GET', `/v1/wallets/${w.id}`, w.apiKey)).status).toBe(200);
      expect(lookups.n).toBe(1);
      expect(b.services.changes.sizes().apiKeysLive).toBeGreaterThan(0);
    } finally {
      lookups.stop();
    }
  });

  it('a balance read costs no database query once its key, wallet and assets are cached', async () => {
    const w = await newWallet('Read path');
    expect((await balances('b', w.id, w.apiKey)).status).toBe(200);
    let queries = 0;
    const count = () => queries++;
    b.database.pool.on('acquire', count);
    try {
      for (let i = 0; i < 5; i++) expect(symbols(await balances('b', w.id, w.apiKey))).toEqual(['USDC', 'USDT']);
    } finally {
      b.database.pool.off('acquire', count);
    }
    expect(queries).toBe(0);
  });

  it('a key regenerated through one instance is refused by the other once the notification arrives', async () => {
    const w = await newWallet('Rotate there');
    expect((await balances('b', w.id, w.apiKey)).status).toBe(200);
    expect((await balances('b', w.id, w.apiKey)).status).toBe(200); // cached in b for a minute
    const regen = await call('a', 'POST', `/v1/wallets/${w.id}/api-key/regenerate`, h.businessKey);
    expect(regen.status).toBe(200);
    await refusedSoon('b', w.id, w.apiKey);
    expect((await balances('b', w.id, regen.body.data.apiKey)).status).toBe(200);
    expect((await balances('a', w.id, w.apiKey)).status).toBe(401);
  });

  it("a key revoked behind the service's back (an UPDATE) is refused by both: the trigger notifies every process", async () => {
    const w = await newWallet('Revoked by hand');
    for (const instance of ['a', 'b', 'b'] as const) expect((await balances(instance, w.id, w.apiKey)).status).toBe(200);
    await sql`UPDATE api_keys SET revoked_at = now() WHERE wallet_id = ${w.id}`.execute(h.database.db);
    for (const instance of ['a', 'b'] as const) await refusedSoon(instance, w.id, w.apiKey);
  });

  it('the trigger notifies writes that revoke, rescope or delete a key, not the usage times', async () => {
    const listener = new pg.Client({ connectionString: h.databaseUrl });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (m) => m.payload?.startsWith('apikeys-revoked') && heard.push(m.payload));
    try {
      await listener.query(`LISTEN ${CHANGES_CHANNEL}`);
      const w = await newWallet('Trigger');
      const where = sql`wallet_id = ${w.id}`;
      const write = async (statement: ReturnType<typeof sql>) => {
        heard.length = 0;
        await statement.execute(h.database.db);
        // A marker after it: notifications arrive in commit order.
        await sql`SELECT pg_notify(${CHANGES_CHANNEL}, 'apikeys-revoked-marker::')`.execute(h.database.db);
        await until(() => heard.includes('apikeys-revoked-marker::'), 'the marker');
        return heard.filter((p) => p === 'apikeys-revoked::').length;
      };
      expect(await write(sql`UPDATE api_keys SET last_used_at = now() WHERE ${where}`)).toBe(0);
      expect(await write(sql`UPDATE api_keys SET key_ciphertext = key_ciphertext WHERE ${where}`)).toBe(0);
      expect(await write(sql`UPDATE api_keys SET scopes = '{READ_ONLY}' WHERE ${where}`)).toBe(1);
      expect(await write(sql`UPDATE api_keys SET rate_limit = 5 WHERE ${where}`)).toBe(1);
      expect(await write(sql`UPDATE api_keys SET revoked_at = now() WHERE ${where}`)).toBe(1);
      expect(await write(sql`DELETE FROM api_keys WHERE ${where}`)).toBe(1);
    } finally {
      await listener.end();
    }
  });

  it('an unknown key costs b one query; created through a afterwards, b accepts it at once', async () => {
    const secret = `sk_biz_chosen${'7'.repeat(43)}`;
    let queries = 0;
    const count = () => queries++;
    b.database.pool.on('acquire', count);
    try {
      expect((await call('b', 'GET', '/v1/wallets', secret)).status).toBe(401);
      expect(queries).toBeGreaterThanOrEqual(1);
      queries = 0;
      expect((await call('b', 'GET', '/v1/wallets', secret)).status).toBe(401);
      expect(queries).toBe(0); // answered from b's unknown-key cache
    } finally {
      b.database.pool.off('acquire', count);
    }
    // A key is random, so it cannot have been tried before it exists; this test creates one
    // that was, to show that b's unknown-key cache is emptied by the creation.
    const apiKeys = h.services.apiKeys as unknown as { newSecret: (kind: string) => string };
    apiKeys.newSecret = () => secret;
    try {
      expect((await call('a', 'POST', '/v1/api-keys', h.businessKey, { name: 'tried before it existed' })).status).toBe(200);
    } finally {
      delete (apiKeys as Partial<typeof apiKeys>).newSecret;
    }
    expect((await call('b', 'GET', '/v1/wallets', secret)).status).toBe(200);
  });

  it('a rolled-back write notifies nobody', async () => {
    const seen: string[] = [];
    b.services.changes.on('test_marker', (id) => seen.push(id));
    await expect(
      h.services.changes.transaction(async (tx) => {
        await h.services.changes.publish(tx, 'test_marker', 'rolled-back');
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    // Committed after the rolled-back one; notifications arrive in commit order.
    await h.services.changes.transaction((tx) => h.services.changes.publish(tx, 'test_marker', 'committed'));
    await until(() => seen.includes('committed'), 'the committed marker');
    expect(seen).toEqual(['committed']);
  });

  it('a writer waits for its own notification to come back, not for the timeout', async () => {
    const changes = await Changes.start(h.database.db, { connectionString: h.databaseUrl, echoTimeoutMs: 60_000 });
    try {
      expect(changes.live).toBe(true);
      const started = Date.now();
      for (let i = 0; i < 20; i++) await changes.transaction((tx) => changes.publish(tx, 'test_marker', `echo-${i}`));
      // 20 commits, each released by its echo; one timeout alone would be 60 s.
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      changes.close();
    }
  });

  /**
   * The other instance's view, polled: the writer waits for its own notification only, and
   * the other's listener may hear it a moment later on a busy machine (the 100 ms bound).
   */
  const soon = async (instance: 'a' | 'b', w: { id: string; apiKey: string }, expected: string[]) => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const got = symbols(await balances(instance, w.id, w.apiKey));
      if (JSON.stringify(got) === JSON.stringify(expected) || Date.now() > deadline) return expect(got).toEqual(expected);
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  it('a disabled asset disappears from balances at once in the writing instance, soon in the other, and comes back', async () => {
    const w = h.wallets['devnet-eth']!;
    expect(symbols(await balances('a', w.id, w.apiKey))).toEqual(['USDC', 'USDT']);
    expect(symbols(await balances('b', w.id, w.apiKey))).toEqual(['USDC', 'USDT']);
    const usdt = h.devnet.chains[0]!.config.assets.find((a) => a.symbol === 'USDT')!;
    const { id: catalogueId } = await h.database.db
      .selectFrom('assets')
      .select('id')
      .where('address', '=', usdt.address)
      .executeTakeFirstOrThrow();

    const off = await call('a', 'PATCH', `/v1/wallets/${w.id}/assets/${catalogueId}`, w.apiKey, { isActive: false });
    expect(off.status).toBe(200);
    expect(symbols(await balances('a', w.id, w.apiKey))).toEqual(['USDC']);
    await soon('b', w, ['USDC']);
    // The one-asset forms agree: switched off is a business rule (422), in both.
    for (const instance of ['a', 'b'] as const) {
      expect((await call(instance, 'GET', `/v1/wallets/${w.id}/balance?assetId=${catalogueId}`, w.apiKey)).status).toBe(422);
    }

    // Switched back on through the other instance.
    expect((await call('b', 'PATCH', `/v1/wallets/${w.id}/assets/${catalogueId}`, w.apiKey, { isActive: true })).status).toBe(200);
    expect(symbols(await balances('b', w.id, w.apiKey))).toEqual(['USDC', 'USDT']);
    await soon('a', w, ['USDC', 'USDT']);
  });

  it('the caches stay bounded, a flood of distinct unknown keys included', async () => {
    const wallets: { id: string; apiKey: string }[] = [];
    for (let i = 0; i < MAX_ENTRIES + 3; i++) wallets.push(await newWallet(`Bounded ${i}`));
    for (const w of wallets) expect((await balances('b', w.id, w.apiKey)).status).toBe(200);
    const sizes = b.services.changes.sizes();
    expect(sizes.wallets).toBe(MAX_ENTRIES);
    expect(sizes.walletAssets).toBe(MAX_ENTRIES);

    const guesses = Array.from({ length: 200 }, (_, i) => `sk_test_guess${String(i).padStart(40, '0')}`);
    const statuses = await Promise.all(guesses.map((k) => balances('b', wallets[0]!.id, k).then((r) => r.status)));
    expect(new Set(statuses)).toEqual(new Set([401]));
    // 200 distinct unknown keys: the unknown-key cache holds at most its bound.
    expect(b.services.changes.sizes().apiKeysUnknown).toBe(MAX_ENTRIES);
    // The good keys still authenticate (from the database).
    for (const w of wallets) expect((await balances('b', w.id, w.apiKey)).status).toBe(200);
  });

  it('a listener that loses its connection switches the caches off and starts empty when back', async () => {
    const w = await newWallet('Reconnect');
    expect((await balances('b', w.id, w.apiKey)).status).toBe(200); // wallet cached in b
    const unknown = `sk_test_unknown${'0'.repeat(40)}`;
    expect((await balances('b', w.id, unknown)).status).toBe(401); // cached in b as unknown
    expect(b.services.changes.sizes().apiKeysUnknown).toBeGreaterThan(0);

    // Kill every cache listener's backend (both instances'): notifications sent until they
    // reconnect are lost, so the caches must not keep what they held.
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
               WHERE application_name = 'wallet-cache-listener' AND datname = current_database()`.execute(h.database.db);
    await until(() => !b.services.changes.live, 'b to notice');
    expect(b.services.changes.sizes()).toMatchObject({ apiKeysUnknown: 0, wallets: 0, walletAssets: 0 });
    expect((await balances('b', w.id, unknown)).status).toBe(401); // caches off: read from the database
    expect(b.services.changes.sizes().apiKeysUnknown).toBe(0);
    await until(() => b.services.changes.live && h.services.changes.live, 'both listeners to reconnect');
    expect(b.services.changes.sizes().apiKeysUnknown).toBe(0);
    expect((await balances('b', w.id, w.apiKey)).status).toBe(200);
  });
});
