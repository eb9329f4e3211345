/**
 * Revocation takes effect on every replica at once (issue 17, item 2): two service
 * instances on one real PostgreSQL, as two `npm start -- api` processes. The second
 * instance's change listener reaches the database through a proxy that delays what the
 * database sends by DELAY_MS, as a replica on a slower network path would: anything
 * that relied on the cross-process notification to forget a good key (the positive
 * authentication cache this replaced) answers 200 with a revoked key during that delay.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createDatabase, type Database$ } from '../../src/db/pool.js';
import { LocalKeyVault } from '../../src/keys/vault.js';
import { createServices, type Services } from '../../src/services.js';
import { buildServer } from '../../src/server.js';
import { createLogger } from '../../src/lib/logger.js';
import { startHarness, type Harness } from '../support/harness.js';

const DELAY_MS = 300;

let h: Harness;
let b: { database: Database$; services: Services; app: FastifyInstance; baseUrl: string };
let proxy: net.Server;

/** A TCP proxy to PostgreSQL that holds every byte from the server for DELAY_MS. */
async function delayingProxy(target: URL): Promise<net.Server> {
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d) => setTimeout(() => client.writable && client.write(d), DELAY_MS));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', () => setTimeout(end, DELAY_MS)).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

beforeAll(async () => {
  h = await startHarness();
  const direct = new URL(h.databaseUrl);
  proxy = await delayingProxy(direct);
  const slow = new URL(h.databaseUrl);
  slow.host = `127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;

  const logger = createLogger('silent');
  // Queries go straight to the database; only the change listener is slow.
  const database = createDatabase(h.databaseUrl, logger);
  const services = await createServices(
    database.db,
    new LocalKeyVault(h.kek),
    { chains: h.devnet.chains.map((c) => c.config), addressLimit: 100_000, keyExport: { testnet: true, mainnet: false } },
    { logger, databaseUrl: slow.toString() },
  );
  const app = await buildServer({ services, logger });
  await app.listen({ host: '127.0.0.1', port: 0 });
  b = { database, services, app, baseUrl: `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}` };
});

afterAll(async () => {
  await b?.app.close();
  await b?.services.close();
  await b?.database.close();
  proxy?.close();
  await h?.stop();
});

async function call(base: string, method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('revocation across replicas', () => {
  it('the slow replica is a live listener (its caches are on), so the test measures what ships', () => {
    expect(b.services.changes.live).toBe(true);
  });

  it('a wallet key regenerated on one instance is refused by the other on its very next request', async () => {
    const w = h.wallets['devnet-eth']!;
    // Used on b first: anything b would remember about the key, it does now.
    for (let i = 0; i < 3; i++) expect((await call(b.baseUrl, 'GET', `/v1/wallets/${w.id}`, w.apiKey)).status).toBe(200);
    const regen = await call(h.baseUrl, 'POST', `/v1/wallets/${w.id}/api-key/regenerate`, h.businessKey);
    expect(regen.status).toBe(200);
    const started = Date.now();
    expect((await call(b.baseUrl, 'GET', `/v1/wallets/${w.id}`, w.apiKey)).status).toBe(401);
    // Well inside the window b's notification is still on its way.
    expect(Date.now() - started).toBeLessThan(DELAY_MS);
    expect((await call(b.baseUrl, 'GET', `/v1/wallets/${w.id}`, regen.body.data.apiKey)).status).toBe(200);
  });

  it('a business key revoked on one instance is refused by the other on its very next request', async () => {
    const created = await call(h.baseUrl, 'POST', '/v1/api-keys', h.businessKey, { name: 'integration' });
    expect(created.status).toBe(200);
    const key = created.body.data.apiKey as string;
    // Give the creation's notification time to reach b, then warm b up with the key.
    await new Promise((r) => setTimeout(r, DELAY_MS * 2));
    for (let i = 0; i < 3; i++) expect((await call(b.baseUrl, 'GET', '/v1/wallets', key)).status).toBe(200);

    const revoked = await call(h.baseUrl, 'DELETE', `/v1/api-keys/${created.body.data.id}`, h.businessKey);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.revokedAt).toEqual(expect.any(String));
    const started = Date.now();
    const after = await call(b.baseUrl, 'GET', '/v1/wallets', key);
    expect(after.status).toBe(401);
    expect(Date.now() - started).toBeLessThan(DELAY_MS);
    // A request that could do harm is refused just the same.
    expect((await call(b.baseUrl, 'POST', '/v1/wallets', key, { blockchain: 'devnet-eth', network: 'testnet', name: 'x' })).status).toBe(
      401,
    );
  });
});
