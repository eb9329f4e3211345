/**
 * Beneficiaries through HTTP: create, list, get, update, soft delete; the isSettlement /
 * settlementFrequency rule and the other validation (4xx, nothing written); whitelisting
 * as withdrawals see it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf } from '../support/chain.js';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';

let h: Harness;
const ETH = 'devnet-eth';
const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;
/** A mixed-case address with one letter's case flipped: its EIP-55 checksum is wrong. */
function badChecksum(): string {
  for (;;) {
    const a = randomAddress();
    const i = [...a].findIndex((c, k) => k > 1 && /[a-fA-F]/.test(c));
    if (i < 0) continue;
    const c = a[i]!;
    const flipped = a.slice(0, i) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + a.slice(i + 1);
    const hex = flipped.slice(2);
    // All one case would be an unchecksummed (valid) address, not a wrong checksum.
    if (hex !== hex.toLowerCase() && hex !== hex.toUpperCase()) return flipped;
  }
}
const wallet = () => h.wallets[ETH]!;
const path = (suffix = '') => `/v1/wallets/${wallet().id}/beneficiaries${suffix}`;

beforeAll(async () => {
  h = await startHarness({ specs: [DEVNET_CHAINS[0]!] });
  // Tokens at the master, so withdrawals can be accepted (the worker is off: they stay PENDING).
  await chainOf(h, ETH).sendToken('USDC', wallet().address, '1000');
});
afterAll(async () => {
  await h?.stop();
});

async function counts() {
  const { rows } = await sql<{ b: string; a: string }>`
    SELECT (SELECT count(*) FROM beneficiaries) AS b, (SELECT count(*) FROM audit_log WHERE action LIKE 'beneficiary.%') AS a`.execute(
    h.database.db,
  );
  return rows[0]!;
}

