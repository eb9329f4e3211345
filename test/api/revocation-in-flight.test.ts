/**
 * Revocation and a key lookup already under way on another replica (modules/apikeys
 * authentication.ts). A replica shares one lookup among the requests of a key that arrive
 * while it runs (single flight). That lookup read the key when it began: a request that
 * joins it long after is answered with what the database said then. On a replica whose
 * database answers slowly, and whose notification of the revocation is therefore late
 * too, a request sent well after the revocation committed joined a lookup from before it
 * and was accepted: past the bound every replica keeps (LIVE_KEY_TTL_MS after the
 * revocation committed, whatever the notifications do).
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createDatabase, type Database$ } from '../../src/db/pool.js';
import { LocalKeyVault } from '../../src/keys/vault.js';
import { createServices, type Services } from '../../src/services.js';
import { buildServer } from '../../src/server.js';
import { createLogger } from '../../src/lib/logger.js';
import { LIVE_KEY_TTL_MS } from '../../src/modules/apikeys/service.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startDelayingProxy, type DelayingProxy } from '../support/delaying-proxy.js';

/** How late everything the database sends reaches the slow replica (answers and notifications alike). */
const LAG_MS = 600;

let h: Harness;
let slow: { database: Database$; services: Services; app: FastifyInstance; baseUrl: string };
/** Everything PostgreSQL sends the slow replica, held LAG_MS; `sent()`: bytes the replica sent (a query is on its way once it grows). */
let proxy: DelayingProxy;

beforeAll(async () => {
  h = await startHarness();
  // No lag while the replica starts (its start is many round trips), LAG_MS once it serves.
  proxy = await startDelayingProxy(h.databaseUrl, 0);
  const logger = createLogger('silent');
  // Both the queries and the change listener go through the slow path; one connection, made
  // before the test, so a lookup is one round trip.
  const database = createDatabase(proxy.url, logger, 1);
  const services = await createServices(
    database.db,
    new LocalKeyVault(h.kek),
    {
      chains: h.devnet.chains.map((c) => c.config),
      addressLimit: 100_000,
      keyExport: { testnet: true, mainnet: false },
      apiLimits: { keyRate: 0, authFailures: 0, authFailureWindowS: 60 },
    },
    { logger, databaseUrl: proxy.url },
  );
  const app = await buildServer({ services, logger });
  await app.listen({ host: '127.0.0.1', port: 0 });
  slow = { database, services, app, baseUrl: `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}` };
  proxy.setLag(LAG_MS);
}, 120_000);

afterAll(async () => {
  await slow?.app.close();
  await slow?.services.close();
  await slow?.database.close();
  proxy?.close();
  await h?.stop();
});

const status = async (base: string, method: string, path: string, key: string) =>
  (await fetch(`${base}${path}`, { method, headers: { 'x-api-key': key } })).status;

describe('a key revoked while a replica looks it up', () => {
  it(`a request sent more than ${LIVE_KEY_TTL_MS} ms after the revocation committed is refused, though a lookup from before it is still under way`, async () => {
    expect(slow.services.changes.live).toBe(true);
    // The replica's one connection is made and warm (a lookup is one round trip from now on).
    expect(await status(slow.baseUrl, 'GET', '/v1/wallets', h.businessKey)).toBe(200);
    const created = await h.api('POST', '/v1/api-keys', { key: h.businessKey, body: { name: 'revoked mid-lookup' } });
    expect(created.status).toBe(200);
    const { id, apiKey } = created.body.data as { id: string; apiKey: string };

    // The replica starts looking the key up; its answer is on the slow path for LAG_MS. The
    // revocation follows once the lookup's query has left (a fixed pause could be too short
    // on a busy machine, and the lookup would then read the key revoked).
    const before = proxy.sent();
    const first = status(slow.baseUrl, 'GET', '/v1/wallets', apiKey);
    for (let i = 0; i < 500 && proxy.sent() === before; i++) await new Promise((r) => setTimeout(r, 5));
    expect(proxy.sent(), 'the replica sent its lookup').toBeGreaterThan(before);
    await new Promise((r) => setTimeout(r, 20));
    expect((await h.api('DELETE', `/v1/api-keys/${id}`, { key: h.businessKey })).status).toBe(200);
    const committed = performance.now();
    await new Promise((r) => setTimeout(r, LIVE_KEY_TTL_MS + 60));
    // Well past the bound, and still before the replica hears of the revocation.
    const sentAt = performance.now() - committed;
    const late = await status(slow.baseUrl, 'GET', '/v1/wallets', apiKey);
    expect(sentAt).toBeLessThan(LAG_MS - 150);
    // The lookup that began before the revocation answers its own request (it was in flight).
    expect(await first).toBe(200);
    expect(late).toBe(401);
  });
});
