import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { BLOCKCHAIN_KEYS } from '../support/shapes.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

const eth = () => h.wallets['devnet-eth']!;
const bsc = () => h.wallets['devnet-bsc']!;

describe('authentication', () => {
  it('refuses a missing key with 401 in the error body', async () => {
    const res = await h.api('GET', '/v1/blockchains', { key: null });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ statusCode: 401, error: 'UNAUTHORIZED', message: 'Missing x-api-key header' });
    expect(res.body.requestId).toEqual(expect.any(String));
  });

  it('refuses an unknown key with 401', async () => {
    const res = await h.api('GET', `/v1/wallets/${eth().id}`, { key: `sk_test_${'x'.repeat(43)}` });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('UNAUTHORIZED');
  });

  it("gives 404 for another wallet's id with a wallet key", async () => {
    const res = await h.api('GET', `/v1/wallets/${bsc().id}`, { key: eth().apiKey });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ statusCode: 404, error: 'NOT_FOUND' });
  });

  it("gives 404 for another business's wallet with a business key", async () => {
    const other = await h.services.businesses.create('Other Business');
    const res = await h.api('GET', `/v1/wallets/${eth().id}`, { key: other.apiKey });
    expect(res.status).toBe(404);
    const list = await h.api('GET', '/v1/wallets', { key: other.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
  });
});

describe('GET /v1/blockchains', () => {
  it('lists the catalogue with the configured devnets active', async () => {
    const res = await h.api('GET', '/v1/blockchains');
    expect(res.status).toBe(200);
    expect(res.body.statusCode).toBe(200);
    expect(res.body.message).toEqual(expect.any(String));
    const slugs = res.body.data.map((b: { slug: string }) => b.slug);
    expect(slugs).toEqual(
      expect.arrayContaining([
        'devnet-eth',
        'devnet-bsc',
        'ethereum',
        'bsc',
        'polygon',
        'base',
        'arbitrum',
        'optimism',
        'avalanche',
        'celo',
      ]),
    );
    const devnet = res.body.data.find((b: { slug: string }) => b.slug === 'devnet-eth');
    expect(devnet).toMatchObject({ isActive: true, isEvmCompatible: true, derivationPath: "m/44'/60'/0'/0", tokenStandard: 'ERC20' });
    expect(Object.keys(devnet).sort()).toEqual(BLOCKCHAIN_KEYS);
    expect(res.body.data.find((b: { slug: string }) => b.slug === 'ethereum').isActive).toBe(false);
  });
});

