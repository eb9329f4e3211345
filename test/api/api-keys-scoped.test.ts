/**
 * Scoped keys stay scoped (issue 24, item 1): every path that mints or replaces a key keeps
 * the creator's restrictions on the new key (stored, and shown in the answer), and a
 * READ_ONLY key creates none. The paths: POST /v1/api-keys, POST /v1/wallets, POST
 * /v1/wallets/{id}/api-key/regenerate, and the dashboard's wallet form and key buttons
 * (a session acts with the business's full authority, through the same rule).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type Harness } from '../support/harness.js';
import { createDashboardUser, DashClient } from '../dashboard/support.js';

let h: Harness;
let walletId: string;

beforeAll(async () => {
  h = await startHarness({ specs: [DEVNET_CHAINS[0]!] });
  walletId = h.wallets['devnet-eth']!.id;
});
afterAll(async () => {
  await h?.stop();
});

async function businessKey(scopes: string[], key = h.businessKey) {
  const res = await h.api('POST', '/v1/api-keys', { key, body: { name: `scoped ${scopes.join('+')}`, scopes } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { id: string; apiKey: string; scopes: string[] };
}

/** The scopes stored on a key's row. */
async function storedScopes(apiKey: string): Promise<string[]> {
  const prefix = apiKey.slice(0, 12);
  const { rows } = await sql<{ scopes: string[] }>`SELECT scopes FROM api_keys WHERE prefix = ${prefix}`.execute(h.database.db);
  expect(rows).toHaveLength(1);
  return rows[0]!.scopes;
}

/** A child address of the wallet, and whether `key` can export its private key. */
async function exportWith(key: string, wallet: string): Promise<{ status: number; body: any }> {
  const created = await h.api('POST', `/v1/wallets/${wallet}/addresses`, { key: h.businessKey, body: {} });
  expect(created.status).toBe(200);
  return h.api('GET', `/v1/wallets/${wallet}/addresses/${created.body.data.id}?showPrivateKey=true`, { key });
}

function expectNoExport(res: { status: number; body: any }) {
  expect(res.status).toBe(403);
  expect(res.body.error).toBe('KEY_EXPORT_NOT_ALLOWED');
  expect(JSON.stringify(res.body)).not.toMatch(/0x[0-9a-f]{64}/);
}

