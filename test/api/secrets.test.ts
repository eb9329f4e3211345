/**
 * Secrets in responses and logs, through real HTTP: every response that carries a secret
 * (a new wallet's key, a regenerated key, an exported private key) is `Cache-Control:
 * no-store`, as is every other /v1 answer; and a key sent in the URL (`?x-api-key=`,
 * `apiKey`, `key`, `token`, any case) never reaches the log, nor do the secrets of those
 * responses.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';

let h: Harness;
let w: TestWallet;

beforeAll(async () => {
  h = await startHarness();
  w = Object.values(h.wallets)[0]!;
});
afterAll(async () => {
  await h?.stop();
});

describe('Cache-Control: no-store', () => {
  it('on wallet creation, key regeneration and private-key export, and on every other /v1 answer', async () => {
    const created = await h.api('POST', '/v1/wallets', {
      key: h.businessKey,
      body: { blockchain: w.slug, network: 'testnet', name: 'no-store' },
    });
    expect(created.status).toBe(200);
    expect(created.body.data.apiKey).toMatch(/^sk_/);
    const regenerated = await h.api('POST', `/v1/wallets/${created.body.data.id}/api-key/regenerate`, { key: h.businessKey });
    expect(regenerated.status).toBe(200);
    const child = await h.api('POST', `/v1/wallets/${w.id}/addresses`, { key: w.apiKey, body: {} });
    const exported = await h.api('GET', `/v1/wallets/${w.id}/addresses/${child.body.data.id}?showPrivateKey=true`, { key: w.apiKey });
    expect(exported.status).toBe(200);
    expect(exported.body.data.privateKey).toMatch(/^0x[0-9a-f]{64}$/);
    const plain = await h.api('GET', `/v1/wallets/${w.id}`, { key: w.apiKey });
    const refused = await h.api('GET', `/v1/wallets/${w.id}`, { key: 'sk_test_wrong' });
    for (const res of [created, regenerated, exported, plain, refused]) expect(res.headers.get('cache-control')).toBe('no-store');

    // None of those secrets reached the log either.
    const logs = h.logs();
    for (const secret of [created.body.data.apiKey, regenerated.body.data.apiKey, exported.body.data.privateKey])
      expect(logs).not.toContain(secret);
  });
});

describe('Cache-Control: no-store, whatever form the request target takes', () => {
  // A request line may name the whole URL (RFC 9112 absolute-form: what clients send through a
  // proxy); Fastify routes it by its path, so the answer is the same secret-bearing one.
  const absolute = (path: string, key: string) =>
    new Promise<{ status: number; cacheControl: string | undefined; body: string }>((resolve, reject) => {
      const base = new URL(h.baseUrl);
      const req = request(
        { host: base.hostname, port: base.port, method: 'GET', path: `${base.origin}${path}`, headers: { 'x-api-key': key } },
        (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, cacheControl: res.headers['cache-control'], body }));
        },
      );
      req.on('error', reject).end();
    });

  it('an absolute-form request for a private key export is no-store, like its origin-form twin', async () => {
    const child = await h.api('POST', `/v1/wallets/${w.id}/addresses`, { key: w.apiKey, body: {} });
    expect(child.status).toBe(200);
    const exported = await absolute(`/v1/wallets/${w.id}/addresses/${child.body.data.id}?showPrivateKey=true`, w.apiKey);
    expect(exported.status).toBe(200);
    expect(JSON.parse(exported.body).data.privateKey).toMatch(/^0x[0-9a-f]{64}$/);
    expect(exported.cacheControl).toBe('no-store');
    // Percent-encoded, the path is the same route to the router.
    const encoded = await h.api('GET', `/%76%31/wallets/${w.id}/addresses/${child.body.data.id}?showPrivateKey=true`, { key: w.apiKey });
    expect(encoded.status).toBe(200);
    expect(encoded.headers.get('cache-control')).toBe('no-store');
    const encodedRefused = await h.api('GET', `/%76%31/wallets/${w.id}`, { key: 'sk_test_wrong' });
    expect(encodedRefused.status).toBe(401);
    expect(encodedRefused.headers.get('cache-control')).toBe('no-store');
    const refused = await absolute(`/v1/wallets/${w.id}`, 'sk_test_wrong');
    expect(refused.status).toBe(401);
    expect(refused.cacheControl).toBe('no-store');
  });
});

describe('keys in URLs', () => {
  it('a key in the query string, under any of the usual names and in any case, is redacted from the logged URL', async () => {
    const names = ['x-api-key', 'X-Api-Key', 'apiKey', 'APIKEY', 'api_key', 'key', 'Key', 'token', 'TOKEN', 'access_token'];
    for (const name of names) {
      const res = await h.api('GET', `/v1/wallets/${w.id}?${name}=${encodeURIComponent(w.apiKey)}&page=1`, { key: w.apiKey });
      expect(res.status).toBeLessThan(500);
    }
    // A key that is not shaped like ours (a client's own token) is redacted by the parameter name alone.
    await h.api('GET', `/v1/blockchains?token=opaque-client-token-123`, { key: w.apiKey });
    // A percent-encoded name ("%6Bey" is "key") is caught by the request serializer, which decodes names.
    await h.api('GET', `/v1/blockchains?%6Bey=opaque-client-token-456`, { key: w.apiKey });
    const logs = h.logs();
    expect(logs).toContain(`/v1/wallets/${w.id}?x-api-key=[redacted]`);
    expect(logs).not.toContain(w.apiKey);
    expect(logs).not.toContain(encodeURIComponent(w.apiKey));
    expect(logs).not.toContain('opaque-client-token-123');
    expect(logs).not.toContain('opaque-client-token-456');
    expect(logs).toContain('/v1/blockchains?%6Bey=[redacted]');
  });
});