async function create(body: Record<string, unknown>) {
  const res = await h.api('POST', path(), { body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as Record<string, any>;
}

describe('create, read, update, delete', () => {
  it('creates a beneficiary with the spec fields, the address checksummed', async () => {
    const address = randomAddress();
    const b = await create({ name: 'Treasury', address: address.toLowerCase() });
    expect(b).toEqual({
      id: expect.any(String),
      name: 'Treasury',
      address: getAddress(address),
      isActive: true,
      isDefault: false,
      isSettlement: false,
      isWhitelisted: false,
      settlementFrequency: null,
      deletedAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const got = await h.api('GET', path(`/${b.id}`));
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ data: b, message: expect.any(String), statusCode: 200 });
    const { rows } = await sql<{ action: string; actor: string }>`
      SELECT action, actor FROM audit_log WHERE target_id = ${b.id}`.execute(h.database.db);
    expect(rows).toEqual([{ action: 'beneficiary.created', actor: expect.stringMatching(/^api-key:/) }]);
  });

  it('a settlementFrequency on POST makes a settlement beneficiary', async () => {
    const b = await create({ name: 'Daily', address: randomAddress(), settlementFrequency: 'DAILY', isWhitelisted: true });
    expect(b).toMatchObject({ isSettlement: true, settlementFrequency: 'DAILY', isWhitelisted: true });
    const off = await create({ name: 'Stored only', address: randomAddress(), settlementFrequency: 'WEEKLY', isSettlement: false });
    expect(off).toMatchObject({ isSettlement: false, settlementFrequency: 'WEEKLY' });
    // Clean up: whitelisting would otherwise restrict the withdrawals below.
    expect((await h.api('DELETE', path(`/${b.id}`))).status).toBe(200);
  });

  it('updates partially and keeps the rest', async () => {
    const b = await create({ name: 'Ops', address: randomAddress() });
    const res = await h.api('PATCH', path(`/${b.id}`), { body: { name: 'Operations', isActive: false } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: b.id, name: 'Operations', isActive: false, address: b.address, isWhitelisted: false });
    expect(Date.parse(res.body.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(b.updatedAt));
    const settle = await h.api('PATCH', path(`/${b.id}`), { body: { isSettlement: true, settlementFrequency: 'MONTHLY' } });
    expect(settle.status).toBe(200);
    expect(settle.body.data).toMatchObject({ isSettlement: true, settlementFrequency: 'MONTHLY' });
    // The stored frequency satisfies the rule on a later PATCH.
    const again = await h.api('PATCH', path(`/${b.id}`), { body: { isSettlement: false } });
    expect(again.body.data).toMatchObject({ isSettlement: false, settlementFrequency: 'MONTHLY' });
    const back = await h.api('PATCH', path(`/${b.id}`), { body: { isSettlement: true } });
    expect(back.status).toBe(200);
    expect(back.body.data).toMatchObject({ isSettlement: true, settlementFrequency: 'MONTHLY' });
  });

  it('one default per wallet: a new default clears the old one', async () => {
    const a = await create({ name: 'A', address: randomAddress(), isDefault: true });
    const b = await create({ name: 'B', address: randomAddress() });
    expect((await h.api('PATCH', path(`/${b.id}`), { body: { isDefault: true } })).body.data.isDefault).toBe(true);
    expect((await h.api('GET', path(`/${a.id}`))).body.data.isDefault).toBe(false);
  });

  it('soft-deletes: deletedAt set, then 404 to PATCH and DELETE, still readable, hidden from the list unless asked', async () => {
    const b = await create({ name: 'Gone', address: randomAddress() });
    const del = await h.api('DELETE', path(`/${b.id}`));
    expect(del.status).toBe(200);
    expect(del.body.data.id).toBe(b.id);
    expect(typeof del.body.data.deletedAt).toBe('string');
    expect(Number.isNaN(Date.parse(del.body.data.deletedAt))).toBe(false);

    for (const [method, body] of [
      ['PATCH', { name: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await h.api(method, path(`/${b.id}`), body ? { body } : {});
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ statusCode: 404, error: 'NOT_FOUND', requestId: expect.any(String) });
    }
    expect((await h.api('GET', path(`/${b.id}`))).body.data.deletedAt).toBe(del.body.data.deletedAt);
    const live = await h.api('GET', path('?limit=100'));
    expect(live.body.data.map((x: { id: string }) => x.id)).not.toContain(b.id);
    const all = await h.api('GET', path('?includeDeleted=true'));
    expect(all.body.data.map((x: { id: string }) => x.id)).toContain(b.id);
    // The address is free again.
    expect((await create({ name: 'Back', address: b.address })).address).toBe(b.address);
    const { rows } = await sql<{ action: string }>`SELECT action FROM audit_log WHERE target_id = ${b.id}`.execute(h.database.db);
    expect(rows.map((r) => r.action).sort()).toEqual(['beneficiary.created', 'beneficiary.deleted']);
  });

  it('lists newest first with pagination and filters', async () => {
    const res = await h.api('GET', path('?limit=2&page=1'));
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
    expect(res.body.meta).toMatchObject({ currentPage: 1, itemCount: 2, itemsPerPage: 2 });
    expect(res.body.meta.totalPages).toBe(Math.ceil(res.body.meta.totalItems / 2));
    const [first, second] = res.body.data;
    expect(Date.parse(first.createdAt)).toBeGreaterThanOrEqual(Date.parse(second.createdAt));
    const settling = await h.api('GET', path('?isSettlement=true'));
    expect(settling.body.data.length).toBeGreaterThan(0);
    expect(settling.body.data.every((b: { isSettlement: boolean }) => b.isSettlement)).toBe(true);
    expect((await h.api('GET', path('?limit=101'))).status).toBe(400);
    expect((await h.api('GET', path('?page=0'))).status).toBe(400);
  });

  it('unknown and foreign beneficiaries look the same: 404', async () => {
    const unknown = '01900000-0000-7000-8000-000000000000';
    expect((await h.api('GET', path(`/${unknown}`))).status).toBe(404);
    expect((await h.api('PATCH', path(`/${unknown}`), { body: { name: 'x' } })).status).toBe(404);
    expect((await h.api('DELETE', path(`/${unknown}`))).status).toBe(404);
    const mine = await create({ name: 'Mine', address: randomAddress() });
    // A wallet created for the same business has its own key: it cannot reach this wallet.
    const other = await h.services.wallets.createForBusiness(h.businessId, { blockchain: ETH, network: 'testnet', name: 'Other' });
    const res = await h.api('GET', path(`/${mine.id}`), { key: other.apiKey });
    expect(res.status).toBe(404);
    const viaOther = await h.api('GET', `/v1/wallets/${other.wallet.id}/beneficiaries/${mine.id}`, { key: other.apiKey });
    expect(viaOther.status).toBe(404);
    expect((await h.api('GET', path(), { key: null })).status).toBe(401);
  });
});

describe('OpenAPI', () => {
  it('describes the beneficiary endpoints', async () => {
    const spec = await fetch(`${h.baseUrl}/openapi.json`).then((r) => r.json());
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining([
        '/v1/wallets/{walletId}/beneficiaries',
        '/v1/wallets/{walletId}/beneficiaries/{id}',
        '/v1/wallets/{walletId}/beneficiaries/{id}/settlements',
      ]),
    );
    expect(Object.keys(spec.paths['/v1/wallets/{walletId}/beneficiaries/{id}'])).toEqual(
      expect.arrayContaining(['get', 'patch', 'delete']),
    );
  });
});

describe('validation: 4xx and nothing written', () => {
  const cases: [string, Record<string, unknown>, number, string?][] = [
    ['isSettlement without a frequency', { name: 'S', address: randomAddress(), isSettlement: true }, 400, 'settlementFrequency'],
    ['an unknown frequency', { name: 'S', address: randomAddress(), settlementFrequency: 'HOURLY' }, 400, 'settlementFrequency'],
    ['no name', { address: randomAddress() }, 400, 'name'],
    ['a blank name', { name: '   ', address: randomAddress() }, 400, 'name'],
    ['no address', { name: 'S' }, 400, 'address'],
    ['a malformed address', { name: 'S', address: '0x1234' }, 400, 'address'],
    ['a wrong EIP-55 checksum', { name: 'S', address: badChecksum() }, 400, 'address'],
    ['the zero address', { name: 'S', address: '0x0000000000000000000000000000000000000000' }, 400, 'address'],
    ['an unknown field', { name: 'S', address: randomAddress(), colour: 'red' }, 400],
    ['isWhitelisted not a boolean', { name: 'S', address: randomAddress(), isWhitelisted: 'yes' }, 400, 'isWhitelisted'],
  ];
  for (const [what, body, status, field] of cases) {
    it(`POST with ${what}: ${status}`, async () => {
      const before = await counts();
      const res = await h.api('POST', path(), { body });
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ statusCode: status, error: 'VALIDATION_ERROR', requestId: expect.any(String) });
      if (field) expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await counts()).toEqual(before);
    });
  }

  it("the wallet's own master address: 422", async () => {
    const before = await counts();
    const res = await h.api('POST', path(), { body: { name: 'Self', address: wallet().address } });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('SAME_ADDRESS');
    expect(await counts()).toEqual(before);
  });

  it("one of the wallet's own child addresses: 422", async () => {
    const child = (await h.api('POST', `/v1/wallets/${wallet().id}/addresses`, { body: {} })).body.data;
    const before = await counts();
    const res = await h.api('POST', path(), { body: { name: 'Child', address: child.address } });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('OWN_ADDRESS');
    expect(await counts()).toEqual(before);
  });

  it('a second live beneficiary with the same address (any case): 409', async () => {
    const address = randomAddress();
    await create({ name: 'First', address });
    const before = await counts();
    const res = await h.api('POST', path(), { body: { name: 'Second', address: address.toLowerCase() } });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('BENEFICIARY_EXISTS');
    expect(await counts()).toEqual(before);
  });

  it('PATCH to isSettlement true with no frequency stored or given: 400, row unchanged', async () => {
    const b = await create({ name: 'Plain', address: randomAddress() });
    const before = await counts();
    const res = await h.api('PATCH', path(`/${b.id}`), { body: { isSettlement: true, name: 'Renamed' } });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: 'settlementFrequency', message: expect.any(String) }]);
    expect(await counts()).toEqual(before);
    expect((await h.api('GET', path(`/${b.id}`))).body.data).toEqual(b);
    for (const body of [{ settlementFrequency: 'SOMETIMES' }, { isActive: 'no' }, { address: randomAddress() }, { name: '' }]) {
      expect((await h.api('PATCH', path(`/${b.id}`), { body })).status).toBe(400);
    }
    expect((await h.api('GET', path(`/${b.id}`))).body.data).toEqual(b);
  });
});

