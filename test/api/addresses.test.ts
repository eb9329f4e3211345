/**
 * Child addresses through HTTP: issuance (shape, validation, HD derivation checked against
 * viem, gap-free indexes under concurrency), listing with analytics and pagination,
 * updates, private-key export (audited, and the key really signs on anvil), tenancy, and
 * a final scan proving no secret reached the logs.
 */
import { randomUUID } from 'node:crypto';
import { mnemonicToSeedSync } from '@scure/bip39';
import { createPublicClient, createWalletClient, defineChain, getAddress, http, isAddress, parseEther, toHex, type Hex } from 'viem';
import { HDKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { createDatabase } from '../../src/db/pool.js';
import { createLogger } from '../../src/lib/logger.js';
import { AddressService } from '../../src/modules/addresses/service.js';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';
import { blockedBy } from '../support/fixtures.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  for (const w of Object.values(h.wallets)) secrets.apiKeys.add(w.apiKey);
  secrets.apiKeys.add(h.businessKey);
});
afterAll(async () => {
  await h?.stop();
});

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/** Every secret this file handles; the last describe proves none of them was logged. */
const secrets = { apiKeys: new Set<string>(), mnemonics: new Set<string>(), privateKeys: new Set<string>() };

const eth = () => h.wallets['devnet-eth']!;
const bsc = () => h.wallets['devnet-bsc']!;
const ADDRESS_FIELDS = [
  'id',
  'address',
  'name',
  'metadata',
  'type',
  'network',
  'derivationPath',
  'isActive',
  'blockchain',
  'configurations',
  'createdAt',
  'updatedAt',
];
const NO_AML = { message: expect.any(String), provider: expect.any(String), status: expect.any(String) };

const addressesPath = (w: { id: string }) => `/v1/wallets/${w.id}/addresses`;

