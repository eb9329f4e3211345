/**
 * Business API keys through /v1/api-keys (issue 17, item 2): several live keys per
 * business, listed by prefix and last use only, revoked at once; scopes READ_ONLY and
 * NO_KEY_EXPORT answered with 403 and their own codes; "last used" written in batches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
let walletId: string;
let addressId: string;

beforeAll(async () => {
  h = await startHarness();
  walletId = h.wallets['devnet-eth']!.id;
  const address = await h.api('POST', `/v1/wallets/${walletId}/addresses`, { body: {} });
  expect(address.status).toBe(200);
  addressId = address.body.data.id;
});
afterAll(async () => {
  await h?.stop();
});

async function createKey(body: Record<string, unknown> = {}, key = h.businessKey) {
  const res = await h.api('POST', '/v1/api-keys', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { id: string; apiKey: string; prefix: string; scopes: string[]; name: string };
}

describe('managing business keys', () => {
  it('creates several live keys; each is shown once and works at once', async () => {
    const one = await createKey({ name: 'payouts' });
    const two = await createKey({ name: 'reporting' });
    expect(one.apiKey).toMatch(/^sk_biz_/);
    expect(one.prefix).toBe(one.apiKey.slice(0, 12));
    expect(one).toMatchObject({ name: 'payouts', scopes: [], rateLimit: null, lastUsedAt: null, revokedAt: null });
    for (const key of [one.apiKey, two.apiKey, h.businessKey]) expect((await h.api('GET', '/v1/wallets', { key })).status).toBe(200);
  });

  it('lists prefixes and last use, never a key, a hash or a sealed copy', async () => {
    const res = await h.api('GET', '/v1/api-keys', { key: h.businessKey });
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ currentPage: 1, totalItems: res.body.data.length });
    expect(res.body.data.length).toBeGreaterThanOrEqual(3);
    for (const item of res.body.data) {
      expect(Object.keys(item).sort()).toEqual(['createdAt', 'id', 'lastUsedAt', 'name', 'prefix', 'rateLimit', 'revokedAt', 'scopes']);
    }
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(h.businessKey);
    expect(text).not.toMatch(/sk_biz_[A-Za-z0-9_-]{20,}/);
  });

  it('revokes a key: refused from the next request on, listed only with includeRevoked', async () => {
    const doomed = await createKey({ name: 'leaked' });
    expect((await h.api('GET', '/v1/wallets', { key: doomed.apiKey })).status).toBe(200);
    const revoked = await h.api('DELETE', `/v1/api-keys/${doomed.id}`, { key: h.businessKey });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.revokedAt).toEqual(expect.any(String));
    const after = await h.api('GET', '/v1/wallets', { key: doomed.apiKey });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('UNAUTHORIZED');
    // Revoking again changes nothing.
    const again = await h.api('DELETE', `/v1/api-keys/${doomed.id}`, { key: h.businessKey });
    expect(again.body.data.revokedAt).toBe(revoked.body.data.revokedAt);

    const live = await h.api('GET', '/v1/api-keys', { key: h.businessKey });
    expect(live.body.data.map((k: { id: string }) => k.id)).not.toContain(doomed.id);
    const all = await h.api('GET', '/v1/api-keys?includeRevoked=true', { key: h.businessKey });
    expect(all.body.data.map((k: { id: string }) => k.id)).toContain(doomed.id);
    // On the audit trail, by prefix only.
    const audit = await sql<{ action: string; details: unknown }>`
      SELECT action, details FROM audit_log WHERE target_id = ${doomed.id} ORDER BY created_at`.execute(h.database.db);
    expect(audit.rows.map((r) => r.action)).toEqual(['api_key.created', 'api_key.revoked', 'api_key.revoked']);
    expect(JSON.stringify(audit.rows)).not.toContain(doomed.apiKey);
  });

  it("keeps other tenants' keys and wallet keys out of reach (404, like unknown ids)", async () => {
    const other = await h.services.businesses.create('Other Business');
    const foreign = await createKey({}, other.apiKey);
    for (const [method, path] of [
      ['GET', `/v1/api-keys/${foreign.id}`],
      ['DELETE', `/v1/api-keys/${foreign.id}`],
    ] as const) {
      const res = await h.api(method, path, { key: h.businessKey });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('NOT_FOUND');
    }
    expect((await h.api('GET', '/v1/wallets', { key: foreign.apiKey })).status).toBe(200);
    const walletKeyId = (
      await sql<{ id: string }>`SELECT id FROM api_keys WHERE wallet_id = ${walletId} AND revoked_at IS NULL`.execute(h.database.db)
    ).rows[0]!.id;
    expect((await h.api('DELETE', `/v1/api-keys/${walletKeyId}`, { key: h.businessKey })).status).toBe(404);
  });

  it('refuses wallet keys (403) and bad input (400, nothing written)', async () => {
    const walletKey = h.wallets['devnet-eth']!.apiKey;
    for (const [method, body] of [
      ['GET', undefined],
      ['POST', {}],
    ] as const) {
      const res = await h.api(method, '/v1/api-keys', { key: walletKey, ...(body ? { body } : {}) });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('FORBIDDEN');
    }
    const before = await sql<{ n: string }>`SELECT count(*)::text AS n FROM api_keys`.execute(h.database.db);
    for (const body of [{ scopes: ['ADMIN'] }, { rateLimit: -1 }, { rateLimit: 1.5 }, { name: 'x'.repeat(101) }, { extra: true }]) {
      const res = await h.api('POST', '/v1/api-keys', { key: h.businessKey, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
    }
    expect((await h.api('DELETE', '/v1/api-keys/not-a-uuid', { key: h.businessKey })).status).toBe(400);
    const after = await sql<{ n: string }>`SELECT count(*)::text AS n FROM api_keys`.execute(h.database.db);
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });
});

describe('a key with a request rate of its own', () => {
  it('creates no faster key: none asked is its own rate, 0 (unlimited) or more is refused and writes nothing', async () => {
    const made = await h.api('POST', '/v1/api-keys', { key: h.businessKey, body: { name: 'throttled', rateLimit: 5 } });
    expect(made.status, made.body.message).toBe(200);
    const throttled = made.body.data.apiKey as string;
    const before = await sql<{ n: string }>`SELECT count(*)::text AS n FROM api_keys`.execute(h.database.db);
    for (const rateLimit of [0, 6]) {
      const res = await h.api('POST', '/v1/api-keys', { key: throttled, body: { name: 'faster', rateLimit } });
      // The message only: an answer of 200 would carry the new key.
      expect([res.status, res.body.error], res.body.message).toEqual([400, 'VALIDATION_ERROR']);
      expect(res.body.details).toEqual([{ field: 'rateLimit', message: "at most 5 (this key's own limit)" }]);
    }
    const after = await sql<{ n: string }>`SELECT count(*)::text AS n FROM api_keys`.execute(h.database.db);
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
    const inherits = await h.api('POST', '/v1/api-keys', { key: throttled, body: { name: 'same rate' } });
    expect(inherits.status, inherits.body.message).toBe(200);
    expect(inherits.body.data.rateLimit).toBe(5);
    // The audit trail records the rate the key was given, not the (absent) one asked for.
    const { rows: trail } = await sql<{ details: { rateLimit: number | null } }>`
      SELECT details FROM audit_log WHERE action = 'api_key.created' AND target_id = ${inherits.body.data.id}`.execute(h.database.db);
    expect(trail.map((r) => r.details.rateLimit)).toEqual([5]);
    const slower = await h.api('POST', '/v1/api-keys', { key: throttled, body: { name: 'slower', rateLimit: 2 } });
    expect(slower.body.data.rateLimit).toBe(2);
    // A wallet it creates gets a key held to its rate too.
    const wallet = await h.api('POST', '/v1/wallets', {
      key: throttled,
      body: { blockchain: 'devnet-eth', network: 'testnet', name: 'made by a throttled key' },
    });
    expect(wallet.status, wallet.body.message).toBe(200);
    const { rows } = await sql<{ rate_limit: number | null }>`
      SELECT rate_limit FROM api_keys WHERE wallet_id = ${wallet.body.data.id} AND revoked_at IS NULL`.execute(h.database.db);
    expect(rows).toEqual([{ rate_limit: 5 }]);
    // A key without a rate of its own (the owner's) still gives any, unlimited included.
    const unlimited = await h.api('POST', '/v1/api-keys', { key: h.businessKey, body: { name: 'unlimited', rateLimit: 0 } });
    expect(unlimited.body.data.rateLimit).toBe(0);
  });
});

describe('wallet keys on the audit trail', () => {
  it("a new wallet's key and a regenerated one are audited as key creations, the replaced key as revoked, never the key", async () => {
    const businessKeyId = (await h.services.apiKeys.authenticate(h.businessKey))!.keyId;
    const created = await h.api('POST', '/v1/wallets', {
      key: h.businessKey,
      body: { blockchain: 'devnet-eth', network: 'testnet', name: 'audited key' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const wallet = created.body.data.id as string;
    const firstKey = created.body.data.apiKey as string;
    const keyIds = async () =>
      (
        await sql<{ id: string }>`SELECT id FROM api_keys WHERE wallet_id = ${wallet} ORDER BY created_at, id`.execute(h.database.db)
      ).rows.map((r) => r.id);
    const [first] = await keyIds();

    const regenerated = await h.api('POST', `/v1/wallets/${wallet}/api-key/regenerate`, { key: h.businessKey, body: {} });
    expect(regenerated.status, JSON.stringify(regenerated.body)).toBe(200);
    const secondKey = regenerated.body.data.apiKey as string;
    const second = (await keyIds()).find((id) => id !== first)!;

    const { rows } = await sql<{ action: string; target_id: string; wallet_id: string | null; actor: string; details: unknown }>`
      SELECT action, target_id, wallet_id, actor, details FROM audit_log
       WHERE target_type = 'api_key' AND target_id = ANY(${[first!, second]}::uuid[]) ORDER BY seq`.execute(h.database.db);
    expect(rows.map((r) => [r.action, r.target_id, r.wallet_id, r.actor])).toEqual([
      ['api_key.created', first, wallet, `api-key:${businessKeyId}`],
      ['api_key.revoked', first, wallet, `api-key:${businessKeyId}`],
      ['api_key.created', second, wallet, `api-key:${businessKeyId}`],
    ]);
    expect(rows[2]!.details).toMatchObject({ prefix: secondKey.slice(0, 12), scopes: [] });
    const text = JSON.stringify(rows);
    expect(text).not.toContain(firstKey);
    expect(text).not.toContain(secondKey);
  });
});

describe('the embedded default credentials file', () => {
  it('shows the newest business key without restrictions, never a restricted one made after it', async () => {
    const full = await createKey({ name: 'full' });
    await createKey({ name: 'newer but read-only', scopes: ['READ_ONLY'] });
    expect(await h.services.apiKeys.revealBusinessKey(h.businessId)).toBe(full.apiKey);
  });
});

describe('OpenAPI', () => {
  it('documents the routes, the key view without secrets, and the 403 and 429 answers', async () => {
    const doc = (await h.api('GET', '/openapi.json', { key: null })).body;
    expect(Object.keys(doc.paths['/v1/api-keys']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/v1/api-keys/{keyId}']).sort()).toEqual(['delete', 'get']);
    expect(Object.keys(doc.components.schemas.ApiKey.properties)).not.toContain('apiKey');
    for (const status of ['403', '429']) expect(doc.paths['/v1/api-keys'].post.responses[status]).toBeDefined();
  });
});

describe('scopes', () => {
  it('READ_ONLY: GETs work; every POST, PATCH and DELETE is 403 KEY_READ_ONLY, and so is key export', async () => {
    const ro = await createKey({ name: 'dashboards', scopes: ['READ_ONLY'] });
    expect(ro.scopes).toEqual(['READ_ONLY']);
    for (const path of [
      '/v1/wallets',
      `/v1/wallets/${walletId}`,
      `/v1/wallets/${walletId}/addresses`,
      `/v1/wallets/${walletId}/balances`,
      '/v1/api-keys',
    ]) {
      expect((await h.api('GET', path, { key: ro.apiKey })).status, path).toBe(200);
    }
    const writes: [string, string, unknown][] = [
      ['POST', '/v1/wallets', { blockchain: 'devnet-eth', network: 'testnet', name: 'nope' }],
      ['PATCH', `/v1/wallets/${walletId}`, { name: 'renamed' }],
      ['POST', `/v1/wallets/${walletId}/addresses`, {}],
      ['POST', `/v1/wallets/${walletId}/api-key/regenerate`, undefined],
      ['POST', '/v1/api-keys', {}],
      ['DELETE', `/v1/api-keys/${ro.id}`, undefined],
    ];
    for (const [method, path, body] of writes) {
      const res = await h.api(method, path, { key: ro.apiKey, ...(body !== undefined ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error).toBe('KEY_READ_ONLY');
    }
    const exported = await h.api('GET', `/v1/wallets/${walletId}/addresses/${addressId}?showPrivateKey=true`, { key: ro.apiKey });
    expect(exported.status).toBe(403);
    expect(exported.body.error).toBe('KEY_EXPORT_NOT_ALLOWED');
    expect(JSON.stringify(exported.body)).not.toMatch(/0x[0-9a-f]{64}/);
    // Nothing was written: the wallet keeps its name, the key is still live.
    expect((await h.api('GET', `/v1/wallets/${walletId}`, { key: ro.apiKey })).body.data.name).not.toBe('renamed');
  });

  it('NO_KEY_EXPORT: everything but showPrivateKey, which is 403 KEY_EXPORT_NOT_ALLOWED and not audited', async () => {
    const nx = await createKey({ name: 'ops', scopes: ['NO_KEY_EXPORT'] });
    const path = `/v1/wallets/${walletId}/addresses/${addressId}`;
    expect((await h.api('GET', path, { key: nx.apiKey })).status).toBe(200);
    expect((await h.api('POST', `/v1/wallets/${walletId}/addresses`, { key: nx.apiKey, body: {} })).status).toBe(200);
    const audited = async () =>
      Number(
        (
          await sql<{ n: string }>`SELECT count(*)::text AS n FROM audit_log WHERE action = 'address.private_key_exported'`.execute(
            h.database.db,
          )
        ).rows[0]!.n,
      );
    const exports = await audited();
    const refused = await h.api('GET', `${path}?showPrivateKey=true`, { key: nx.apiKey });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'KEY_EXPORT_NOT_ALLOWED', message: expect.stringContaining('may not export') });
    expect(await audited()).toBe(exports);
    // The unrestricted business key still exports.
    const allowed = await h.api('GET', `${path}?showPrivateKey=true`, { key: h.businessKey });
    expect(allowed.status).toBe(200);
    expect(allowed.body.data.privateKey).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('a restricted key creates only keys as restricted as itself, and revokes none (403 KEY_RESTRICTED)', async () => {
    const nx = await createKey({ scopes: ['NO_KEY_EXPORT'] });
    const create = await h.api('POST', '/v1/api-keys', { key: nx.apiKey, body: {} });
    expect(create.status).toBe(200);
    expect(create.body.data.scopes).toEqual(['NO_KEY_EXPORT']);
    const revoke = await h.api('DELETE', `/v1/api-keys/${nx.id}`, { key: nx.apiKey });
    expect(revoke.status).toBe(403);
    expect(revoke.body.error).toBe('KEY_RESTRICTED');
  });
});

/** The SQL the service's pool ran while `run` ran. */
async function recording(run: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  let on = true;
  const spy = (client: { query: (...args: any[]) => unknown; __spied?: boolean }) => {
    if (client.__spied) return;
    client.__spied = true;
    const query = client.query.bind(client);
    client.query = (...args: any[]) => {
      if (on) seen.push(typeof args[0] === 'string' ? args[0] : String(args[0]?.text));
      return query(...args);
    };
  };
  h.database.pool.on('acquire', spy as never);
  try {
    await run();
  } finally {
    on = false;
    h.database.pool.off('acquire', spy as never);
  }
  return seen;
}

