/**
 * The assets catalogue as clients of the described service call it (issue 12 item 7):
 * `GET /v1/assets` with `network`, `symbol`, `blockchainId` and paging; `POST
 * /v1/wallets/{walletId}/assets { assetId }` (decimals() read on chain first) and `DELETE
 * /v1/wallets/{walletId}/assets/{assetId}` (history kept; the indexer and balances follow).
 * Real HTTP, real PostgreSQL, real anvil chains.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Hex } from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf } from '../support/chain.js';
import { ASSET_KEYS, BLOCKCHAIN_KEYS } from '../support/shapes.js';

let h: Harness;
const indexers: Record<string, ChainIndexer> = {};

beforeAll(async () => {
  h = await startHarness({ specs: DEVNET_CHAINS.map((s) => ({ ...s, confirmations: 1 })) });
  for (const slug of ['devnet-eth', 'devnet-bsc']) {
    const w = h.wallets[slug]!;
    // Sweeps are other tests' business: keep deposits where they land.
    const body = { configurations: { autoSweeping: { isActive: false } } };
    expect((await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body })).status).toBe(200);
    indexers[slug] = h.services.deposits.indexer(h.services.catalogue.findChain(slug, 'testnet')!);
  }
});
afterAll(async () => {
  await h?.stop();
});

const eth = () => h.wallets['devnet-eth']!;
const bsc = () => h.wallets['devnet-bsc']!;

interface Asset {
  id: string;
  symbol: string;
  address: string;
  decimals: number;
  network: string;
  isNative: boolean;
  blockchain: { id: string; slug: string };
}

async function catalogue(query = ''): Promise<{ data: Asset[]; meta: Record<string, number> }> {
  const res = await h.api('GET', `/v1/assets${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toMatchObject({ statusCode: 200, message: 'Assets fetched successfully' });
  return res.body;
}
const assetOf = async (slug: string, symbol: string) =>
  (await catalogue(`?symbol=${symbol}`)).data.find((a) => a.blockchain.slug === slug)!;
const walletAssetRow = (walletId: string, assetId: string) =>
  h.database.db
    .selectFrom('wallet_assets')
    .selectAll()
    .where('wallet_id', '=', walletId)
    .where('asset_id', '=', assetId)
    .executeTakeFirst();
const balanceSymbols = async (walletId: string, key: string) => {
  const res = await h.api('GET', `/v1/wallets/${walletId}/balances`, { key });
  expect(res.status).toBe(200);
  return (res.body.data as { asset: { asset: { symbol: string } } }[]).map((e) => e.asset.asset.symbol).sort();
};
async function drain(slug: string) {
  for (let i = 0; i < 1000; i++) if ((await indexers[slug]!.step()) === 'idle') return;
  throw new Error('indexer did not reach the head');
}
const depositsOfHash = async (hash: string) =>
  (
    await sql<{ id: string; wallet_id: string; amount: string }>`
      SELECT id, wallet_id, amount FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${hash})`.execute(h.database.db)
  ).rows;

describe('GET /v1/assets', () => {
  it('lists every asset of the configured chains as full Asset objects, paginated', async () => {
    const body = await catalogue();
    const expected = h.devnet.chains.flatMap((c) =>
      c.config.assets.map((a) => `${c.config.blockchain.slug}:${a.symbol}:${a.address.toLowerCase()}:${a.decimals}`),
    );
    expect(body.data.map((a) => `${a.blockchain.slug}:${a.symbol}:${a.address.toLowerCase()}:${a.decimals}`).sort()).toEqual(
      expected.sort(),
    );
    expect(body.meta).toEqual({ currentPage: 1, itemCount: 6, itemsPerPage: 100, totalItems: 6, totalPages: 1 });
    for (const a of body.data) {
      expect(Object.keys(a).sort()).toEqual(ASSET_KEYS);
      expect(Object.keys(a.blockchain).sort()).toEqual(BLOCKCHAIN_KEYS);
      // The same ids the wallet assets and balances carry.
      expect(h.services.catalogue.asset(a.id)?.view).toEqual(a);
    }
    // Native coin first within a blockchain.
    expect(body.data.filter((a) => a.blockchain.slug === 'devnet-eth').map((a) => a.symbol)).toEqual(['ETH', 'USDC', 'USDT']);

    const page2 = await catalogue('?limit=4&page=2');
    expect(page2.meta).toEqual({ currentPage: 2, itemCount: 2, itemsPerPage: 4, totalItems: 6, totalPages: 2 });
    expect(page2.data.map((a) => a.id)).toEqual(body.data.slice(4).map((a) => a.id));
    const beyond = await catalogue('?page=5&limit=4');
    expect(beyond.data).toEqual([]);
    expect(beyond.meta).toMatchObject({ itemCount: 0, totalItems: 6 });
  });

  it('filters by network, symbol (any case) and blockchainId, alone and together', async () => {
    const all = (await catalogue()).data;
    const bscChain = all.find((a) => a.blockchain.slug === 'devnet-bsc')!.blockchain;
    expect((await catalogue('?network=testnet')).data).toHaveLength(6);
    expect((await catalogue('?network=mainnet')).data).toEqual([]);
    const usdt = await catalogue('?symbol=usdt');
    expect(usdt.data.map((a) => `${a.blockchain.slug}:${a.symbol}:${a.decimals}`).sort()).toEqual([
      'devnet-bsc:USDT:18',
      'devnet-eth:USDT:6',
    ]);
    expect(usdt.meta.totalItems).toBe(2);
    const onBsc = await catalogue(`?blockchainId=${bscChain.id}`);
    expect(onBsc.data.map((a) => a.symbol)).toEqual(['BNB', 'USDC', 'USDT']);
    const one = await catalogue(`?blockchainId=${bscChain.id}&symbol=USDC&network=testnet`);
    expect(one.data).toHaveLength(1);
    expect(one.data[0]).toMatchObject({ symbol: 'USDC', decimals: 18, network: 'testnet', blockchain: { slug: 'devnet-bsc' } });
    expect((await catalogue('?symbol=DAI')).data).toEqual([]);
    expect((await catalogue('?blockchainId=0190a8f0-0000-7000-8000-000000000000')).meta.totalItems).toBe(0);
    // A business key reads the same shared catalogue.
    const viaBusiness = await h.api('GET', '/v1/assets?symbol=USDC', { key: h.businessKey });
    expect(viaBusiness.body.data).toHaveLength(2);
  });

  it('refuses malformed filters and paging with a 400 naming the field, and a missing key with 401', async () => {
    for (const [query, field] of [
      ['?network=devnet', 'network'],
      ['?blockchainId=nope', 'blockchainId'],
      ['?limit=101', 'limit'],
      ['?page=0', 'page'],
      ['?symbol=', 'symbol'],
      ['?sort=symbol', 'sort'],
    ] as const) {
      const res = await h.api('GET', `/v1/assets${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
      expect(res.body.details[0].field, query).toContain(field);
    }
    expect((await h.api('GET', '/v1/assets', { key: null })).status).toBe(401);
  });
});

describe('POST /v1/wallets/{walletId}/assets', () => {
  it("enables a catalogue asset of the wallet's chain; enabling it again returns the same wallet asset; balances follow", async () => {
    const native = await assetOf('devnet-eth', 'ETH');
    expect(await walletAssetRow(eth().id, native.id)).toBeUndefined();
    const res = await h.api('POST', `/v1/wallets/${eth().id}/assets`, { body: { assetId: native.id } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ statusCode: 200, message: 'Asset added successfully' });
    expect(Object.keys(res.body.data).sort()).toEqual(['asset', 'createdAt', 'id', 'isActive', 'updatedAt']);
    expect(res.body.data).toMatchObject({ isActive: true, asset: { id: native.id, symbol: 'ETH', isNative: true, decimals: 18 } });
    expect(await walletAssetRow(eth().id, native.id)).toMatchObject({ id: res.body.data.id, is_active: true });
    expect(await balanceSymbols(eth().id, eth().apiKey)).toEqual(['ETH', 'USDC', 'USDT']);

    const again = await h.api('POST', `/v1/wallets/${eth().id}/assets`, { body: { assetId: native.id } });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ id: res.body.data.id, isActive: true, createdAt: res.body.data.createdAt });
    const rows = await h.database.db.selectFrom('wallet_assets').select('id').where('wallet_id', '=', eth().id).execute();
    expect(rows).toHaveLength(3);
  });

  it('an asset of another chain is a 422 ASSET_CHAIN_MISMATCH naming assetId; an unknown id a 404; nothing is written', async () => {
    const count = async () => (await h.database.db.selectFrom('wallet_assets').select('id').execute()).length;
    const before = await count();
    const bscUsdt = await assetOf('devnet-bsc', 'USDT');
    const res = await h.api('POST', `/v1/wallets/${eth().id}/assets`, { body: { assetId: bscUsdt.id } });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ statusCode: 422, error: 'ASSET_CHAIN_MISMATCH', details: [{ field: 'assetId' }] });
    expect(res.body.message).toContain('BNB Smart Chain Devnet');
    const unknown = await h.api('POST', `/v1/wallets/${eth().id}/assets`, { body: { assetId: '0190a8f0-0000-7000-8000-000000000000' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('NOT_FOUND');
    expect(await count()).toBe(before);
  });

  it('refuses a missing, mistyped or padded body (400), and reaches no other wallet (404)', async () => {
    const usdc = await assetOf('devnet-eth', 'USDC');
    for (const body of [{}, { assetId: 'nope' }, { assetId: usdc.id, isActive: true }, { id: usdc.id }, [usdc.id]]) {
      const res = await h.api('POST', `/v1/wallets/${eth().id}/assets`, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
    }
    const bscUsdc = await assetOf('devnet-bsc', 'USDC');
    const foreign = await h.api('POST', `/v1/wallets/${bsc().id}/assets`, { key: eth().apiKey, body: { assetId: bscUsdc.id } });
    expect(foreign.status).toBe(404);
    const other = await h.services.businesses.create('Other Business');
    expect((await h.api('POST', `/v1/wallets/${bsc().id}/assets`, { key: other.apiKey, body: { assetId: bscUsdc.id } })).status).toBe(404);
    expect((await h.api('POST', `/v1/wallets/${bsc().id}/assets`, { key: null, body: { assetId: bscUsdc.id } })).status).toBe(401);
  });
});

describe('DELETE /v1/wallets/{walletId}/assets/{assetId}', () => {
  it('disables the asset but keeps its history: the indexer and balances stop, and enabling again resumes them', async () => {
    const tools = chainOf(h, 'devnet-bsc');
    const usdt = await assetOf('devnet-bsc', 'USDT');
    const child = (await h.api('POST', `/v1/wallets/${bsc().id}/addresses`, { key: bsc().apiKey, body: {} })).body.data as {
      id: string;
      address: string;
    };
    const first = await tools.sendToken('USDT', child.address, '3');
    await drain('devnet-bsc');
    const [kept] = await depositsOfHash(first.transactionHash);
    expect(kept).toMatchObject({ wallet_id: bsc().id, amount: String(3n * 10n ** 18n) });
    const walletAsset = (await walletAssetRow(bsc().id, usdt.id))!;

    const off = await h.api('DELETE', `/v1/wallets/${bsc().id}/assets/${usdt.id}`, { key: bsc().apiKey });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body).toMatchObject({ statusCode: 200, message: 'Asset removed successfully' });
    expect(off.body.data).toMatchObject({ id: walletAsset.id, isActive: false, asset: { id: usdt.id, symbol: 'USDT' } });
    // The row stays, inactive; so does the deposit, in the wallet's history.
    expect(await walletAssetRow(bsc().id, usdt.id)).toMatchObject({ id: walletAsset.id, is_active: false });
    const history = await h.api('GET', `/v1/wallets/${bsc().id}/transactions/${kept!.id}`, { key: bsc().apiKey });
    expect(history.status).toBe(200);
    expect(history.body.data).toMatchObject({ id: kept!.id, type: 'DEPOSIT', amount: '3', asset: { symbol: 'USDT' } });
    // Balances leave it out, and asking for it is ASSET_NOT_ENABLED.
    expect(await balanceSymbols(bsc().id, bsc().apiKey)).toEqual(['USDC']);
    const asked = await h.api('GET', `/v1/wallets/${bsc().id}/balances?asset_id=${usdt.id}`, { key: bsc().apiKey });
    expect(asked.status).toBe(422);
    expect(asked.body.error).toBe('ASSET_NOT_ENABLED');
    const withdraw = await h.api('POST', `/v1/wallets/${bsc().id}/withdraw`, {
      key: bsc().apiKey,
      body: { assetId: usdt.id, address: child.address, amount: '1' },
    });
    expect(withdraw.status).toBe(422);
    expect(withdraw.body).toMatchObject({ error: 'ASSET_NOT_ENABLED', details: [{ field: 'assetId' }] });
    // Deleting again is the same answer (by the wallet asset's id this time).
    const again = await h.api('DELETE', `/v1/wallets/${bsc().id}/assets/${walletAsset.id}`, { key: bsc().apiKey });
    expect(again.body.data).toMatchObject({ id: walletAsset.id, isActive: false });

    // The indexer no longer records deposits of it.
    const ignored = await tools.sendToken('USDT', child.address, '4');
    await drain('devnet-bsc');
    expect(await depositsOfHash(ignored.transactionHash)).toEqual([]);

    const on = await h.api('POST', `/v1/wallets/${bsc().id}/assets`, { key: bsc().apiKey, body: { assetId: usdt.id } });
    expect(on.status).toBe(200);
    expect(on.body.data).toMatchObject({ id: walletAsset.id, isActive: true });
    expect(await balanceSymbols(bsc().id, bsc().apiKey)).toEqual(['USDC', 'USDT']);
    const resumed = await tools.sendToken('USDT', child.address, '5');
    await drain('devnet-bsc');
    expect(await depositsOfHash(resumed.transactionHash)).toEqual([
      expect.objectContaining({ wallet_id: bsc().id, amount: String(5n * 10n ** 18n) }),
    ]);
    // A transfer made while it was off stays unrecorded by the indexer (the deposit finder can still fetch it).
    expect(await depositsOfHash(ignored.transactionHash)).toEqual([]);
  });

  it("an asset of another chain or an unknown id is a 404, a malformed id a 400, another wallet's asset a 404", async () => {
    const bscUsdt = await assetOf('devnet-bsc', 'USDT');
    const ethUsdc = await assetOf('devnet-eth', 'USDC');
    for (const id of [bscUsdt.id, '0190a8f0-0000-7000-8000-000000000000']) {
      const res = await h.api('DELETE', `/v1/wallets/${eth().id}/assets/${id}`);
      expect(res.status).toBe(404);
    }
    expect((await h.api('DELETE', `/v1/wallets/${eth().id}/assets/nope`)).status).toBe(400);
    expect((await h.api('DELETE', `/v1/wallets/${eth().id}/assets/${ethUsdc.id}`, { key: bsc().apiKey })).status).toBe(404);
    expect((await walletAssetRow(eth().id, ethUsdc.id))!.is_active).toBe(true);
  });
});

describe('enabling reads decimals() on chain', () => {
  it('a token whose decimals() disagrees with the catalogue is refused with 422 ASSET_DECIMALS_MISMATCH, by POST and PATCH alike', async () => {
    const ethTools = chainOf(h, 'devnet-eth');
    const bscTools = chainOf(h, 'devnet-bsc');
    const usdc = await assetOf('devnet-eth', 'USDC');
    expect((await h.api('DELETE', `/v1/wallets/${eth().id}/assets/${usdc.id}`)).status).toBe(200);
    const original = await ethTools.rpc<Hex>('eth_getCode', [usdc.address, 'latest']);
    // The 18-decimal token's code at the 6-decimal token's address: decimals() now answers 18.
    const eighteen = await bscTools.rpc<Hex>('eth_getCode', [bscTools.token('USDC').address, 'latest']);
    await ethTools.rpc('anvil_setCode', [usdc.address, eighteen]);
    try {
      for (const [method, path, body] of [
        ['POST', `/v1/wallets/${eth().id}/assets`, { assetId: usdc.id }],
        ['PATCH', `/v1/wallets/${eth().id}/assets/${usdc.id}`, { isActive: true }],
      ] as const) {
        const res = await h.api(method, path, { body });
        expect(res.status, method).toBe(422);
        expect(res.body).toMatchObject({ statusCode: 422, error: 'ASSET_DECIMALS_MISMATCH', details: [{ field: 'assetId' }] });
        expect(res.body.message).toContain('18 decimals');
        expect(res.body.message).toContain('catalogue says 6');
      }
      // No contract at all answers nothing: refused the same way.
      await ethTools.rpc('anvil_setCode', [usdc.address, '0x']);
      const none = await h.api('POST', `/v1/wallets/${eth().id}/assets`, { body: { assetId: usdc.id } });
      expect(none.status).toBe(422);
      expect(none.body.message).toContain('does not answer decimals()');
      expect((await walletAssetRow(eth().id, usdc.id))!.is_active).toBe(false);
    } finally {
      await ethTools.rpc('anvil_setCode', [usdc.address, original]);
    }
    const ok = await h.api('POST', `/v1/wallets/${eth().id}/assets`, { body: { assetId: usdc.id } });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ isActive: true, asset: { id: usdc.id, decimals: 6 } });
  });
});

describe('the OpenAPI document', () => {
  it('lists the catalogue and the wallet asset routes', async () => {
    const res = await h.api('GET', '/openapi.json', { key: null });
    expect(res.status).toBe(200);
    const paths = res.body.paths as Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
    expect(Object.keys(paths['/v1/assets']!)).toContain('get');
    expect(
      paths['/v1/assets']!.get!.parameters!.filter((p) => p.in === 'query')
        .map((p) => p.name)
        .sort(),
    ).toEqual(['blockchainId', 'limit', 'network', 'page', 'symbol']);
    expect(Object.keys(paths['/v1/wallets/{walletId}/assets']!)).toEqual(expect.arrayContaining(['get', 'post']));
    expect(Object.keys(paths['/v1/wallets/{walletId}/assets/{assetId}']!)).toEqual(expect.arrayContaining(['patch', 'delete']));
  });
});

// Last: it stops this file's chains.
describe('a chain that cannot be reached', () => {
  it('answers 503 CHAIN_UNAVAILABLE when enabling (decimals() cannot be read), and writes nothing', async () => {
    const usdt = await assetOf('devnet-eth', 'USDT');
    expect((await h.api('DELETE', `/v1/wallets/${eth().id}/assets/${usdt.id}`)).status).toBe(200);
    await h.devnet.stop();
    const res = await h.api('POST', `/v1/wallets/${eth().id}/assets`, { body: { assetId: usdt.id } });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ statusCode: 503, error: 'CHAIN_UNAVAILABLE' });
    expect((await walletAssetRow(eth().id, usdt.id))!.is_active).toBe(false);
  });
});