describe('whitelisting, as withdrawals see it', () => {
  const usdc = () => h.services.catalogue.findChain(ETH, 'testnet')!.assets.find((a) => a.symbol === 'USDC')!.id;
  const withdraw = (address: string) =>
    h.api('POST', `/v1/wallets/${wallet().id}/withdraw`, { body: { assetId: usdc(), address, amount: '1' } });

  it('once a beneficiary is whitelisted, withdrawals elsewhere get 422; removing the whitelisting lifts it', async () => {
    // Start from no whitelisted beneficiary: anything goes.
    const anyone = randomAddress();
    expect((await withdraw(anyone)).status).toBe(200);

    const allowed = await create({ name: 'Allowed', address: randomAddress(), isWhitelisted: true });
    const refused = await withdraw(anyone);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ statusCode: 422, error: 'NOT_WHITELISTED' });
    const ok = await withdraw(allowed.address);
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ type: 'WITHDRAW', status: 'PENDING', recipientAddress: allowed.address });

    // An inactive whitelisted beneficiary does not count (it is not the only one below).
    const second = await create({ name: 'Second', address: randomAddress(), isWhitelisted: true });
    expect((await h.api('PATCH', path(`/${second.id}`), { body: { isActive: false } })).status).toBe(200);
    expect((await withdraw(second.address)).status).toBe(422);

    // Un-whitelisting the first leaves none: withdrawals are free again.
    expect((await h.api('PATCH', path(`/${allowed.id}`), { body: { isWhitelisted: false } })).status).toBe(200);
    expect((await withdraw(anyone)).status).toBe(200);

    // Whitelisting again, then deleting, lifts it too.
    expect((await h.api('PATCH', path(`/${allowed.id}`), { body: { isWhitelisted: true } })).status).toBe(200);
    expect((await withdraw(anyone)).status).toBe(422);
    expect((await h.api('DELETE', path(`/${allowed.id}`))).status).toBe(200);
    expect((await withdraw(anyone)).status).toBe(200);
  });
});
