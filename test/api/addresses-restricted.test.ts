/**
 * Child addresses on an installation that restricts them: an address limit of 3 per
 * wallet and private-key export switched off for every network. A separate file (own
 * harness, own fork) so these settings do not leak into test/api/addresses.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';

const LIMIT = 3;

let h: Harness;
beforeAll(async () => {
  // One chain is enough here and halves the devnet start-up.
  h = await startHarness({ specs: [DEVNET_CHAINS[0]!], addressLimit: LIMIT, keyExport: { testnet: false, mainnet: false } });
  apiKeys.push(h.businessKey, ...Object.values(h.wallets).map((w) => w.apiKey));
});
afterAll(async () => {
  await h?.stop();
});

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

const apiKeys: string[] = [];
const eth = () => h.wallets['devnet-eth']!;
const addressesPath = (w: { id: string }) => `/v1/wallets/${w.id}/addresses`;

function post(w: { id: string; apiKey: string }, body: unknown = {}) {
  return h.api('POST', addressesPath(w), { key: w.apiKey, body });
}

async function newWallet(name: string): Promise<TestWallet> {
  const res = await h.api('POST', '/v1/wallets', { key: h.businessKey, body: { blockchain: 'devnet-eth', network: 'testnet', name } });
  expect(res.status).toBe(200);
  apiKeys.push(res.body.data.apiKey);
  return { id: res.body.data.id, apiKey: res.body.data.apiKey, address: res.body.data.address, slug: 'devnet-eth' };
}

function indexesOf(walletId: string) {
  return h.database.db
    .selectFrom('addresses')
    .select('derivation_index')
    .where('wallet_id', '=', walletId)
    .orderBy('derivation_index')
    .execute()
    .then((rows) => rows.map((r) => r.derivation_index));
}

async function nextIndex(walletId: string): Promise<number> {
  return (await h.database.db.selectFrom('wallets').select('next_index').where('id', '=', walletId).executeTakeFirstOrThrow()).next_index;
}

async function exportAuditCount(): Promise<number> {
  const row = await h.database.db
    .selectFrom('audit_log')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('action', '=', 'address.private_key_exported')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

// ---------------------------------------------------------------------------------------
// Private key export switched off
// ---------------------------------------------------------------------------------------

describe('private key export switched off', () => {
  it('showPrivateKey=true is 403 FORBIDDEN with no key and no audit row; plain reads still work', async () => {
    const created = await post(eth(), { name: 'locked' });
    expect(created.status).toBe(200);
    const a = created.body.data;
    expect(a.configurations.showPrivateKey).toBe(false);

    for (const key of [eth().apiKey, h.businessKey]) {
      const res = await h.api('GET', `${addressesPath(eth())}/${a.id}?showPrivateKey=true`, { key });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ statusCode: 403, error: 'FORBIDDEN', message: expect.any(String), requestId: expect.any(String) });
      expect(res.body.data).toBeUndefined();
      expect(JSON.stringify(res.body)).not.toMatch(/0x[0-9a-f]{64}/i);
    }
    expect(await exportAuditCount()).toBe(0);

    const plain = await h.api('GET', `${addressesPath(eth())}/${a.id}?showPrivateKey=false`);
    expect(plain.status).toBe(200);
    expect('privateKey' in plain.body.data).toBe(false);
    expect(plain.body.data).toMatchObject({ id: a.id, address: a.address, configurations: { showPrivateKey: false } });
  });
});

// ---------------------------------------------------------------------------------------
// Address limit
// ---------------------------------------------------------------------------------------

describe('address limit', () => {
  it('the 4th creation is 422 ADDRESS_LIMIT_REACHED and reserves no index', async () => {
    const w = eth();
    // The export test above issued one address already.
    while ((await indexesOf(w.id)).length < LIMIT) expect((await post(w)).status).toBe(200);
    expect(await indexesOf(w.id)).toEqual([1, 2, 3]);

    for (const body of [{}, { name: 'one too many' }]) {
      const res = await post(w, body);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({
        statusCode: 422,
        error: 'ADDRESS_LIMIT_REACHED',
        message: expect.any(String),
        requestId: expect.any(String),
      });
    }
    expect(await indexesOf(w.id)).toEqual([1, 2, 3]);
    expect(await nextIndex(w.id)).toBe(LIMIT + 1);

    const list = await h.api('GET', addressesPath(w));
    expect(list.body.analytics).toEqual({
      activeAddressesCount: 3,
      addressLimit: LIMIT,
      addressesCount: 3,
      externalAddressesCount: 0,
      inactiveAddressesCount: 0,
      internalAddressesCount: 3,
    });
    // Deactivating an address does not free a slot: the limit counts issued addresses.
    const [first] = list.body.data;
    expect((await h.api('PATCH', `${addressesPath(w)}/${first.id}`, { body: { isActive: false } })).status).toBe(200);
    expect((await post(w)).status).toBe(422);
  });

  it('10 concurrent creations with limit 3: exactly 3 succeed, 7 get 422, indexes 1..3', async () => {
    const w = await newWallet('Concurrent limit');
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => post(w, { name: `race-${i}` })));
    const ok = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status !== 200);
    expect(ok).toHaveLength(LIMIT);
    expect(refused).toHaveLength(10 - LIMIT);
    for (const r of refused) expect(r.body).toMatchObject({ statusCode: 422, error: 'ADDRESS_LIMIT_REACHED' });
    expect(new Set(ok.map((r) => r.body.data.address)).size).toBe(LIMIT);
    expect(ok.map((r) => r.body.data.derivationPath).sort()).toEqual(["m/44'/60'/0'/0/1", "m/44'/60'/0'/0/2", "m/44'/60'/0'/0/3"]);
    expect(await indexesOf(w.id)).toEqual([1, 2, 3]);
    expect(await nextIndex(w.id)).toBe(LIMIT + 1);

    // A second wave at a full wallet is refused entirely.
    const wave = await Promise.all(Array.from({ length: 5 }, () => post(w)));
    expect(wave.map((r) => r.status)).toEqual([422, 422, 422, 422, 422]);
    expect(await indexesOf(w.id)).toEqual([1, 2, 3]);

    const list = await h.api('GET', addressesPath(w), { key: w.apiKey });
    expect(list.body.analytics).toMatchObject({ addressLimit: LIMIT, addressesCount: LIMIT, activeAddressesCount: LIMIT });
    expect(list.body.meta).toEqual({ currentPage: 1, itemCount: 3, itemsPerPage: 100, totalItems: 3, totalPages: 1 });
  });
});

// ---------------------------------------------------------------------------------------
// Logs (keep last)
// ---------------------------------------------------------------------------------------

describe('logs', () => {
  it('contain no mnemonic or API key of this file', async () => {
    const logs = h.logs();
    expect(logs.length).toBeGreaterThan(1_000);
    expect(logs).toContain('showPrivateKey=true');
    const wallets = await h.database.db.selectFrom('wallets').select('id').execute();
    expect(wallets.length).toBe(2);
    for (const { id } of wallets) {
      const words = (await h.services.wallets.openMnemonic(id)).split(' ');
      for (let i = 0; i + 3 <= words.length; i++) expect(logs).not.toContain(words.slice(i, i + 3).join(' '));
    }
    expect(apiKeys.length).toBeGreaterThanOrEqual(3);
    for (const key of apiKeys) {
      expect(logs).not.toContain(key);
      expect(logs).not.toContain(key.replace(/^sk_[a-z]+_/, ''));
    }
  });
});