describe('last use', () => {
  it('is written in batches: requests do not update the row, a flush does (once)', async () => {
    const key = await createKey({ name: 'usage' });
    const updates = async () =>
      Number(
        (await sql<{ n: string }>`SELECT n_tup_upd::text AS n FROM pg_stat_user_tables WHERE relname = 'api_keys'`.execute(h.database.db))
          .rows[0]!.n,
      );
    const statements = await recording(async () => {
      for (let i = 0; i < 10; i++) expect((await h.api('GET', '/v1/blockchains', { key: key.apiKey })).status).toBe(200);
    });
    // The lookups: the first request's, and one per LIVE_KEY_TTL_MS after it (the key is cached).
    const lookups = statements.filter((q) => /api_keys/.test(q) && /^\s*select/i.test(q)).length;
    expect(lookups).toBeGreaterThanOrEqual(1);
    expect(lookups).toBeLessThanOrEqual(10);
    expect(statements.filter((q) => /^\s*update/i.test(q))).toEqual([]);
    const listed = async () =>
      ((await h.api('GET', `/v1/api-keys/${key.id}`, { key: h.businessKey })).body.data as { lastUsedAt: string | null }).lastUsedAt;
    expect(await listed()).toBeNull();

    const before = await updates();
    await h.services.apiKeys.flushUsage();
    const used = await listed();
    expect(used).toEqual(expect.any(String));
    expect(Date.now() - Date.parse(used!)).toBeLessThan(60_000);
    // Statistics reach pg_stat_user_tables with a short delay.
    for (let i = 0; i < 50 && (await updates()) === before; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await updates()) - before).toBeGreaterThanOrEqual(1);
  });
});
