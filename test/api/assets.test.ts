/**
 * Wallet assets through real HTTP and real PostgreSQL: the listing's Asset objects, and
 * enabling / disabling by wallet-asset id or catalogue asset id, checked against the
 * `wallet_assets` table and against what the balances endpoint then covers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { ASSET_KEYS, BLOCKCHAIN_KEYS } from '../support/shapes.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

const eth = () => h.wallets['devnet-eth']!;
const bsc = () => h.wallets['devnet-bsc']!;

interface WalletAsset {
  id: string;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
  asset: { id: string; symbol: string; address: string; decimals: number } & Record<string, unknown>;
}

async function list(walletId: string, key: string): Promise<WalletAsset[]> {
  const res = await h.api('GET', `/v1/wallets/${walletId}/assets`, { key });
  expect(res.status).toBe(200);
  return res.body.data;
}
const find = (items: WalletAsset[], symbol: string) => {
  const wa = items.find((x) => x.asset.symbol === symbol);
  if (!wa) throw new Error(`no ${symbol}`);
  return wa;
};
const row = (id: string) => h.database.db.selectFrom('wallet_assets').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const balanceSymbols = async (walletId: string, key: string) => {
  const res = await h.api('GET', `/v1/wallets/${walletId}/balances`, { key });
  expect(res.status).toBe(200);
  return (res.body.data as { asset: { asset: { symbol: string } } }[]).map((e) => e.asset.asset.symbol).sort();
};

describe('GET /v1/wallets/{walletId}/assets', () => {
  it.each([
    ['devnet-eth', 0, 6, 'ERC20'],
    ['devnet-bsc', 1, 18, 'BEP20'],
  ] as const)('%s: lists the enabled test tokens with full Asset objects', async (slug, index, decimals, standard) => {
    const w = h.wallets[slug]!;
    const res = await h.api('GET', `/v1/wallets/${w.id}/assets`, { key: w.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ statusCode: 200, message: expect.any(String) });
    const items = res.body.data as WalletAsset[];
    expect(items.map((x) => x.asset.symbol).sort()).toEqual(['USDC', 'USDT']);
    const config = h.devnet.chains[index]!.config;
    const dbRows = await h.database.db.selectFrom('wallet_assets').selectAll().where('wallet_id', '=', w.id).execute();
    expect(dbRows).toHaveLength(2);
    for (const wa of items) {
      expect(Object.keys(wa).sort()).toEqual(['asset', 'createdAt', 'id', 'isActive', 'updatedAt']);
      expect(wa.isActive).toBe(true);
      expect(new Date(wa.createdAt).toISOString()).toBe(wa.createdAt);
      expect(new Date(wa.updatedAt).toISOString()).toBe(wa.updatedAt);
      expect(dbRows.find((r) => r.id === wa.id)).toMatchObject({ asset_id: wa.asset.id, is_active: true });
      expect(Object.keys(wa.asset).sort()).toEqual(ASSET_KEYS);
      const token = config.assets.find((a) => a.symbol === wa.asset.symbol && !a.isNative)!;
      expect(wa.asset.address.toLowerCase()).toBe(token.address.toLowerCase());
      expect(wa.asset).toMatchObject({
        name: token.name,
        decimals,
        standard,
        network: 'testnet',
        isActive: true,
        isNative: false,
        currency: 'USD',
        logoUrl: expect.any(String),
        blockchain: { slug, isActive: true, isEvmCompatible: true, tokenStandard: standard, derivationPath: "m/44'/60'/0'/0" },
      });
      expect(Object.keys(wa.asset.blockchain as object).sort()).toEqual(BLOCKCHAIN_KEYS);
      expect(new Date(wa.asset.createdAt as string).toISOString()).toBe(wa.asset.createdAt);
    }
  });

  it('404 across wallets and for an unknown wallet; 400 for a malformed id; 401 without a key', async () => {
    for (const [walletId, key] of [
      [bsc().id, eth().apiKey],
      [eth().id, bsc().apiKey],
      ['0190a8f0-0000-7000-8000-000000000000', eth().apiKey],
    ] as const) {
      const res = await h.api('GET', `/v1/wallets/${walletId}/assets`, { key });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ statusCode: 404, error: 'NOT_FOUND' });
    }
    expect((await h.api('GET', '/v1/wallets/nope/assets')).status).toBe(400);
    expect((await h.api('GET', `/v1/wallets/${eth().id}/assets`, { key: null })).status).toBe(401);
    const other = await h.services.businesses.create('Other Business');
    expect((await h.api('GET', `/v1/wallets/${eth().id}/assets`, { key: other.apiKey })).status).toBe(404);
  });
});

describe('PATCH /v1/wallets/{walletId}/assets/{assetId}', () => {
  it('disables by wallet-asset id and re-enables by catalogue id; balances follow', async () => {
    const before = find(await list(eth().id, eth().apiKey), 'USDT');
    expect(await balanceSymbols(eth().id, eth().apiKey)).toEqual(['USDC', 'USDT']);

    const off = await h.api('PATCH', `/v1/wallets/${eth().id}/assets/${before.id}`, { body: { isActive: false } });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ statusCode: 200, message: expect.any(String) });
    expect(off.body.data).toMatchObject({
      id: before.id,
      isActive: false,
      createdAt: before.createdAt,
      asset: { id: before.asset.id, symbol: 'USDT', decimals: 6 },
    });
    expect(Date.parse(off.body.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt));
    expect(await row(before.id)).toMatchObject({ is_active: false, asset_id: before.asset.id, wallet_id: eth().id });
    expect(find(await list(eth().id, eth().apiKey), 'USDT').isActive).toBe(false);
    expect(await balanceSymbols(eth().id, eth().apiKey)).toEqual(['USDC']);

    // Idempotent: disabling again changes nothing.
    const again = await h.api('PATCH', `/v1/wallets/${eth().id}/assets/${before.asset.id}`, { body: { isActive: false } });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ id: before.id, isActive: false });

    const on = await h.api('PATCH', `/v1/wallets/${eth().id}/assets/${before.asset.id}`, { body: { isActive: true } });
    expect(on.status).toBe(200);
    // The same wallet asset comes back, not a second row.
    expect(on.body.data).toMatchObject({ id: before.id, isActive: true, asset: { id: before.asset.id } });
    expect(await row(before.id)).toMatchObject({ is_active: true });
    const rows = await h.database.db.selectFrom('wallet_assets').select('id').where('wallet_id', '=', eth().id).execute();
    expect(rows).toHaveLength(2);
    expect(await balanceSymbols(eth().id, eth().apiKey)).toEqual(['USDC', 'USDT']);
  });

  it('works on the 18-decimal chain with its own key', async () => {
    const usdc = find(await list(bsc().id, bsc().apiKey), 'USDC');
    const off = await h.api('PATCH', `/v1/wallets/${bsc().id}/assets/${usdc.asset.id}`, { key: bsc().apiKey, body: { isActive: false } });
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({ id: usdc.id, isActive: false, asset: { decimals: 18, standard: 'BEP20' } });
    expect(await balanceSymbols(bsc().id, bsc().apiKey)).toEqual(['USDT']);
    const on = await h.api('PATCH', `/v1/wallets/${bsc().id}/assets/${usdc.id}`, { key: bsc().apiKey, body: { isActive: true } });
    expect(on.body.data.isActive).toBe(true);
    expect(await balanceSymbols(bsc().id, bsc().apiKey)).toEqual(['USDC', 'USDT']);
  });

  it("enabling a catalogue asset of the wallet's chain that is not on the wallet yet adds it", async () => {
    const created = await h.api('POST', '/v1/wallets', {
      key: h.businessKey,
      body: { blockchain: 'devnet-bsc', network: 'testnet', name: 'Native' },
    });
    const { id, apiKey } = created.body.data as { id: string; apiKey: string };
    const native = h.services.catalogue.findChain('devnet-bsc', 'testnet')!.assets.find((a) => a.is_native)!;
    const res = await h.api('PATCH', `/v1/wallets/${id}/assets/${native.id}`, { key: apiKey, body: { isActive: true } });
    expect(res.status).toBe(200);
    expect(res.body.data.id).not.toBe(native.id);
    expect(res.body.data).toMatchObject({
      isActive: true,
      asset: { id: native.id, isNative: true, symbol: 'BNB', decimals: 18, standard: null, currency: null },
    });
    expect(await row(res.body.data.id)).toMatchObject({ wallet_id: id, asset_id: native.id, is_active: true });
    expect((await list(id, apiKey)).map((x) => x.asset.symbol).sort()).toEqual(['BNB', 'USDC', 'USDT']);
    expect(await balanceSymbols(id, apiKey)).toEqual(['BNB', 'USDC', 'USDT']);
  });

  it("an asset of another chain, an unknown uuid or another wallet's wallet-asset id is 404 and writes nothing", async () => {
    const bscAssets = await list(bsc().id, bsc().apiKey);
    const countBefore = await h.database.db
      .selectFrom('wallet_assets')
      .select(h.database.db.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const ids = [
      find(bscAssets, 'USDT').asset.id, // catalogue asset of devnet-bsc
      find(bscAssets, 'USDT').id, // wallet asset of the bsc wallet
      '0190a8f0-0000-7000-8000-000000000000', // unknown
    ];
    for (const assetId of ids) {
      for (const isActive of [true, false]) {
        const res = await h.api('PATCH', `/v1/wallets/${eth().id}/assets/${assetId}`, { body: { isActive } });
        expect(res.status, assetId).toBe(404);
        expect(res.body).toMatchObject({ statusCode: 404, error: 'NOT_FOUND' });
      }
    }
    const countAfter = await h.database.db
      .selectFrom('wallet_assets')
      .select(h.database.db.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(countAfter.n)).toBe(Number(countBefore.n));
    expect(find(await list(bsc().id, bsc().apiKey), 'USDT').isActive).toBe(true);
    const bad = await h.api('PATCH', `/v1/wallets/${eth().id}/assets/not-a-uuid`, { body: { isActive: false } });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toContain('assetId');
  });

  it('refuses a missing, mistyped or padded body with 400 and changes nothing', async () => {
    const usdc = find(await list(eth().id, eth().apiKey), 'USDC');
    const before = await row(usdc.id);
    const bodies: unknown[] = [
      {},
      { isActive: 'false' },
      { isActive: 0 },
      { isActive: null },
      { isActive: false, extra: 1 },
      [false],
      'false',
    ];
    for (const body of bodies) {
      const res = await h.api('PATCH', `/v1/wallets/${eth().id}/assets/${usdc.id}`, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
    }
    const empty = await h.api('PATCH', `/v1/wallets/${eth().id}/assets/${usdc.id}`);
    expect(empty.status).toBe(400);
    const malformed = await h.api('PATCH', `/v1/wallets/${eth().id}/assets/${usdc.id}`, {
      rawBody: '{"isActive":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBe('MALFORMED_JSON');
    const after = await row(usdc.id);
    expect(after).toEqual(before);
    expect(after.is_active).toBe(true);
  });

  it('tenancy: 404 across wallets, and nothing changes', async () => {
    const bscUsdt = find(await list(bsc().id, bsc().apiKey), 'USDT');
    const before = await row(bscUsdt.id);
    for (const assetId of [bscUsdt.id, bscUsdt.asset.id]) {
      // eth's key on the bsc wallet
      const res = await h.api('PATCH', `/v1/wallets/${bsc().id}/assets/${assetId}`, { key: eth().apiKey, body: { isActive: false } });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('NOT_FOUND');
    }
    const other = await h.services.businesses.create('Another Business');
    const foreign = await h.api('PATCH', `/v1/wallets/${bsc().id}/assets/${bscUsdt.id}`, { key: other.apiKey, body: { isActive: false } });
    expect(foreign.status).toBe(404);
    expect(await row(bscUsdt.id)).toEqual(before);
    // The business key does reach it.
    const own = await h.api('PATCH', `/v1/wallets/${bsc().id}/assets/${bscUsdt.id}`, { key: h.businessKey, body: { isActive: true } });
    expect(own.status).toBe(200);
    expect(own.body.data.id).toBe(bscUsdt.id);
  });
});
