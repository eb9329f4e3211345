/**
 * The developers page's business keys (issue 17, item 2) over plain HTTP: create with
 * restrictions (shown once), list by prefix and last use, revoke, each through the same
 * service as /v1/api-keys, with CSRF and tenancy as on every dashboard change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { createDashboardUser, DashClient } from './support.js';

let h: Harness;
const A = { email: 'keys@a.example', password: 'correct horse battery' };
let foreignKeyId: string;

beforeAll(async () => {
  h = await startHarness();
  await createDashboardUser(h, h.businessId, A.email, A.password);
  const other = await h.services.businesses.create('Other Business');
  const auth = { keyId: 'test', businessId: other.business.id, walletId: null };
  foreignKeyId = (await h.services.apiKeys.createBusinessKey(auth, { name: 'theirs' })).id;
});
afterAll(async () => {
  await h?.stop();
});

async function signedIn() {
  const c = new DashClient(h.baseUrl);
  expect((await c.login(A.email, A.password)).status).toBe(303);
  return c;
}

const newKeyOf = (page: string) => /id="business-key-new">([^<]+)</.exec(page)?.[1];

describe('developers page: business keys', () => {
  it('creates a restricted key, shows it once, and it works with its restrictions', async () => {
    const c = await signedIn();
    const created = await c.submit('/dashboard/developers', '/dashboard/developers/api-keys', {
      name: 'BI export',
      readOnly: '1',
      rateLimit: '25',
    });
    expect(created.status).toBe(200);
    expect(created.text).toContain('data-testid="new-business-key"');
    const key = newKeyOf(created.text)!;
    expect(key).toMatch(/^sk_biz_/);
    expect(created.headers.get('cache-control')).toContain('no-store');

    expect((await h.api('GET', '/v1/wallets', { key })).status).toBe(200);
    const write = await h.api('POST', '/v1/wallets', { key, body: { blockchain: 'devnet-eth', network: 'testnet', name: 'x' } });
    expect(write.status).toBe(403);
    expect(write.body.error).toBe('KEY_READ_ONLY');
    const listed = (await h.api('GET', '/v1/api-keys', { key: h.businessKey })).body.data.find(
      (k: { name: string }) => k.name === 'BI export',
    );
    expect(listed).toMatchObject({ scopes: ['READ_ONLY'], rateLimit: 25 });

    // Shown again later: the prefix, never the key.
    const later = await c.get('/dashboard/developers');
    expect(later.text).toContain(`${key.slice(0, 12)}…`);
    expect(later.text).not.toContain(key);
    expect(later.text).toContain('read only');
  });

  it('refuses a bad rate with the API message, creating nothing', async () => {
    const c = await signedIn();
    const before = (await h.api('GET', '/v1/api-keys', { key: h.businessKey })).body.meta.totalItems;
    const bad = await c.submit('/dashboard/developers', '/dashboard/developers/api-keys', { name: 'bad', rateLimit: 'fast' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('rateLimit');
    expect(newKeyOf(bad.text)).toBeUndefined();
    expect((await h.api('GET', '/v1/api-keys', { key: h.businessKey })).body.meta.totalItems).toBe(before);
  });

  it('revokes a key: it stops working at once and leaves the list', async () => {
    const c = await signedIn();
    const created = await c.submit('/dashboard/developers', '/dashboard/developers/api-keys', { name: 'to revoke' });
    const key = newKeyOf(created.text)!;
    const id = (await h.api('GET', '/v1/api-keys', { key: h.businessKey })).body.data.find(
      (k: { name: string }) => k.name === 'to revoke',
    ).id;
    expect((await h.api('GET', '/v1/wallets', { key })).status).toBe(200);

    // Without the CSRF token nothing happens.
    expect((await c.request('POST', `/dashboard/developers/api-keys/${id}/revoke`, {})).status).toBe(403);
    expect((await h.api('GET', '/v1/wallets', { key })).status).toBe(200);

    const revoked = await c.submit('/dashboard/developers', `/dashboard/developers/api-keys/${id}/revoke`);
    expect(revoked.status).toBe(303);
    expect((await h.api('GET', '/v1/wallets', { key })).status).toBe(401);
    const page = await c.get(revoked.location!);
    expect(page.text).toContain('revoked');
    expect(page.text).not.toContain(`data-key="${id}"`);
  });

  it("cannot revoke another business's key (404, and it keeps working)", async () => {
    const c = await signedIn();
    const res = await c.submit('/dashboard/developers', `/dashboard/developers/api-keys/${foreignKeyId}/revoke`);
    expect(res.status).toBe(404);
    const row = await h.database.db.selectFrom('api_keys').select('revoked_at').where('id', '=', foreignKeyId).executeTakeFirstOrThrow();
    expect(row.revoked_at).toBeNull();
  });
});
