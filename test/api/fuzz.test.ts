/**
 * Property: no request a client can send gets a 5xx. For every route and method of the
 * service's own /openapi.json, generated requests (schema-shaped values mixed with NUL,
 * unpaired surrogates, huge and non-finite numbers, wrong types, deep nesting, unknown
 * fields, raw bytes that are not JSON or not UTF-8, in bodies, query strings and path
 * parameters) with a valid key. Every /v1 answer also carries `Cache-Control: no-store`.
 *
 * Fixed seed (FUZZ_SEED to change it; FUZZ_RUNS for requests per route); a failure prints
 * the seed and the smallest request found. The test also proves it was not vacuous: every
 * route of the document was exercised, and many answered 200.
 */
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startHarness, type Harness } from '../support/harness.js';
import { recordDeposit } from '../support/fixtures.js';
import {
  FRESH,
  OUTSIDE,
  operations,
  requestOf,
  type Examples,
  type FuzzRequest,
  type Pools,
  type Schema,
} from '../support/fuzz-requests.js';
import { fuzzExamples } from './fuzz-examples.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_260_611);
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);

let h: Harness;
let doc: Schema;
let pools: Pools;
let examples: Examples;
let keys: string[];
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;

function send(method: string, r: FuzzRequest, key: string): Promise<{ status: number; cacheControl: string; body: string }> {
  const body = r.body === undefined ? undefined : Buffer.from(r.body, 'utf8');
  const path = r.query ? `${r.path}?${r.query}` : r.path;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${h.baseUrl}${path}`,
      {
        method,
        agent,
        headers: { ...r.headers, 'x-api-key': key, ...(body ? { 'content-length': String(body.length) } : {}) },
      },
      (res) => {
        // An event stream (GET /v1/events/stream) never ends: its status and headers are the answer.
        if (String(res.headers['content-type']).startsWith('text/event-stream')) {
          res.destroy();
          resolve({ status: res.statusCode ?? 0, cacheControl: String(res.headers['cache-control'] ?? ''), body: '' });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            cacheControl: String(res.headers['cache-control'] ?? ''),
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Whether the operation answers with an endless text/event-stream (sent by `send`, which does not wait for its end). */
const streams = (d: Schema, method: string, path: string): boolean =>
  Boolean(d.paths[path]?.[method.toLowerCase()]?.responses?.['200']?.content?.['text/event-stream']);

beforeAll(async () => {
  h = await startHarness();
  doc = await (await fetch(`${h.baseUrl}/openapi.json`)).json();
  const [first, second] = Object.values(h.wallets);
  const w = first!;
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await h.api(method, path, { key: h.businessKey, ...(body !== undefined ? { body } : {}) });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.data;
  };
  const child = await ok('POST', `/v1/wallets/${w.id}/addresses`, { name: 'fuzz child', metadata: { a: 1 } });
  const external = await ok('POST', `/v1/wallets/${w.id}/addresses/whitelist`, { address: randomAddress(), name: 'outside' });
  const beneficiary = await ok('POST', `/v1/wallets/${w.id}/beneficiaries`, { name: 'payee', address: randomAddress() });
  const assets: Array<{ id: string; asset: { id: string; symbol: string; address: string; isNative: boolean } }> = await ok(
    'GET',
    `/v1/wallets/${w.id}/assets`,
  );
  const deposit = await recordDeposit(h, w.slug);
  const token = assets.find((a) => !a.asset.isNative)!;
  // Wallets start with their tokens only: turn the native coin on (by its catalogue id).
  const nativeId = h.services.catalogue.findChain(w.slug, h.devnet.chains[0]!.config.network)!.assets.find((a) => a.is_native)!.id;
  const native = { id: (await ok('PATCH', `/v1/wallets/${w.id}/assets/${nativeId}`, { isActive: true })).id as string };
  // The harness funds the master with its native coin: a real withdrawal, for cancel and retry.
  const withdrawal = await ok('POST', `/v1/wallets/${w.id}/withdraw`, { assetId: native.id, address: randomAddress(), amount: '0.001' });
  const symbols = [...new Set(assets.map((a) => a.asset.symbol))];
  const rule = await ok('POST', `/v1/wallets/${w.id}/auto-settlements/rules`, {
    name: 'rule',
    source: { assets: [token.asset.symbol], blockchain: w.slug },
    destination: { asset: token.asset.symbol, address: randomAddress(), blockchain: w.slug },
  });
  const ids: Record<string, string[]> = {
    walletId: [w.id, w.id, w.id, ...(second ? [second.id] : [])],
    addressId: [child.id, child.id, external.id],
    assetId: [...assets.flatMap((a) => [a.id, a.asset.id]), native.id, nativeId],
    transactionsId: [deposit.id, withdrawal.id],
    id: [beneficiary.id, rule.id],
  };
  pools = {
    ids,
    allIds: [...new Set(Object.values(ids).flat())],
    addresses: [w.address, child.address, external.address, beneficiary.address, ...assets.map((a) => a.asset.address)],
    slugs: Object.keys(h.wallets),
    symbols,
  };
  examples = fuzzExamples({
    slug: w.slug,
    network: h.devnet.chains[0]!.config.network,
    symbols,
    master: w.address,
    token: token.asset.address,
    nativeAssetId: native.id,
    tokenAssetId: token.id,
    depositId: deposit.id,
    withdrawalId: withdrawal.id,
  });
  keys = [h.businessKey, w.apiKey];
});

afterAll(async () => {
  agent.destroy();
  await h?.stop();
});

it('every example request, sent as is, passes validation (the fuzz starts from requests that reach the services)', async () => {
  const ops = new Set(operations(doc).map((o) => `${o.method} ${o.path}`));
  const refused: string[] = [];
  for (const [name, list] of Object.entries(examples)) {
    expect(ops, 'an example for a route the document lacks').toContain(name);
    const [method, template] = name.split(' ') as [string, string];
    const path = template.replace(/\{(\w+)\}/g, (_, p: string) => pools.ids[p]![0]!);
    for (const e of list) {
      const fresh = JSON.parse(JSON.stringify(e).replaceAll(OUTSIDE, randomAddress()).replaceAll(FRESH, randomAddress().slice(2, 12)));
      const query = fresh.query ? `?${new URLSearchParams(fresh.query)}` : '';
      const res = streams(doc, method, template)
        ? await send(method, { path, query: query.slice(1), headers: {} }, h.businessKey)
        : await h.api(method, `${path}${query}`, { key: h.businessKey, ...(fresh.body !== undefined ? { body: fresh.body } : {}) });
      if (res.status === 400 || res.status >= 500) refused.push(`${name}: ${res.status} ${JSON.stringify(res.body)}`);
    }
  }
  expect(refused).toEqual([]);
});

it('no generated request to any route of /openapi.json gets a 5xx, and every answer with data is no-store', async () => {
  const ops = operations(doc);
  // The document must describe the API, not a stub: if routes vanished from it, this test would test nothing.
  expect(ops.length).toBeGreaterThanOrEqual(60);
  const w = Object.values(h.wallets)[0]!;
  const exercised = new Map<string, Record<number, number>>();
  const failures: string[] = [];

  for (const [i, operation] of ops.entries()) {
    const name = `${operation.method} ${operation.path}`;
    const statuses: Record<number, number> = {};
    exercised.set(name, statuses);
    // Earlier routes may have switched the wallet off, stopped its addresses or its contract
    // writes (typed-data signing too): start each route from a usable wallet.
    await h.api('PATCH', `/v1/wallets/${w.id}`, {
      key: h.businessKey,
      body: { isActive: true, configurations: { addresses: { isActive: true }, contractWrites: { isActive: true, allowedContracts: [] } } },
    });
    const property = fc.asyncProperty(requestOf(operation, doc, pools, examples), fc.nat(9), async (r, k) => {
      const res = await send(operation.method, r, keys[k < 8 ? 0 : 1]!);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      // A regenerated wallet key replaces the old one: keep using a live key.
      if (res.status === 200 && name.endsWith('/api-key/regenerate') && r.path.includes(w.id)) keys[1] = JSON.parse(res.body).data.apiKey;
      if (res.status >= 500) throw new Error(`${res.status}: ${res.body.slice(0, 500)}`);
      // Secrets travel in 200s; errors the router answers itself (a malformed URL) carry none.
      if (res.status < 300 && !/no-store/.test(res.cacheControl)) throw new Error(`${res.status} without Cache-Control: no-store`);
    });
    const result = await fc.check(property, { seed: SEED + i, numRuns: RUNS, endOnFailure: false });
    if (result.failed) {
      const [req] = result.counterexample ?? [];
      failures.push(
        `${name} (FUZZ_SEED=${SEED}, route seed ${SEED + i}, path ${result.counterexamplePath}):\n  ${String(result.errorInstance)}\n  request: ${JSON.stringify(req).slice(0, 600)}`,
      );
    }
  }

  const summary = [...exercised].map(([name, s]) => `${name} ${JSON.stringify(s)}`).join('\n');
  if (process.env.FUZZ_SUMMARY) console.info(`statuses per route (FUZZ_SEED=${SEED}, ${RUNS} runs):\n${summary}`);
  expect(failures, `${failures.join('\n\n')}\n\nstatuses per route:\n${summary}`).toEqual([]);
  // Not vacuous: every route of the document was sent its share of requests...
  for (const operation of ops) {
    const s = exercised.get(`${operation.method} ${operation.path}`)!;
    expect(
      Object.values(s).reduce((a, b) => a + b, 0),
      `${operation.method} ${operation.path}`,
    ).toBeGreaterThanOrEqual(RUNS);
  }
  // ...and most got past validation into their services at least once.
  const answered = [...exercised.values()].filter((s) => (s[200] ?? 0) > 0).length;
  expect(answered, summary).toBeGreaterThanOrEqual(Math.floor(ops.length * 0.6));
}, 900_000);
