/**
 * Revocation across replicas (issue 17, item 2; issue 29, item 2). Each process caches the
 * keys it found good (modules/apikeys/service.ts), so:
 * - the instance that revokes a key refuses it at its very next request (it empties its
 *   cache at COMMIT, before it answers);
 * - every other replica refuses it within 100 ms (issue 29 moved this requirement from "at
 *   its very next request" to the 100 ms bound): measured here on another `api` process over
 *   a series of revocations, and on a replica whose change listener reaches the database
 *   through a proxy that delays what the database sends by LAG_MS, as a replica on a slower
 *   network path would (the cache entries' lifetime bounds its window, not the notification).
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
import { startDelayingProxy, type DelayingProxy } from '../support/delaying-proxy.js';
import { revocationWindow, startApiReplica, type ApiReplica } from '../support/replicas.js';

const LAG_MS = 300;
const BOUND_MS = 100;
const TRIALS = 20;

let h: Harness;
/** Another `api` process on the same database. */
let replica: ApiReplica;
/** A replica in this process whose change listener lags LAG_MS behind the database. */
let lagging: { database: Database$; services: Services; app: FastifyInstance; baseUrl: string };
let proxy: DelayingProxy;

beforeAll(async () => {
  h = await startHarness();
  const chains = h.devnet.chains.map((c) => c.config);
  const started = startApiReplica({ databaseUrl: h.databaseUrl, kek: h.kek, chains });
  proxy = await startDelayingProxy(h.databaseUrl, LAG_MS);
  const logger = createLogger('silent');
  // Queries go straight to the database; only the change listener is slow.
  const database = createDatabase(h.databaseUrl, logger);
  const services = await createServices(
    database.db,
    new LocalKeyVault(h.kek),
    {
      chains,
      addressLimit: 100_000,
      keyExport: { testnet: true, mainnet: false },
      apiLimits: { keyRate: 0, authFailures: 0, authFailureWindowS: 60 },
    },
    { logger, databaseUrl: proxy.url },
  );
  const app = await buildServer({ services, logger });
  await app.listen({ host: '127.0.0.1', port: 0 });
  lagging = { database, services, app, baseUrl: `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}` };
  replica = await started;
});

afterAll(async () => {
  await replica?.stop();
  await lagging?.app.close();
  await lagging?.services.close();
  await lagging?.database.close();
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

/** A business key created through the harness instance; used on `bases` until each accepts it (and caches it). */
async function liveBusinessKey(bases: string[]): Promise<{ id: string; key: string }> {
  const created = await call(h.baseUrl, 'POST', '/v1/api-keys', h.businessKey, { name: 'revoked in a test' });
  expect(created.status).toBe(200);
  const key = created.body.data.apiKey as string;
  for (const base of bases) for (let i = 0; i < 3; i++) expect((await call(base, 'GET', '/v1/wallets', key)).status).toBe(200);
  return { id: created.body.data.id, key };
}

/** Revokes through the harness instance, a business key or (`wallet`) a wallet's key by regenerating it; when answered. */
async function revoke(what: { businessKeyId: string } | { walletId: string }): Promise<number> {
  const res =
    'walletId' in what
      ? await call(h.baseUrl, 'POST', `/v1/wallets/${what.walletId}/api-key/regenerate`, h.businessKey)
      : await call(h.baseUrl, 'DELETE', `/v1/api-keys/${what.businessKeyId}`, h.businessKey);
  expect(res.status).toBe(200);
  return performance.now();
}

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;

describe('revocation across replicas', () => {
  it('the lagging replica is a live listener (its caches are on), so the test measures what ships', () => {
    expect(lagging.services.changes.live).toBe(true);
  });

  it('the instance that revokes refuses the key at its very next request', async () => {
    const w = h.wallets['devnet-eth']!;
    for (let i = 0; i < 3; i++) expect((await call(h.baseUrl, 'GET', `/v1/wallets/${w.id}`, w.apiKey)).status).toBe(200);
    await revoke({ walletId: w.id });
    expect((await call(h.baseUrl, 'GET', `/v1/wallets/${w.id}`, w.apiKey)).status).toBe(401);

    const { id, key } = await liveBusinessKey([h.baseUrl]);
    await revoke({ businessKeyId: id });
    expect((await call(h.baseUrl, 'GET', '/v1/wallets', key)).status).toBe(401);
    // A request that could do harm is refused just the same.
    const create = await call(h.baseUrl, 'POST', '/v1/wallets', key, { blockchain: 'devnet-eth', network: 'testnet', name: 'x' });
    expect(create.status).toBe(401);
  });

  it(`another api process refuses a revoked key within ${BOUND_MS} ms, over ${TRIALS} revocations`, async () => {
    const windows: number[] = [];
    for (let i = 0; i < TRIALS; i++) {
      const { id, key } = await liveBusinessKey([replica.baseUrl]);
      const revokedAt = await revoke({ businessKeyId: id });
      windows.push(await revocationWindow(revokedAt, async () => (await call(replica.baseUrl, 'GET', '/v1/wallets', key)).status));
    }
    console.log(
      `revocation window of another api process, ${TRIALS} revocations: p50 ${percentile(windows, 50).toFixed(1)} ms, p99 ${percentile(windows, 99).toFixed(1)} ms, max ${Math.max(...windows).toFixed(1)} ms`,
    );
    expect(percentile(windows, 99)).toBeLessThanOrEqual(BOUND_MS);
    // A wallet key replaced by a regeneration: the same.
    const w = h.wallets['devnet-bsc']!;
    for (let i = 0; i < 3; i++) expect((await call(replica.baseUrl, 'GET', `/v1/wallets/${w.id}`, w.apiKey)).status).toBe(200);
    const regeneratedAt = await revoke({ walletId: w.id });
    const window = await revocationWindow(
      regeneratedAt,
      async () => (await call(replica.baseUrl, 'GET', `/v1/wallets/${w.id}`, w.apiKey)).status,
    );
    expect(window).toBeLessThanOrEqual(BOUND_MS);
  });

  it(`a replica whose notifications lag ${LAG_MS} ms refuses it within ${BOUND_MS} ms all the same`, async () => {
    const windows: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { id, key } = await liveBusinessKey([lagging.baseUrl]);
      // The key's creation reaches the lagging replica late too; let it, so the key is cached there.
      await new Promise((r) => setTimeout(r, LAG_MS * 2));
      expect((await call(lagging.baseUrl, 'GET', '/v1/wallets', key)).status).toBe(200);
      const revokedAt = await revoke({ businessKeyId: id });
      windows.push(await revocationWindow(revokedAt, async () => (await call(lagging.baseUrl, 'GET', '/v1/wallets', key)).status));
    }
    console.log(`revocation window of a replica whose notifications lag ${LAG_MS} ms: ${windows.map((w) => w.toFixed(1)).join(', ')} ms`);
    expect(Math.max(...windows)).toBeLessThanOrEqual(BOUND_MS);
  });
});