describe('a NO_KEY_EXPORT business key', () => {
  it('regenerates a wallet key that inherits NO_KEY_EXPORT (answered and stored) and cannot export a private key', async () => {
    const nx = await businessKey(['NO_KEY_EXPORT']);
    const res = await h.api('POST', `/v1/wallets/${walletId}/api-key/regenerate`, { key: nx.apiKey });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.scopes).toEqual(['NO_KEY_EXPORT']);
    const minted = res.body.data.apiKey as string;
    expect(await storedScopes(minted)).toEqual(['NO_KEY_EXPORT']);
    // It works as the wallet's key, except for exporting.
    expect((await h.api('GET', `/v1/wallets/${walletId}`, { key: minted })).status).toBe(200);
    expectNoExport(await exportWith(minted, walletId));
    // The unrestricted business key regenerates an unrestricted one again.
    const full = await h.api('POST', `/v1/wallets/${walletId}/api-key/regenerate`, { key: h.businessKey });
    expect(full.body.data.scopes).toEqual([]);
    expect((await exportWith(full.body.data.apiKey, walletId)).status).toBe(200);
    h.wallets['devnet-eth']!.apiKey = full.body.data.apiKey;
  });

  it('creates a wallet whose key inherits NO_KEY_EXPORT (apiKeyScopes) and cannot export a private key', async () => {
    const nx = await businessKey(['NO_KEY_EXPORT']);
    const res = await h.api('POST', '/v1/wallets', {
      key: nx.apiKey,
      body: { blockchain: 'devnet-eth', network: 'testnet', name: 'made by a scoped key' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.apiKeyScopes).toEqual(['NO_KEY_EXPORT']);
    expect(await storedScopes(res.body.data.apiKey)).toEqual(['NO_KEY_EXPORT']);
    expectNoExport(await exportWith(res.body.data.apiKey, res.body.data.id));
  });

  it('creates business keys that keep NO_KEY_EXPORT besides what they ask for, and revokes none', async () => {
    const nx = await businessKey(['NO_KEY_EXPORT']);
    const asked = await h.api('POST', '/v1/api-keys', { key: nx.apiKey, body: { name: 'wants everything', scopes: [] } });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    expect(asked.body.data.scopes).toEqual(['NO_KEY_EXPORT']);
    expect(await storedScopes(asked.body.data.apiKey)).toEqual(['NO_KEY_EXPORT']);
    expectNoExport(await exportWith(asked.body.data.apiKey, walletId));
    // Narrower is fine: READ_ONLY on top of the inherited restriction.
    const narrower = await businessKey(['READ_ONLY'], nx.apiKey);
    expect(narrower.scopes).toEqual(['READ_ONLY', 'NO_KEY_EXPORT']);
    // Revoking stays with unrestricted keys: a restricted key cannot revoke the owner's.
    const revoke = await h.api('DELETE', `/v1/api-keys/${asked.body.data.id}`, { key: nx.apiKey });
    expect(revoke.status).toBe(403);
    expect(revoke.body.error).toBe('KEY_RESTRICTED');
  });
});

describe('a READ_ONLY key', () => {
  it('creates no key on any path, and nothing is written', async () => {
    const ro = await businessKey(['READ_ONLY']);
    const count = async () => (await sql<{ n: string }>`SELECT count(*)::text AS n FROM api_keys`.execute(h.database.db)).rows[0]!.n;
    const before = await count();
    for (const [method, path, body] of [
      ['POST', '/v1/api-keys', { scopes: ['READ_ONLY'] }],
      ['POST', '/v1/wallets', { blockchain: 'devnet-eth', network: 'testnet', name: 'nope' }],
      ['POST', `/v1/wallets/${walletId}/api-key/regenerate`, undefined],
    ] as const) {
      const res = await h.api(method, path, { key: ro.apiKey, ...(body ? { body } : {}) });
      expect(res.status, path).toBe(403);
      expect(res.body.error).toBe('KEY_READ_ONLY');
    }
    expect(await count()).toBe(before);
    // The same rule below HTTP: the service refuses a read-only authority by itself.
    const auth = { keyId: ro.id, businessId: h.businessId, walletId: null, scopes: ['READ_ONLY'] as const };
    await expect(h.services.wallets.regenerateKey(auth, walletId)).rejects.toMatchObject({ code: 'KEY_READ_ONLY' });
    await expect(h.services.apiKeys.createBusinessKey(auth, {})).rejects.toMatchObject({ code: 'KEY_READ_ONLY' });
    expect(await count()).toBe(before);
  });
});

describe('the dashboard', () => {
  it("creates wallets and regenerates keys with the business's full authority, through the same rule", async () => {
    const user = { email: 'scoped@dash.example', password: 'a dashboard passphrase' };
    await createDashboardUser(h, h.businessId, user.email, user.password);
    const c = new DashClient(h.baseUrl);
    expect((await c.login(user.email, user.password)).status).toBe(303);
    const created = await c.submit('/dashboard/wallets', '/dashboard/wallets', { chain: 'devnet-eth|testnet', name: 'from the dashboard' });
    expect(created.status).toBe(200);
    const key = /id="created-key">([^<]+)</.exec(created.text)![1]!;
    expect(await storedScopes(key)).toEqual([]);
    const wallet = (await h.api('GET', '/v1/wallets?limit=100', { key: h.businessKey })).body.data.find(
      (w: { name: string }) => w.name === 'from the dashboard',
    );
    expect((await exportWith(key, wallet.id)).status).toBe(200);
    // A wallet key minted by a restricted API key is shown as restricted on the developers page.
    const nx = await businessKey(['NO_KEY_EXPORT']);
    expect((await h.api('POST', `/v1/wallets/${wallet.id}/api-key/regenerate`, { key: nx.apiKey })).status).toBe(200);
    const page = await c.get('/dashboard/developers');
    expect(page.text).toMatch(new RegExp(`id="wallet-${wallet.id}"[\\s\\S]*?data-testid="key-scopes">restricted: NO_KEY_EXPORT<`));
    // Regenerated from the dashboard: unrestricted again.
    const regenerated = await c.submit('/dashboard/developers', `/dashboard/developers/${wallet.id}/key`, { action: 'regenerate' });
    const fresh = new RegExp(`id="key-${wallet.id}">([^<]+)<`).exec(regenerated.text)![1]!;
    expect(await storedScopes(fresh)).toEqual([]);
  });
});