async function createAddress(w: { id: string; apiKey: string }, body?: unknown) {
  const res = await h.api('POST', addressesPath(w), { key: w.apiKey, ...(body === undefined ? {} : { body }) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** A fresh wallet (empty address list) created through the API with the business key. */
async function newWallet(slug: string, name: string): Promise<TestWallet> {
  const res = await h.api('POST', '/v1/wallets', { key: h.businessKey, body: { blockchain: slug, network: 'testnet', name } });
  expect(res.status).toBe(200);
  secrets.apiKeys.add(res.body.data.apiKey);
  return { id: res.body.data.id, apiKey: res.body.data.apiKey, address: res.body.data.address, slug };
}

async function mnemonicOf(walletId: string): Promise<string> {
  const mnemonic = await h.services.wallets.openMnemonic(walletId);
  secrets.mnemonics.add(mnemonic);
  return mnemonic;
}

/**
 * viem's derivation of m/44'/60'/0'/0/i: the private key via viem's HDKey, the address via
 * privateKeyToAccount. Independent of the service, which derives from the stored xpub with
 * libsecp256k1. The account node is cached (PBKDF2 and the hardened levels are slow).
 */
const accountNodes = new Map<string, HDKey>();
function viemAddress(mnemonic: string, index: number): string {
  let node = accountNodes.get(mnemonic);
  if (!node) {
    node = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive("m/44'/60'/0'/0");
    accountNodes.set(mnemonic, node);
  }
  return privateKeyToAccount(toHex(node.deriveChild(index).privateKey!)).address;
}

function addressRows(walletId: string) {
  return h.database.db.selectFrom('addresses').selectAll().where('wallet_id', '=', walletId).orderBy('derivation_index').execute();
}

async function addressCount(walletId?: string): Promise<number> {
  let q = h.database.db.selectFrom('addresses').select((eb) => eb.fn.countAll<string>().as('n'));
  if (walletId) q = q.where('wallet_id', '=', walletId);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

async function nextIndex(walletId: string): Promise<number> {
  return (await h.database.db.selectFrom('wallets').select('next_index').where('id', '=', walletId).executeTakeFirstOrThrow()).next_index;
}

function exportAudits(addressId?: string) {
  let q = h.database.db.selectFrom('audit_log').selectAll().where('action', '=', 'address.private_key_exported');
  if (addressId) q = q.where('target_id', '=', addressId);
  return q.orderBy('created_at').execute();
}

/** The API has no way to add an EXTERNAL address yet; analytics count them, so seed one. */
async function insertExternalAddress(walletId: string, address: string): Promise<string> {
  const wallet = await h.database.db.selectFrom('wallets').select('chain_id').where('id', '=', walletId).executeTakeFirstOrThrow();
  const id = randomUUID();
  await h.database.db
    .insertInto('addresses')
    .values({
      id,
      wallet_id: walletId,
      chain_id: wallet.chain_id,
      derivation_index: null,
      address,
      name: 'external',
      metadata: null,
      type: 'EXTERNAL',
      derivation_path: null,
      configurations: JSON.stringify({}),
    })
    .execute();
  return id;
}

function expectValidationError(res: { status: number; body: any }, field: string, label: string) {
  expect(res.status, `${label}: ${JSON.stringify(res.body)}`).toBe(400);
  expect(res.body).toMatchObject({
    statusCode: 400,
    error: 'VALIDATION_ERROR',
    message: expect.any(String),
    requestId: expect.any(String),
  });
  expect(res.body.details, label).toEqual(expect.arrayContaining([{ field: expect.stringContaining(field), message: expect.any(String) }]));
}

/** `n` POSTs at once, as separate HTTP requests. */
function createConcurrently(w: { id: string; apiKey: string }, n: number, namePrefix: string) {
  return Promise.all(
    Array.from({ length: n }, (_, i) => h.api('POST', addressesPath(w), { key: w.apiKey, body: { name: `${namePrefix}-${i}` } })),
  );
}

function devnetClients(privateKey: Hex) {
  const config = h.devnet.chains[0]!.config;
  const chain = defineChain({
    id: config.chainId,
    name: config.blockchain.name,
    nativeCurrency: { name: config.blockchain.symbol, symbol: config.blockchain.symbol, decimals: 18 },
    rpcUrls: { default: { http: [config.rpcUrl] } },
  });
  const transport = http(config.rpcUrl);
  return {
    public: createPublicClient({ chain, transport, pollingInterval: 50 }),
    wallet: createWalletClient({ chain, transport, account: privateKeyToAccount(privateKey), pollingInterval: 50 }),
  };
}

// ---------------------------------------------------------------------------------------
// POST /v1/wallets/{walletId}/addresses
// ---------------------------------------------------------------------------------------

describe('POST /v1/wallets/{walletId}/addresses', () => {
  it('creates an address with every spec field', async () => {
    const before = Date.now();
    const res = await h.api('POST', addressesPath(eth()), {
      body: {
        name: 'Customer 42',
        metadata: { customerId: 'c-42', tier: 3, tags: ['vip'], nested: { a: null } },
        disableAutoSweep: true,
        enableGaslessWithdraw: true,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ statusCode: 200, message: expect.any(String) });
    const a = res.body.data;
    expect(Object.keys(a).sort()).toEqual([...ADDRESS_FIELDS].sort());
    const chains = await h.api('GET', '/v1/blockchains');
    const blockchain = chains.body.data.find((b: { slug: string }) => b.slug === 'devnet-eth');
    const [row] = (await addressRows(eth().id)).filter((r) => r.id === a.id);
    expect(row).toBeDefined();
    expect(a).toEqual({
      id: row!.id,
      address: row!.address,
      name: 'Customer 42',
      metadata: { customerId: 'c-42', tier: 3, tags: ['vip'], nested: { a: null } },
      type: 'INTERNAL',
      network: 'testnet',
      derivationPath: `m/44'/60'/0'/0/${row!.derivation_index}`,
      isActive: true,
      blockchain,
      configurations: { aml: NO_AML, disableAutoSweep: true, enableGaslessWithdraw: true, showPrivateKey: true, isActive: true },
      createdAt: row!.created_at.toISOString(),
      updatedAt: row!.updated_at.toISOString(),
    });
    expect(a.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(isAddress(a.address, { strict: true })).toBe(true);
    expect(a.address).toBe(getAddress(a.address));
    expect(a.address).not.toBe(eth().address);
    expect(new Date(a.createdAt).toISOString()).toBe(a.createdAt);
    expect(Date.parse(a.createdAt)).toBeGreaterThanOrEqual(before - 5_000);
    expect(row!.derivation_index).toBeGreaterThanOrEqual(1);
    // It is really stored: GET returns the same thing.
    const got = await h.api('GET', `${addressesPath(eth())}/${a.id}`);
    expect(got.body.data).toEqual(a);
  });

  it('defaults: empty JSON body, no body at all and an empty string body all work', async () => {
    const expected = {
      name: null,
      metadata: null,
      type: 'INTERNAL',
      isActive: true,
      configurations: { aml: NO_AML, disableAutoSweep: false, enableGaslessWithdraw: false, showPrivateKey: true, isActive: true },
    };
    const empty = await h.api('POST', addressesPath(eth()), { body: {} });
    const none = await h.api('POST', addressesPath(eth()));
    const blank = await h.api('POST', addressesPath(eth()), { rawBody: '', headers: { 'content-type': 'application/json' } });
    const ids = new Set<string>();
    for (const [label, res] of [
      ['{}', empty],
      ['no body', none],
      ['empty string', blank],
    ] as const) {
      expect(res.status, `${label}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.data, label).toMatchObject(expected);
      ids.add(res.body.data.address);
    }
    expect(ids.size).toBe(3);
  });

  it('refuses bad input with 400 VALIDATION_ERROR and writes nothing', async () => {
    const w = eth();
    const rowsBefore = await addressCount();
    const indexBefore = await nextIndex(w.id);
    const cases: [unknown, string][] = [
      [{ nmae: 'typo' }, 'nmae'],
      [{ name: 5 }, 'name'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ metadata: 'x' }, 'metadata'],
      [{ metadata: ['a'] }, 'metadata'],
      [{ metadata: null }, 'metadata'],
      [{ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, 'metadata'],
      [{ disableAutoSweep: 'true' }, 'disableAutoSweep'],
      [{ enableGaslessWithdraw: 1 }, 'enableGaslessWithdraw'],
      [{ name: 'ok', type: 'EXTERNAL' }, 'type'],
      [{ name: 'ok', address: '0x0000000000000000000000000000000000000001' }, 'address'],
      [[{ name: 'array body' }], ''],
    ];
    for (const [body, field] of cases)
      expectValidationError(await h.api('POST', addressesPath(w), { body }), field, JSON.stringify(body).slice(0, 80));
    const malformed = await h.api('POST', addressesPath(w), { rawBody: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBe('MALFORMED_JSON');
    const badWallet = await h.api('POST', '/v1/wallets/not-a-uuid/addresses', { body: {} });
    expectValidationError(badWallet, 'walletId', 'non-UUID wallet id');

    expect(await addressCount()).toBe(rowsBefore);
    expect(await nextIndex(w.id)).toBe(indexBefore);
    // A good request right after still gets the very next index: the refusals reserved none.
    const next = await createAddress(w);
    expect(next.derivationPath).toBe(`m/44'/60'/0'/0/${indexBefore}`);
  });

  it('refuses a missing or unknown key with 401', async () => {
    const before = await addressCount();
    expect((await h.api('POST', addressesPath(eth()), { key: null, body: {} })).status).toBe(401);
    expect((await h.api('POST', addressesPath(eth()), { key: `sk_test_${'x'.repeat(43)}`, body: {} })).status).toBe(401);
    expect((await h.api('GET', addressesPath(eth()), { key: null })).status).toBe(401);
    expect(await addressCount()).toBe(before);
  });
});

// ---------------------------------------------------------------------------------------
// HD derivation
// ---------------------------------------------------------------------------------------

describe('beside a writer of rows naming the wallet', () => {
  it('issuing an address and changing the wallet do not wait for a foreign-key share lock on the wallet (an indexer range holds one)', async () => {
    const w = h.wallets['devnet-eth']!;
    const range = new pg.Client({ connectionString: h.databaseUrl });
    await range.connect();
    try {
      // What inserting a deposit naming the wallet holds until its transaction ends.
      await range.query('BEGIN');
      await range.query('SELECT 1 FROM wallets WHERE id = $1 FOR KEY SHARE', [w.id]);
      const waiting = () => blockedBy(range);
      for (const request of [
        () => h.api('POST', `/v1/wallets/${w.id}/addresses`, { key: w.apiKey, body: {} }),
        () => h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { description: 'under a share lock' } }),
      ]) {
        let answer: Awaited<ReturnType<typeof request>> | undefined;
        const pending = request().then((r) => (answer = r));
        // Either it answers, or it is seen waiting for the held lock (the defect).
        for (let i = 0; i < 500 && !answer; i++) {
          expect(await waiting(), 'the request waited for the share lock').toBe(0);
          await new Promise((r) => setTimeout(r, 20));
        }
        expect((await pending).status).toBe(200);
      }
    } finally {
      await range.query('ROLLBACK');
      await range.end();
    }
  });
});

describe('HD derivation', () => {
  it("each address is viem's derivation of the wallet's mnemonic at its path; index 0 is the master address", async () => {
    for (const w of [eth(), bsc()]) {
      const created = [];
      for (let i = 0; i < 3; i++) created.push(await createAddress(w, { name: `derivation-${i}` }));
      const mnemonic = await mnemonicOf(w.id);
      expect(mnemonicToAccount(mnemonic).address).toBe(w.address);
      const wallet = await h.api('GET', `/v1/wallets/${w.id}`, { key: w.apiKey });
      expect(wallet.body.data.address).toBe(mnemonicToAccount(mnemonic, { addressIndex: 0 }).address);
      for (const a of created) {
        const index = Number(a.derivationPath.split('/').pop());
        expect(a.derivationPath).toBe(`m/44'/60'/0'/0/${index}`);
        expect(a.address).toBe(mnemonicToAccount(mnemonic, { addressIndex: index }).address);
        // The fast helper the concurrency tests use agrees with mnemonicToAccount.
        expect(viemAddress(mnemonic, index)).toBe(a.address);
      }
      // Consecutive, and the rows agree with the responses.
      const indexes = created.map((a) => Number(a.derivationPath.split('/').pop()));
      expect(indexes).toEqual([indexes[0], indexes[0]! + 1, indexes[0]! + 2]);
      const rows = await addressRows(w.id);
      for (const a of created)
        expect(rows.find((r) => r.id === a.id)).toMatchObject({ address: a.address, derivation_path: a.derivationPath });
    }
    // Two wallets have two different mnemonics.
    expect(new Set([await mnemonicOf(eth().id), await mnemonicOf(bsc().id)]).size).toBe(2);
  });
});

// ---------------------------------------------------------------------------------------
// Concurrency
// ---------------------------------------------------------------------------------------

describe('concurrent issuance', () => {
  it('200 concurrent POSTs give 200 distinct addresses on 200 consecutive indexes, each derived correctly', async () => {
    const w = eth();
    const first = await nextIndex(w.id);
    const responses = await createConcurrently(w, 200, 'burst');
    expect(responses.map((r) => r.status)).toEqual(Array(200).fill(200));
    const created = responses.map((r) => r.body.data);
    expect(new Set(created.map((a) => a.id)).size).toBe(200);
    expect(new Set(created.map((a) => a.address.toLowerCase())).size).toBe(200);

    const ids = new Set(created.map((a) => a.id));
    const rows = (await addressRows(w.id)).filter((r) => ids.has(r.id));
    expect(rows).toHaveLength(200);
    expect(rows.map((r) => r.derivation_index)).toEqual(Array.from({ length: 200 }, (_, i) => first + i));
    expect(await nextIndex(w.id)).toBe(first + 200);

    const mnemonic = await mnemonicOf(w.id);
    for (const r of rows) {
      expect(r.address).toBe(viemAddress(mnemonic, r.derivation_index!));
      expect(r.derivation_path).toBe(`m/44'/60'/0'/0/${r.derivation_index}`);
    }
    // Each response describes its own row (name went with the right index/address).
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const a of created) expect(byId.get(a.id)).toMatchObject({ address: a.address, name: a.name, derivation_path: a.derivationPath });
    // The wallet as a whole has no gap and no duplicate: indexes are exactly 1..n.
    const all = await addressRows(w.id);
    expect(all.map((r) => r.derivation_index)).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
  });

  it('100 concurrent POSTs split across both wallets stay gap-free per wallet', async () => {
    const wallets = [eth(), bsc()];
    const firsts = await Promise.all(wallets.map((w) => nextIndex(w.id)));
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => {
        const w = wallets[i % 2]!;
        return h.api('POST', addressesPath(w), { key: w.apiKey, body: { name: `split-${i}` } }).then((res) => ({ w, res }));
      }),
    );
    expect(responses.map((r) => r.res.status)).toEqual(Array(100).fill(200));
    for (const [k, w] of wallets.entries()) {
      const mine = new Set(responses.filter((r) => r.w === w).map((r) => r.res.body.data.id));
      expect(mine.size).toBe(50);
      const rows = (await addressRows(w.id)).filter((r) => mine.has(r.id));
      expect(rows.map((r) => r.derivation_index)).toEqual(Array.from({ length: 50 }, (_, i) => firsts[k]! + i));
      const mnemonic = await mnemonicOf(w.id);
      for (const r of rows) expect(r.address).toBe(viemAddress(mnemonic, r.derivation_index!));
      const all = await addressRows(w.id);
      expect(all.map((r) => r.derivation_index)).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
    }
  });

  it('a second process (its own allocator and pool) issuing at the same time shares one gap-free sequence', async () => {
    const w = bsc();
    const other = createDatabase(h.databaseUrl, createLogger('silent'));
    try {
      const second = new AddressService(other.db, h.services.wallets, h.services.catalogue, h.services.audit, {
        testnet: true,
        mainnet: false,
      });
      const auth = { keyId: 'second-process', businessId: h.businessId, walletId: w.id };
      const [viaHttp, viaSecond] = await Promise.all([
        createConcurrently(w, 60, 'http'),
        Promise.all(Array.from({ length: 60 }, (_, i) => second.create(auth, w.id, { name: `second-${i}` }))),
      ]);
      expect(viaHttp.map((r) => r.status)).toEqual(Array(60).fill(200));
      expect(viaSecond).toHaveLength(60);
      const all = await addressRows(w.id);
      expect(all.map((r) => r.derivation_index)).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
      expect(new Set(all.map((r) => r.address)).size).toBe(all.length);
      expect(await nextIndex(w.id)).toBe(all.length + 1);
      const mnemonic = await mnemonicOf(w.id);
      for (const a of viaSecond) expect(a.address).toBe(viemAddress(mnemonic, Number(a.derivationPath!.split('/').pop())));
    } finally {
      await other.close();
    }
  });
});

// ---------------------------------------------------------------------------------------
// Private key export
// ---------------------------------------------------------------------------------------

describe('GET /v1/wallets/{walletId}/addresses/{addressId} and private key export', () => {
  let address: { id: string; address: string; derivationPath: string };
  beforeAll(async () => {
    address = await createAddress(eth(), { name: 'export me' });
  });

  it("never hands out a key that is not the address's own (a row whose index names another key): refused, no key in the answer", async () => {
    const other = await createAddress(eth(), { name: 'index moved' });
    await sql`UPDATE addresses SET derivation_index = derivation_index + 1000 WHERE id = ${other.id}`.execute(h.database.db);
    const res = await h.api('GET', `${addressesPath(eth())}/${other.id}?showPrivateKey=true`);
    expect(res.status).toBe(500);
    expect(JSON.stringify(res.body)).not.toMatch(/[0-9a-f]{64}/);
  });

  it('without the flag (or with =false) there is no privateKey field and no audit row', async () => {
    for (const query of ['', '?showPrivateKey=false']) {
      const res = await h.api('GET', `${addressesPath(eth())}/${address.id}${query}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: address.id, address: address.address });
      expect(Object.keys(res.body.data).sort()).toEqual([...ADDRESS_FIELDS].sort());
      expect('privateKey' in res.body.data).toBe(false);
    }
    expect(await exportAudits(address.id)).toEqual([]);
  });

  it('showPrivateKey=true returns the key of the address, and every export is audited', async () => {
    const res = await h.api('GET', `${addressesPath(eth())}/${address.id}?showPrivateKey=true`);
    expect(res.status).toBe(200);
    const { privateKey, ...rest } = res.body.data;
    expect(privateKey).toMatch(/^0x[0-9a-f]{64}$/);
    secrets.privateKeys.add(privateKey);
    expect(privateKeyToAccount(privateKey).address).toBe(address.address);
    const index = Number(address.derivationPath.split('/').pop());
    const mnemonic = await mnemonicOf(eth().id);
    expect(privateKeyToAccount(privateKey).address).toBe(mnemonicToAccount(mnemonic, { addressIndex: index }).address);
    expect(rest).toMatchObject({ id: address.id, address: address.address, configurations: { showPrivateKey: true } });

    const audits = await exportAudits(address.id);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({
      action: 'address.private_key_exported',
      target_type: 'address',
      target_id: address.id,
      wallet_id: eth().id,
      business_id: h.businessId,
      actor: expect.stringMatching(/^api-key:/),
      request_id: res.headers.get('x-request-id'),
    });
    // The audit trail records where the key is, never the key itself.
    expect(JSON.stringify(audits[0]!.details)).not.toContain(privateKey.slice(2));

    const again = await h.api('GET', `${addressesPath(eth())}/${address.id}?showPrivateKey=true`, { key: h.businessKey });
    expect(again.status).toBe(200);
    expect(again.body.data.privateKey).toBe(privateKey);
    expect(await exportAudits(address.id)).toHaveLength(2);
  });

  it('the exported key really signs for the address on anvil', async () => {
    const res = await h.api('GET', `${addressesPath(eth())}/${address.id}?showPrivateKey=true`);
    const privateKey = res.body.data.privateKey as Hex;
    secrets.privateKeys.add(privateKey);
    const faucet = h.devnet.chains[0]!.faucet;
    const fromFaucet = devnetClients(faucet.privateKey as Hex);
    const funding = await fromFaucet.wallet.sendTransaction({ to: address.address as Hex, value: parseEther('1') });
    expect((await fromFaucet.public.waitForTransactionReceipt({ hash: funding })).status).toBe('success');

    const fromChild = devnetClients(privateKey);
    expect(fromChild.wallet.account.address).toBe(address.address);
    const hash = await fromChild.wallet.sendTransaction({ to: faucet.address as Hex, value: parseEther('0.25') });
    const receipt = await fromChild.public.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    expect(getAddress(receipt.from)).toBe(address.address);
    expect(getAddress(receipt.to!)).toBe(getAddress(faucet.address));
    expect(await fromChild.public.getTransactionCount({ address: address.address as Hex })).toBe(1);
    const balance = await fromChild.public.getBalance({ address: address.address as Hex });
    expect(balance).toBe(parseEther('0.75') - receipt.gasUsed * receipt.effectiveGasPrice);
  });

  it('showPrivateKey=maybe and unknown query parameters are a 400 and export nothing', async () => {
    const before = (await exportAudits()).length;
    expectValidationError(await h.api('GET', `${addressesPath(eth())}/${address.id}?showPrivateKey=maybe`), 'showPrivateKey', 'maybe');
    expect((await h.api('GET', `${addressesPath(eth())}/${address.id}?showPrivateKey=true&extra=1`)).status).toBe(400);
    expect((await exportAudits()).length).toBe(before);
  });

  it('an EXTERNAL address has no key to export (422) and is not audited', async () => {
    const external = await insertExternalAddress(bsc().id, '0x000000000000000000000000000000000000dEaD');
    const res = await h.api('GET', `${addressesPath(bsc())}/${external}?showPrivateKey=true`, { key: bsc().apiKey });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('NO_PRIVATE_KEY');
    expect(res.body.data).toBeUndefined();
    expect(await exportAudits(external)).toEqual([]);
    const plain = await h.api('GET', `${addressesPath(bsc())}/${external}`, { key: bsc().apiKey });
    expect(plain.body.data).toMatchObject({ type: 'EXTERNAL', derivationPath: null, configurations: { showPrivateKey: false } });
  });
});

// ---------------------------------------------------------------------------------------
// GET /v1/wallets/{walletId}/addresses
// ---------------------------------------------------------------------------------------

describe('GET /v1/wallets/{walletId}/addresses', () => {
  let w: TestWallet;
  let created: { id: string; name: string }[] = [];
  beforeAll(async () => {
    w = await newWallet('devnet-bsc', 'Listing');
    created = [];
    for (let i = 0; i < 7; i++) created.push(await createAddress(w, { name: `a${i}` }));
  });
  const list = (query = '') => h.api('GET', `${addressesPath(w)}${query}`, { key: w.apiKey });

  it('lists newest first with analytics beside data and meta', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['analytics', 'data', 'message', 'meta', 'statusCode']);
    expect(res.body.statusCode).toBe(200);
    expect(res.body.data.map((a: { name: string }) => a.name)).toEqual(['a6', 'a5', 'a4', 'a3', 'a2', 'a1', 'a0']);
    expect(res.body.data[0]).toEqual((await h.api('GET', `${addressesPath(w)}/${created[6]!.id}`, { key: w.apiKey })).body.data);
    expect(res.body.meta).toEqual({ currentPage: 1, itemCount: 7, itemsPerPage: 100, totalItems: 7, totalPages: 1 });
    expect(res.body.analytics).toEqual({
      activeAddressesCount: 7,
      addressLimit: 100_000,
      addressesCount: 7,
      externalAddressesCount: 0,
      inactiveAddressesCount: 0,
      internalAddressesCount: 7,
    });
  });

  it('paginates exactly', async () => {
    const cases: [string, object, string[]][] = [
      ['?page=1&limit=3', { currentPage: 1, itemCount: 3, itemsPerPage: 3, totalItems: 7, totalPages: 3 }, ['a6', 'a5', 'a4']],
      ['?page=2&limit=3', { currentPage: 2, itemCount: 3, itemsPerPage: 3, totalItems: 7, totalPages: 3 }, ['a3', 'a2', 'a1']],
      ['?page=3&limit=3', { currentPage: 3, itemCount: 1, itemsPerPage: 3, totalItems: 7, totalPages: 3 }, ['a0']],
      ['?page=4&limit=3', { currentPage: 4, itemCount: 0, itemsPerPage: 3, totalItems: 7, totalPages: 3 }, []],
      [
        '?limit=7',
        { currentPage: 1, itemCount: 7, itemsPerPage: 7, totalItems: 7, totalPages: 1 },
        ['a6', 'a5', 'a4', 'a3', 'a2', 'a1', 'a0'],
      ],
      ['?page=7&limit=1', { currentPage: 7, itemCount: 1, itemsPerPage: 1, totalItems: 7, totalPages: 7 }, ['a0']],
      ['?page=2&limit=100', { currentPage: 2, itemCount: 0, itemsPerPage: 100, totalItems: 7, totalPages: 1 }, []],
    ];
    for (const [query, meta, names] of cases) {
      const res = await list(query);
      expect(res.status, query).toBe(200);
      expect(res.body.meta, query).toEqual(meta);
      expect(
        res.body.data.map((a: { name: string }) => a.name),
        query,
      ).toEqual(names);
      expect(res.body.analytics.addressesCount, query).toBe(7);
    }
  });

  it('pages through the large concurrently-filled wallet without duplicates or omissions', async () => {
    const page = (n: number) => h.api('GET', `${addressesPath(eth())}?page=${n}&limit=100`);
    const first = await page(1);
    const { totalItems, totalPages } = first.body.meta;
    expect(totalItems).toBe(await addressCount(eth().id));
    expect(totalPages).toBe(Math.ceil(totalItems / 100));
    expect(totalPages).toBeGreaterThanOrEqual(3);
    const seen: string[] = first.body.data.map((a: { id: string }) => a.id);
    for (let n = 2; n <= totalPages; n++) {
      const res = await page(n);
      expect(res.body.meta.itemCount).toBe(n < totalPages ? 100 : totalItems - 100 * (totalPages - 1));
      seen.push(...res.body.data.map((a: { id: string }) => a.id));
    }
    expect(seen).toHaveLength(totalItems);
    expect(new Set(seen).size).toBe(totalItems);
  });

  it('refuses out-of-range or malformed paging and filters with 400', async () => {
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=-1', 'limit'],
      ['?limit=2.5', 'limit'],
      ['?page=0', 'page'],
      ['?page=abc', 'page'],
      ['?type=internal', 'type'],
      ['?type=BOGUS', 'type'],
      ['?isActive=maybe', 'isActive'],
      ['?bogus=1', 'bogus'],
    ] as const) {
      expectValidationError(await list(query), field, query);
    }
  });

  it('filters by isActive and type; analytics always cover the whole wallet', async () => {
    for (const a of created.slice(0, 2)) {
      const res = await h.api('PATCH', `${addressesPath(w)}/${a.id}`, { key: w.apiKey, body: { isActive: false } });
      expect(res.status).toBe(200);
    }
    await insertExternalAddress(w.id, '0x00000000000000000000000000000000000000E1');
    const analytics = {
      activeAddressesCount: 6,
      addressLimit: 100_000,
      addressesCount: 8,
      externalAddressesCount: 1,
      inactiveAddressesCount: 2,
      internalAddressesCount: 7,
    };
    const cases: [string, string[]][] = [
      ['?isActive=false', ['a1', 'a0']],
      ['?isActive=true', ['external', 'a6', 'a5', 'a4', 'a3', 'a2']],
      ['?type=INTERNAL', ['a6', 'a5', 'a4', 'a3', 'a2', 'a1', 'a0']],
      ['?type=EXTERNAL', ['external']],
      ['?type=INTERNAL&isActive=true&limit=2&page=2', ['a4', 'a3']],
      ['?type=EXTERNAL&isActive=false', []],
    ];
    for (const [query, names] of cases) {
      const res = await list(query);
      expect(res.status, query).toBe(200);
      expect(
        res.body.data.map((a: { name: string }) => a.name),
        query,
      ).toEqual(names);
      expect(res.body.analytics, query).toEqual(analytics);
    }
    expect((await list('?isActive=false')).body.meta).toEqual({
      currentPage: 1,
      itemCount: 2,
      itemsPerPage: 100,
      totalItems: 2,
      totalPages: 1,
    });
    expect((await list('?type=INTERNAL&isActive=true&limit=2&page=2')).body.meta).toEqual({
      currentPage: 2,
      itemCount: 2,
      itemsPerPage: 2,
      totalItems: 5,
      totalPages: 3,
    });
    expect((await list('?type=EXTERNAL&isActive=false')).body.meta).toEqual({
      currentPage: 1,
      itemCount: 0,
      itemsPerPage: 100,
      totalItems: 0,
      totalPages: 0,
    });
  });
});

// ---------------------------------------------------------------------------------------
// PATCH /v1/wallets/{walletId}/addresses/{addressId}
// ---------------------------------------------------------------------------------------

describe('PATCH /v1/wallets/{walletId}/addresses/{addressId}', () => {
  let w: TestWallet;
  let a: any;
  beforeAll(async () => {
    w = await newWallet('devnet-eth', 'Patching');
    a = await createAddress(w, { name: 'original', metadata: { k: 'v' }, enableGaslessWithdraw: true });
    await createAddress(w, { name: 'bystander' });
  });
  const patch = (body: unknown) => h.api('PATCH', `${addressesPath(w)}/${a.id}`, { key: w.apiKey, body });
  const get = async () => (await h.api('GET', `${addressesPath(w)}/${a.id}`, { key: w.apiKey })).body.data;
  const analytics = async () => (await h.api('GET', addressesPath(w), { key: w.apiKey })).body.analytics;

  it('applies partial updates and they persist', async () => {
    const renamed = await patch({ name: 'renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: 'renamed', metadata: { k: 'v' }, isActive: true, address: a.address });
    expect(Date.parse(renamed.body.data.updatedAt)).toBeGreaterThan(Date.parse(a.updatedAt));
    expect(renamed.body.data.createdAt).toBe(a.createdAt);

    await patch({ metadata: { orderId: 'o-1', amounts: [1, 2] } });
    await patch({ configurations: { disableAutoSweep: true } });
    const now = await get();
    expect(now).toMatchObject({
      name: 'renamed',
      metadata: { orderId: 'o-1', amounts: [1, 2] },
      configurations: { aml: NO_AML, disableAutoSweep: true, enableGaslessWithdraw: true, showPrivateKey: true, isActive: true },
    });
    await patch({ configurations: { enableGaslessWithdraw: false } });
    expect((await get()).configurations).toMatchObject({ disableAutoSweep: true, enableGaslessWithdraw: false });

    await patch({ name: null, metadata: null });
    const cleared = await get();
    expect(cleared).toMatchObject({ name: null, metadata: null, address: a.address, derivationPath: a.derivationPath, type: 'INTERNAL' });
    const row = await h.database.db.selectFrom('addresses').selectAll().where('id', '=', a.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ name: null, metadata: null, address: a.address });
    expect(row.configurations).toMatchObject({ disableAutoSweep: true, enableGaslessWithdraw: false });
  });

  it('deactivating and reactivating moves the analytics counts', async () => {
    expect(await analytics()).toMatchObject({ activeAddressesCount: 2, inactiveAddressesCount: 0, addressesCount: 2 });
    const off = await patch({ isActive: false });
    expect(off.body.data).toMatchObject({ isActive: false, configurations: { isActive: false } });
    expect(await analytics()).toMatchObject({
      activeAddressesCount: 1,
      inactiveAddressesCount: 1,
      addressesCount: 2,
      internalAddressesCount: 2,
    });
    expect((await get()).isActive).toBe(false);
    await patch({ isActive: true });
    expect(await analytics()).toMatchObject({ activeAddressesCount: 2, inactiveAddressesCount: 0, addressesCount: 2 });
  });

  it('refuses unknown fields, wrong types and empty bodies with 400 and writes nothing', async () => {
    const before = await h.database.db.selectFrom('addresses').selectAll().where('wallet_id', '=', w.id).orderBy('id').execute();
    const cases: [unknown, string][] = [
      [{}, 'body'],
      [{ nmae: 'typo' }, 'nmae'],
      [{ name: 5 }, 'name'],
      [{ metadata: 'x' }, 'metadata'],
      [{ isActive: 'false' }, 'isActive'],
      [{ configurations: { disableAutoSweep: 'yes' } }, 'configurations.disableAutoSweep'],
      [{ configurations: { showPrivateKey: true } }, 'configurations.showPrivateKey'],
      [{ configurations: { aml: { status: 'CLEAN' } } }, 'configurations.aml'],
      [{ name: 'x', address: '0x000000000000000000000000000000000000dEaD' }, 'address'],
      [{ name: 'x', type: 'EXTERNAL' }, 'type'],
      [{ name: 'x', derivationPath: "m/44'/60'/0'/0/0" }, 'derivationPath'],
    ];
    for (const [body, field] of cases) expectValidationError(await patch(body), field, JSON.stringify(body));
    const after = await h.database.db.selectFrom('addresses').selectAll().where('wallet_id', '=', w.id).orderBy('id').execute();
    expect(after).toEqual(before);
  });
});

// ---------------------------------------------------------------------------------------
// Tenancy
// ---------------------------------------------------------------------------------------

describe('tenancy', () => {
  let ofB: { id: string; address: string; name: string };
  beforeAll(async () => {
    ofB = await createAddress(bsc(), { name: 'belongs to B' });
  });

  it("wallet A's key cannot reach wallet B's addresses (404) and writes nothing", async () => {
    const A = eth();
    const B = bsc();
    const rowsBefore = await addressCount(B.id);
    const auditsBefore = (await exportAudits()).length;
    const attempts = [
      h.api('GET', addressesPath(B), { key: A.apiKey }),
      h.api('POST', addressesPath(B), { key: A.apiKey, body: { name: 'intruder' } }),
      h.api('GET', `${addressesPath(B)}/${ofB.id}`, { key: A.apiKey }),
      h.api('GET', `${addressesPath(B)}/${ofB.id}?showPrivateKey=true`, { key: A.apiKey }),
      h.api('PATCH', `${addressesPath(B)}/${ofB.id}`, { key: A.apiKey, body: { name: 'hijacked' } }),
      // B's address under A's own path, with A's key.
      h.api('GET', `${addressesPath(A)}/${ofB.id}`, { key: A.apiKey }),
      h.api('GET', `${addressesPath(A)}/${ofB.id}?showPrivateKey=true`, { key: A.apiKey }),
      h.api('PATCH', `${addressesPath(A)}/${ofB.id}`, { key: A.apiKey, body: { name: 'hijacked' } }),
      // Even the business key cannot reach B's address through A's path.
      h.api('GET', `${addressesPath(A)}/${ofB.id}?showPrivateKey=true`, { key: h.businessKey }),
    ];
    for (const [i, res] of (await Promise.all(attempts)).entries()) {
      expect(res.status, `attempt ${i}: ${JSON.stringify(res.body)}`).toBe(404);
      expect(res.body, `attempt ${i}`).toMatchObject({ statusCode: 404, error: 'NOT_FOUND', requestId: expect.any(String) });
      expect(JSON.stringify(res.body)).not.toContain(ofB.address);
    }
    expect(await addressCount(B.id)).toBe(rowsBefore);
    expect((await exportAudits()).length).toBe(auditsBefore);
    const still = await h.api('GET', `${addressesPath(B)}/${ofB.id}`, { key: B.apiKey });
    expect(still.status).toBe(200);
    expect(still.body.data.name).toBe('belongs to B');
  });

  it('unknown and foreign look alike; the business key reaches both wallets; another business reaches neither', async () => {
    const A = eth();
    const random = await h.api('GET', `${addressesPath(A)}/${randomUUID()}`);
    expect(random.status).toBe(404);
    expect(random.body.error).toBe('NOT_FOUND');
    expect((await h.api('PATCH', `${addressesPath(A)}/${randomUUID()}`, { body: { name: 'x' } })).status).toBe(404);
    expectValidationError(await h.api('GET', `${addressesPath(A)}/not-a-uuid`), 'addressId', 'non-UUID address id');
    expectValidationError(await h.api('PATCH', `${addressesPath(A)}/not-a-uuid`, { body: { name: 'x' } }), 'addressId', 'non-UUID PATCH');

    expect((await h.api('GET', `${addressesPath(bsc())}/${ofB.id}`, { key: h.businessKey })).status).toBe(200);
    expect((await h.api('GET', addressesPath(A), { key: h.businessKey })).status).toBe(200);

    const other = await h.services.businesses.create('Other Business');
    secrets.apiKeys.add(other.apiKey);
    const foreign = await h.api('GET', `${addressesPath(bsc())}/${ofB.id}`, { key: other.apiKey });
    expect(foreign.status).toBe(404);
    const before = await addressCount(bsc().id);
    expect((await h.api('POST', addressesPath(bsc()), { key: other.apiKey, body: {} })).status).toBe(404);
    expect(await addressCount(bsc().id)).toBe(before);
  });
});

// ---------------------------------------------------------------------------------------
// Secrets never reach the logs (keep this describe last)
// ---------------------------------------------------------------------------------------

describe('logs', () => {
  it('contain no mnemonic (nor 3 consecutive words of one), exported private key or API key', async () => {
    // Every wallet this file touched, including ones created through the API.
    const walletIds = await h.database.db.selectFrom('wallets').select('id').execute();
    for (const { id } of walletIds) await mnemonicOf(id);
    expect(secrets.mnemonics.size).toBe(walletIds.length);
    expect(secrets.privateKeys.size).toBeGreaterThanOrEqual(1);
    expect(secrets.apiKeys.size).toBeGreaterThanOrEqual(6);

    const logs = h.logs();
    const lower = logs.toLowerCase();
    // The scan must be able to fail: requests, including the exporting ones, were logged.
    expect(logs.length).toBeGreaterThan(10_000);
    expect(logs).toContain('/addresses');
    expect(logs).toContain('showPrivateKey=true');
    expect(logs).toContain(eth().id);

    for (const mnemonic of secrets.mnemonics) {
      expect(lower).not.toContain(mnemonic.toLowerCase());
      const words = mnemonic.split(' ');
      expect(words).toHaveLength(24);
      for (let i = 0; i + 3 <= words.length; i++) {
        const run = words.slice(i, i + 3);
        for (const joined of [run.join(' '), run.join('","'), run.join(',')]) expect(lower, `words ${i}..${i + 2}`).not.toContain(joined);
      }
    }
    for (const key of secrets.privateKeys) {
      expect(lower).not.toContain(key.toLowerCase());
      expect(lower).not.toContain(key.slice(2).toLowerCase());
    }
    for (const key of secrets.apiKeys) {
      expect(logs).not.toContain(key);
      // Nor its secret part with the prefix cut off.
      expect(logs).not.toContain(key.replace(/^sk_[a-z]+_/, ''));
    }
  });
});
