/**
 * The edge rule (lib/safe-text.ts, installed in http/validation.ts): text PostgreSQL cannot
 * store (NUL, unpaired surrogates), non-finite numbers and absurd nesting are a 400
 * VALIDATION_ERROR naming the field, in bodies, query strings and path parameters, on the
 * API and the dashboard alike, and nothing is written. Before the rule these were 500s
 * (PostgreSQL refused the text) or, for a surrogate in a `text` column, silently stored
 * as U+FFFD.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';
import { createDashboardUser, DashClient } from '../dashboard/support.js';

let h: Harness;
let w: TestWallet;
let nativeId: string;
const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  h = await startHarness();
  w = Object.values(h.wallets)[0]!;
  const network = h.devnet.chains[0]!.config.network;
  nativeId = h.services.catalogue.findChain(w.slug, network)!.assets.find((a) => a.is_native)!.id;
  expect((await h.api('PATCH', `/v1/wallets/${w.id}/assets/${nativeId}`, { key: w.apiKey, body: { isActive: true } })).status).toBe(200);
});
afterAll(async () => {
  await h?.stop();
});

const count = async (table: 'transactions' | 'beneficiaries' | 'addresses' | 'wallets') =>
  Number((await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(h.database.db)).rows[0]!.n);

function expectRefused(res: { status: number; body: any }, field: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR', details: [{ field, message: expect.any(String) }] });
  expect(res.body.message).toContain(field);
}

describe('bodies', () => {
  it('a wallet name or description with NUL or an unpaired surrogate is a 400 naming it; the wallet keeps its name', async () => {
    const before = (await h.api('GET', `/v1/wallets/${w.id}`, { key: w.apiKey })).body.data.name;
    for (const [body, field] of [
      [{ name: 'a\u0000b' }, 'name'],
      [{ name: '\ud800' }, 'name'],
      [{ description: 'x\udc00y' }, 'description'],
    ] as const) {
      expectRefused(await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body }), field);
    }
    expect((await h.api('GET', `/v1/wallets/${w.id}`, { key: w.apiKey })).body.data.name).toBe(before);
  });

  it('a beneficiary, a child address and a whitelisted address with bad text are refused and not created', async () => {
    const [beneficiaries, addresses] = [await count('beneficiaries'), await count('addresses')];
    expectRefused(
      await h.api('POST', `/v1/wallets/${w.id}/beneficiaries`, { key: w.apiKey, body: { name: '\ud800', address: randomAddress() } }),
      'name',
    );
    expectRefused(
      await h.api('POST', `/v1/wallets/${w.id}/addresses`, { key: w.apiKey, body: { name: 'ok', metadata: { 'k\u0000': 1 } } }),
      'metadata',
    );
    expectRefused(
      await h.api('POST', `/v1/wallets/${w.id}/addresses/whitelist`, {
        key: w.apiKey,
        body: { address: randomAddress(), metadata: { deep: { list: ['fine', 'bad\u0000'] } } },
      }),
      'metadata.deep.list.1',
    );
    expect([await count('beneficiaries'), await count('addresses')]).toEqual([beneficiaries, addresses]);
  });

  it("a withdrawal's note, reference and metadata (values and keys, nested, in a batch) are checked before anything is created", async () => {
    const before = await count('transactions');
    const base = { assetId: nativeId, address: randomAddress(), amount: '0.000001' };
    const cases: Array<[unknown, string]> = [
      [{ ...base, note: 'a\u0000b' }, 'note'],
      [{ ...base, reference: '\udbff' }, 'reference'],
      [{ ...base, metadata: { order: { lines: [{ sku: 'x\u0000' }] } } }, 'metadata.order.lines.0.sku'],
      [{ ...base, metadata: { '\ud800key': 'v' } }, 'metadata'],
      [
        {
          assets: [
            { id: nativeId, address: randomAddress(), amount: '0.000001' },
            { id: nativeId, address: randomAddress(), amount: '1', note: '\u0000' },
          ],
        },
        'assets.1.note',
      ],
    ];
    for (const [body, field] of cases) expectRefused(await h.api('POST', `/v1/wallets/${w.id}/withdraw`, { key: w.apiKey, body }), field);
    expect(await count('transactions')).toBe(before);
    // The same request with clean text goes through: the rule refuses only the bad text.
    expect(
      (await h.api('POST', `/v1/wallets/${w.id}/withdraw`, { key: w.apiKey, body: { ...base, note: 'ok 😀', metadata: { é: ['ü'] } } }))
        .status,
    ).toBe(200);
  });

  it('a non-finite number (1e400 parses as Infinity) and nesting past the limit are refused', async () => {
    const threshold = await h.api('PATCH', `/v1/wallets/${w.id}`, {
      key: w.apiKey,
      rawBody: '{"configurations":{"autoSweeping":{"threshold":1e400}}}',
      headers: { 'content-type': 'application/json' },
    });
    expectRefused(threshold, 'configurations.autoSweeping.threshold');
    const deep = await h.api('POST', `/v1/wallets/${w.id}/addresses`, {
      key: w.apiKey,
      rawBody: `{"metadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(deep.status).toBe(400);
    expect(deep.body.message).toMatch(/nests deeper than/);
  });
});

describe('query strings and path parameters', () => {
  it('a filter with NUL is a 400 naming the parameter', async () => {
    expectRefused(await h.api('GET', `/v1/wallets/${w.id}/transactions?reference=a%00b`, { key: w.apiKey }), 'reference');
    // Surrogate bytes (%ED%A0%80) in a URL are not UTF-8: the query parser never yields an unpaired surrogate from them.
    expect((await h.api('GET', `/v1/wallets/${w.id}/transactions?reference=%ED%A0%80`, { key: w.apiKey })).status).toBeLessThan(500);
    expectRefused(await h.api('GET', `/v1/wallets/${w.id}/balances?address=0x%00`, { key: w.apiKey }), 'address');
  });

  it('a path parameter with NUL is a 400 naming it', async () => {
    expectRefused(await h.api('GET', `/v1/wallets/${w.id}/addresses/a%00b`, { key: w.apiKey }), 'addressId');
  });
});

describe('dashboard forms', () => {
  it('a form field with NUL is a 400 page and nothing is written; so is a sign-in attempt', async () => {
    await createDashboardUser(h, h.businessId, 'edge@example.com', 'a long enough password');
    const c = new DashClient(h.baseUrl);
    expect((await c.login('edge@example.com', 'a long enough password')).status).toBe(303);
    const wallets = await count('wallets');
    const page = await c.submit('/dashboard/wallets', '/dashboard/wallets', { chain: `${w.slug}|testnet`, name: 'a\u0000b' });
    expect(page.status).toBe(400);
    expect(page.text).toContain('must not contain NUL');
    expect(await count('wallets')).toBe(wallets);

    const login = await new DashClient(h.baseUrl).login('edge\u0000@example.com', 'whatever');
    expect(login.status).toBe(400);
  });
});