describe('wallets', () => {
  it('GET returns every spec field of the wallet', async () => {
    const res = await h.api('GET', `/v1/wallets/${eth().id}`);
    expect(res.status).toBe(200);
    const w = res.body.data;
    expect(w).toMatchObject({
      id: eth().id,
      address: eth().address,
      derivationPath: "m/44'/60'/0'/0/0",
      network: 'testnet',
      isActive: true,
      status: 'ACTIVE',
      business: { id: h.businessId, name: 'Test Business' },
      configurations: {
        addresses: { isActive: true, prefunding: { isActive: false, rules: [] } },
        autoSettlement: { isActive: false, rules: [] },
        autoSweeping: { isActive: true, threshold: 0 },
        withdrawal: { gasless: { isActive: false, operator: '', threshold: 0 } },
      },
    });
    expect(w.description).toEqual(expect.any(String));
    expect(new Date(w.createdAt).toISOString()).toBe(w.createdAt);
  });

  it('PATCH updates name, description, isActive and deep-merges configurations', async () => {
    const res = await h.api('PATCH', `/v1/wallets/${bsc().id}`, {
      key: bsc().apiKey,
      body: { name: 'Renamed', description: 'treasury', configurations: { autoSweeping: { threshold: 25 } } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      name: 'Renamed',
      description: 'treasury',
      configurations: { autoSweeping: { isActive: true, threshold: 25 } },
    });
    const again = await h.api('PATCH', `/v1/wallets/${bsc().id}`, {
      key: bsc().apiKey,
      body: { configurations: { autoSweeping: { isActive: false } } },
    });
    expect(again.body.data.configurations.autoSweeping).toEqual({ isActive: false, threshold: 25 });
    expect(again.body.data.name).toBe('Renamed');
  });

  it('PATCH refuses unknown fields, wrong types, negative thresholds and empty bodies without writing', async () => {
    for (const body of [
      { nmae: 'typo' },
      { isActive: 'yes' },
      { configurations: { autoSweeping: { threshold: -1 } } },
      {},
      { configurations: { bogus: {} } },
    ]) {
      const res = await h.api('PATCH', `/v1/wallets/${eth().id}`, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
      expect(res.body.details?.[0]?.field).toEqual(expect.any(String));
    }
    const res = await h.api('GET', `/v1/wallets/${eth().id}`);
    expect(res.body.data.name).toBe('Test devnet-eth');
  });

  it('malformed JSON, wrong content type, non-UUID ids and oversized bodies are 4xx', async () => {
    const malformed = await h.api('PATCH', `/v1/wallets/${eth().id}`, {
      rawBody: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBe('MALFORMED_JSON');
    const media = await h.api('PATCH', `/v1/wallets/${eth().id}`, {
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(media.status).toBe(415);
    const badId = await h.api('GET', '/v1/wallets/not-a-uuid');
    expect(badId.status).toBe(400);
    expect(badId.body.details[0].field).toContain('walletId');
    const huge = await h.api('PATCH', `/v1/wallets/${eth().id}`, { body: { description: 'x'.repeat(300_000) } });
    expect(huge.status).toBe(413);
    expect(huge.body.error).toBe('PAYLOAD_TOO_LARGE');
    const route = await h.api('GET', '/v1/nope');
    expect(route.status).toBe(404);
  });

  it('business key creates and lists wallets; the new key is shown once and works', async () => {
    const created = await h.api('POST', '/v1/wallets', {
      key: h.businessKey,
      body: { blockchain: 'devnet-bsc', network: 'testnet', name: 'Payouts' },
    });
    expect(created.status).toBe(200);
    const { apiKey, ...wallet } = created.body.data;
    expect(apiKey).toMatch(/^sk_test_/);
    expect(wallet).toMatchObject({ name: 'Payouts', network: 'testnet', derivationPath: "m/44'/60'/0'/0/0" });
    const own = await h.api('GET', `/v1/wallets/${wallet.id}`, { key: apiKey });
    expect(own.status).toBe(200);
    expect(own.body.data.apiKey).toBeUndefined();
    const assets = await h.api('GET', `/v1/wallets/${wallet.id}/assets`, { key: apiKey });
    expect(assets.body.data.map((a: { asset: { symbol: string } }) => a.asset.symbol).sort()).toEqual(['USDC', 'USDT']);

    const list = await h.api('GET', '/v1/wallets?page=1&limit=2', { key: h.businessKey });
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ currentPage: 1, itemCount: 2, itemsPerPage: 2, totalItems: 3, totalPages: 2 });
  });

  it('wallet creation validates input', async () => {
    const cases: [unknown, number, string][] = [
      [{ blockchain: 'ethereum', network: 'mainnet', name: 'x' }, 422, 'CHAIN_NOT_AVAILABLE'],
      [{ blockchain: 'devnet-eth', network: 'moon', name: 'x' }, 400, 'VALIDATION_ERROR'],
      [{ blockchain: 'devnet-eth', network: 'testnet' }, 400, 'VALIDATION_ERROR'],
      [{ blockchain: 'devnet-eth', network: 'testnet', name: '' }, 400, 'VALIDATION_ERROR'],
    ];
    for (const [body, status, code] of cases) {
      const res = await h.api('POST', '/v1/wallets', { key: h.businessKey, body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error).toBe(code);
    }
  });

  it('wallet keys cannot create or list wallets or regenerate keys (403)', async () => {
    expect((await h.api('POST', '/v1/wallets', { body: { blockchain: 'devnet-eth', network: 'testnet', name: 'x' } })).status).toBe(403);
    expect((await h.api('GET', '/v1/wallets')).status).toBe(403);
    expect((await h.api('POST', `/v1/wallets/${eth().id}/api-key/regenerate`)).status).toBe(403);
  });

  it('regenerating a key revokes the old one at once', async () => {
    const created = await h.api('POST', '/v1/wallets', {
      key: h.businessKey,
      body: { blockchain: 'devnet-eth', network: 'testnet', name: 'Rotate' },
    });
    const { id, apiKey: oldKey } = created.body.data;
    const res = await h.api('POST', `/v1/wallets/${id}/api-key/regenerate`, { key: h.businessKey });
    expect(res.status).toBe(200);
    expect(res.body.data.apiKey).not.toBe(oldKey);
    expect((await h.api('GET', `/v1/wallets/${id}`, { key: oldKey })).status).toBe(401);
    expect((await h.api('GET', `/v1/wallets/${id}`, { key: res.body.data.apiKey })).status).toBe(200);
  });

  it('a wallet key may deactivate its wallet but not reactivate it (403): only a business key lifts a deactivation', async () => {
    const created = await h.api('POST', '/v1/wallets', {
      key: h.businessKey,
      body: { blockchain: 'devnet-eth', network: 'testnet', name: 'Frozen' },
    });
    const { id, apiKey } = created.body.data;
    const off = await h.api('PATCH', `/v1/wallets/${id}`, { key: h.businessKey, body: { isActive: false } });
    expect(off.status).toBe(200);
    // The holder of the wallet's key (a leaked key, say) cannot undo the business's deactivation.
    const back = await h.api('PATCH', `/v1/wallets/${id}`, { key: apiKey, body: { isActive: true, name: 'Thawed' } });
    expect(back.status, JSON.stringify(back.body)).toBe(403);
    expect(back.body.error).toBe('FORBIDDEN');
    const still = await h.api('GET', `/v1/wallets/${id}`, { key: apiKey });
    expect(still.body.data).toMatchObject({ isActive: false, name: 'Frozen' });
    // Restricting is any key's, as is everything else about a deactivated wallet.
    expect((await h.api('PATCH', `/v1/wallets/${id}`, { key: apiKey, body: { isActive: false, name: 'Cold' } })).status).toBe(200);
    const on = await h.api('PATCH', `/v1/wallets/${id}`, { key: h.businessKey, body: { isActive: true } });
    expect(on.status).toBe(200);
    expect(on.body.data).toMatchObject({ isActive: true, name: 'Cold' });
    // Active already: isActive true is no change, so a wallet key may send it.
    expect((await h.api('PATCH', `/v1/wallets/${id}`, { key: apiKey, body: { isActive: true } })).status).toBe(200);
  });
});

describe('operations endpoints', () => {
  it('serves OpenAPI 3.1 with version 1.0.0 and the docs page', async () => {
    const spec = await fetch(`${h.baseUrl}/openapi.json`).then((r) => r.json());
    expect(spec.openapi).toBe('3.1.0');
    expect(spec.info.version).toBe('1.0.0');
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining(['/v1/blockchains', '/v1/wallets/{walletId}/addresses', '/v1/wallets/{walletId}/balances']),
    );
    const docs = await fetch(`${h.baseUrl}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
  });

  it('healthz, readyz (database and RPC) and Prometheus metrics', async () => {
    expect((await fetch(`${h.baseUrl}/healthz`)).status).toBe(200);
    const ready = await fetch(`${h.baseUrl}/readyz`).then((r) => r.json());
    expect(ready.status).toBe('ready');
    expect(ready.checks).toMatchObject({ database: 'ok', 'rpc:devnet-eth:testnet': 'ok', 'rpc:devnet-bsc:testnet': 'ok' });
    const metrics = await fetch(`${h.baseUrl}/metrics`).then((r) => r.text());
    expect(metrics).toContain('http_requests_total');
    expect(metrics).toContain('process_cpu_user_seconds_total');
  });
});
