/**
 * Rates as clients of the described service call them (issue 12 item 8):
 * `GET /v1/assets/rates?assets=USDT,USDC&currency=USD`, from the devnet's real price-feed
 * contracts (Chainlink's AggregatorV3 interface): the API follows the feed, refuses stale,
 * carried-over and non-positive rounds, quotes a feedless stablecoin at its peg only when
 * the operator allows it, and balances' `convertedBalance` and transactions' `amountUSD` /
 * `rateUSD` come from the same source.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { parseUnits } from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { DEVNET_FEED_HEARTBEAT, readDevnetFeed, setDevnetFeedPrice, setDevnetFeedRound, type FeedRound } from '../../src/devnet/feeds.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf } from '../support/chain.js';
import { capability } from '../../src/chains/capabilities.js';

const nowS = () => BigInt(Math.floor(Date.now() / 1000));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function feedTools(h: Harness) {
  const feed = (slug: string, symbol: string) => {
    const config = h.devnet.chains.find((c) => c.config.blockchain.slug === slug)!.config;
    return { rpc: config.rpcUrl, chainId: config.chainId, address: config.priceFeeds![symbol]!.address };
  };
  return {
    setPrice: async (slug: string, symbol: string, price: string) => {
      const f = feed(slug, symbol);
      await setDevnetFeedPrice(f.rpc, f.chainId, f.address, price);
    },
    /** A new round over the latest one, with `over` changed. */
    postRound: async (slug: string, symbol: string, over: Partial<FeedRound>) => {
      const f = feed(slug, symbol);
      const latest = (await readDevnetFeed(f.rpc, f.chainId, f.address))!;
      const id = latest.roundId + 1n;
      await setDevnetFeedRound(f.rpc, f.chainId, f.address, {
        ...latest,
        roundId: id,
        answeredInRound: id,
        startedAt: nowS(),
        updatedAt: nowS(),
        ...over,
      });
    },
  };
}

async function rates(h: Harness, query: string, key?: string, path = '/v1/assets/rates') {
  const res = await h.api('GET', `${path}${query}`, key === undefined ? {} : { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toMatchObject({ statusCode: 200, message: 'Rates retrieved successfully' });
  return res.body.data as Record<string, Record<string, string | null>>;
}

interface Entry {
  balance: string;
  convertedBalance: string | null;
  asset: { id: string; asset: { id: string; symbol: string } };
}
async function balances(h: Harness, slug: string, query = ''): Promise<Record<string, Entry>> {
  const w = h.wallets[slug]!;
  const res = await h.api('GET', `/v1/wallets/${w.id}/balances${query}`, { key: w.apiKey });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return Object.fromEntries((res.body.data as Entry[]).map((e) => [e.asset.asset.symbol, e]));
}

describe('rates from the devnet feeds (peg fallback off, no cache)', () => {
  let h: Harness;
  let feeds: ReturnType<typeof feedTools>;
  const indexers: Record<string, ChainIndexer> = {};
  const eth = () => h.wallets['devnet-eth']!;
  const bsc = () => h.wallets['devnet-bsc']!;

  beforeAll(async () => {
    const specs = DEVNET_CHAINS.map((s) => ({ ...s, confirmations: 1 }));
    // A third USD stablecoin on devnet-eth with no price feed at all.
    specs[0] = {
      ...specs[0]!,
      tokens: [...specs[0]!.tokens, { symbol: 'DAI', name: 'Dai (devnet)', decimals: 18 }],
      usdPrices: { DAI: null },
    };
    h = await startHarness({ specs, services: { rates: { cacheMs: 0 } } });
    feeds = feedTools(h);
    for (const slug of ['devnet-eth', 'devnet-bsc']) {
      const w = h.wallets[slug]!;
      const body = { configurations: { autoSweeping: { isActive: false } } };
      expect((await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body })).status).toBe(200);
      indexers[slug] = h.services.deposits.indexer(h.services.catalogue.findChain(slug, 'testnet')!);
    }
  });
  afterAll(async () => {
    await h?.stop();
  });

  async function drain(slug: string) {
    for (let i = 0; i < 1000; i++) if ((await indexers[slug]!.step()) === 'idle') return;
    throw new Error('indexer did not reach the head');
  }
  async function depositOf(slug: string, hash: string) {
    const { rows } = await sql<{ id: string }>`SELECT id FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${hash})`.execute(
      h.database.db,
    );
    expect(rows).toHaveLength(1);
    const w = h.wallets[slug]!;
    const res = await h.api('GET', `/v1/wallets/${w.id}/transactions/${rows[0]!.id}`, { key: w.apiKey });
    expect(res.status).toBe(200);
    return res.body.data as Record<string, unknown>;
  }
  async function newChild(slug: string) {
    const w = h.wallets[slug]!;
    return (await h.api('POST', `/v1/wallets/${w.id}/addresses`, { key: w.apiKey, body: {} })).body.data as { id: string; address: string };
  }

  it("answers `GET /v1/assets/rates?assets=USDT,USDC&currency=USD` in the described service's shape", async () => {
    const res = await h.api('GET', '/v1/assets/rates?assets=USDT,USDC&currency=USD');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: { USDT: { USD: '1' }, USDC: { USD: '1' } },
      message: 'Rates retrieved successfully',
      statusCode: 200,
    });
  });

  it('follows the feed: a new price is the new rate, and convertedBalance is the balance at that rate', async () => {
    await feeds.setPrice('devnet-eth', 'USDT', '0.9997');
    expect(await rates(h, '?assets=USDT,USDC&currency=USD', eth().apiKey)).toEqual({ USDT: { USD: '0.9997' }, USDC: { USD: '1' } });
    // A wallet key is answered from its own chain's feed first: devnet-bsc's USDT still says 1.
    expect(await rates(h, '?assets=USDT&currency=USD', bsc().apiKey)).toEqual({ USDT: { USD: '1' } });

    await chainOf(h, 'devnet-eth').sendToken('USDT', eth().address, '10.5');
    let b = await balances(h, 'devnet-eth');
    expect(b.USDT).toMatchObject({ balance: '10.5', convertedBalance: '10.49685' });
    expect(b.USDC).toMatchObject({ balance: '0', convertedBalance: '0' });
    await feeds.setPrice('devnet-eth', 'USDT', '1.0002');
    b = await balances(h, 'devnet-eth');
    expect(b.USDT).toMatchObject({ balance: '10.5', convertedBalance: '10.5021' });
    expect(await rates(h, '?assets=USDT', eth().apiKey)).toEqual({ USDT: { USD: '1.0002' } });
  });

  it('records amountUSD and rateUSD at the rate of the moment, for deposits and withdrawals', async () => {
    await feeds.setPrice('devnet-eth', 'USDT', '0.9997');
    const child = await newChild('devnet-eth');
    const sent = await chainOf(h, 'devnet-eth').sendToken('USDT', child.address, '2.5');
    await drain('devnet-eth');
    const deposit = await depositOf('devnet-eth', sent.transactionHash);
    expect(deposit).toMatchObject({ amount: '2.5', currency: 'USDT', amountUSD: '2.49925', rateUSD: '0.9997', rate: '0.9997' });

    // A later price changes nothing already recorded.
    await feeds.setPrice('devnet-eth', 'USDT', '0.95');
    expect(await depositOf('devnet-eth', sent.transactionHash)).toMatchObject({ amountUSD: '2.49925', rateUSD: '0.9997' });

    const usdt = (await balances(h, 'devnet-eth')).USDT!.asset.id;
    const w = await h.api('POST', `/v1/wallets/${eth().id}/withdraw`, {
      body: { assetId: usdt, address: child.address, amount: '1.5' },
    });
    expect(w.status, JSON.stringify(w.body)).toBe(200);
    expect(w.body.data).toMatchObject({ type: 'WITHDRAW', amount: '1.5', amountUSD: '1.425', rateUSD: '0.95', rate: '0.95' });

    // 18 decimals at exactly 1: every digit of the amount.
    const bscChild = await newChild('devnet-bsc');
    const bscSent = await chainOf(h, 'devnet-bsc').sendToken('USDT', bscChild.address, '1.000000000000000001');
    await drain('devnet-bsc');
    expect(await depositOf('devnet-bsc', bscSent.transactionHash)).toMatchObject({
      amount: '1.000000000000000001',
      amountUSD: '1.000000000000000001',
      rateUSD: '1',
    });
  });

  it('refuses a stale feed: no rate from it; the symbol is quoted from another chain’s fresh feed, or not at all', async () => {
    await feeds.setPrice('devnet-bsc', 'USDT', '1.0001');
    const old = nowS() - BigInt(DEVNET_FEED_HEARTBEAT) - 600n - 60n; // past heartbeat + the default grace
    await feeds.postRound('devnet-eth', 'USDT', { answer: 99_990_000n, startedAt: old, updatedAt: old });
    expect((await balances(h, 'devnet-eth')).USDT!.convertedBalance).toBeNull();
    expect(await rates(h, '?assets=USDT', eth().apiKey)).toEqual({ USDT: { USD: '1.0001' } });

    // A deposit found meanwhile records no USD value rather than a stale one.
    const child = await newChild('devnet-eth');
    const sent = await chainOf(h, 'devnet-eth').sendToken('USDT', child.address, '1');
    await drain('devnet-eth');
    expect(await depositOf('devnet-eth', sent.transactionHash)).toMatchObject({ amountUSD: null, rateUSD: null, rate: null });

    await feeds.postRound('devnet-bsc', 'USDT', { startedAt: old, updatedAt: old });
    expect(await rates(h, '?assets=USDT,USDC', eth().apiKey)).toEqual({ USDT: { USD: null }, USDC: { USD: '1' } });
    expect(await rates(h, '?assets=USDT', bsc().apiKey)).toEqual({ USDT: { USD: null } });

    await feeds.setPrice('devnet-eth', 'USDT', '1');
    expect(await rates(h, '?assets=USDT', eth().apiKey)).toEqual({ USDT: { USD: '1' } });
    expect((await balances(h, 'devnet-eth')).USDT!.convertedBalance).toBe((await balances(h, 'devnet-eth')).USDT!.balance);
  });

  it('refuses an answer carried over from an earlier round, and zero or negative answers', async () => {
    const latest = async () => {
      const config = h.devnet.chains[0]!.config;
      return (await readDevnetFeed(config.rpcUrl, config.chainId, config.priceFeeds!.USDC!.address))!;
    };
    const usdc = async () => (await rates(h, '?assets=USDC', eth().apiKey)).USDC!.USD;
    // devnet-bsc's USDC would stand in for devnet-eth's: make it unusable first.
    await feeds.postRound('devnet-bsc', 'USDC', { answer: 0n });
    const carried = (await latest()).roundId;
    await feeds.postRound('devnet-eth', 'USDC', { answer: 100_000_000n, answeredInRound: carried });
    expect(await usdc()).toBeNull();
    expect((await balances(h, 'devnet-eth')).USDC!.convertedBalance).toBeNull();
    for (const answer of [0n, -100_000_000n]) {
      await feeds.postRound('devnet-eth', 'USDC', { answer });
      expect(await usdc(), String(answer)).toBeNull();
    }
    await feeds.setPrice('devnet-eth', 'USDC', '0.9999');
    expect(await usdc()).toBe('0.9999');
    await feeds.setPrice('devnet-bsc', 'USDC', '1');
  });

  it('a USD stablecoin without a price feed has no rate while RATES_PEG_FALLBACK is off (the default)', async () => {
    expect(h.services.rates.settings.pegFallback).toBe(false);
    expect(await rates(h, '?assets=DAI&currency=USD')).toEqual({ DAI: { USD: null } });
    await chainOf(h, 'devnet-eth').sendToken('DAI', eth().address, '3');
    const dai = (await balances(h, 'devnet-eth')).DAI!;
    expect(dai).toMatchObject({ balance: '3', convertedBalance: null });
  });

  it('without `assets`: every symbol of the catalogue; symbols in any case; `/v1/rates` is an alias', async () => {
    const all = await rates(h, '', eth().apiKey);
    expect(Object.keys(all)).toEqual(['BNB', 'DAI', 'ETH', 'USDC', 'USDT']);
    // Native coins have no feed on the devnet: no rate rather than an invented one.
    expect(all).toMatchObject({ BNB: { USD: null }, ETH: { USD: null }, DAI: { USD: null }, USDT: { USD: '1' } });
    expect(await rates(h, '?assets=usdt,Usdc,USDT&currency=usd', eth().apiKey)).toEqual({ USDT: { USD: '1' }, USDC: { USD: '0.9999' } });
    expect(await rates(h, '?assets=USDT,USDC&currency=USD', eth().apiKey, '/v1/rates')).toEqual(
      await rates(h, '?assets=USDT,USDC&currency=USD', eth().apiKey),
    );
  });

  it('an unknown symbol or currency is a 400 naming the field; so are an empty list and unknown parameters', async () => {
    for (const [query, field, text] of [
      ['?assets=USDT,XYZ&currency=USD', 'assets', 'XYZ'],
      ['?assets=USDT&currency=EUR', 'currency', 'EUR'],
      ['?assets=&currency=USD', 'assets', ''],
      ['?assets=,&currency=USD', 'assets', ''],
      ['?assets=USDT&currency=USD&network=testnet', 'network', ''],
    ] as const) {
      const res = await h.api('GET', `/v1/assets/rates${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
      expect(res.body.details[0].field, query).toContain(field);
      expect(res.body.message, query).toContain(text);
    }
    expect((await h.api('GET', '/v1/assets/rates?assets=USDT', { key: null })).status).toBe(401);
  });

  it('/openapi.json lists the rates route and its deprecated alias', async () => {
    const res = await h.api('GET', '/openapi.json', { key: null });
    const paths = res.body.paths as Record<string, { get?: { deprecated?: boolean; parameters?: { name: string; in: string }[] } }>;
    const canonical = paths['/v1/assets/rates']!.get!;
    expect(canonical.deprecated).toBeUndefined();
    expect(
      canonical
        .parameters!.filter((p) => p.in === 'query')
        .map((p) => p.name)
        .sort(),
    ).toEqual(['assets', 'currency']);
    expect(paths['/v1/rates']!.get!.deprecated).toBe(true);
  });

  it("the chain seam's feed reader: a feed's round; null (no rate, not an outage) for an address that does not answer as a feed", async () => {
    const adapter = h.services.catalogue.findChain('devnet-bsc', 'testnet')!.adapter;
    const config = h.devnet.chains[1]!.config;
    const feed = config.priceFeeds!.USDC!.address;
    const round = (await capability(adapter, 'priceFeeds').readPriceFeed(feed))!;
    expect(round).toMatchObject({ answer: 100_000_000n, decimals: 8 });
    expect(round.answeredInRound).toBe(round.roundId);
    expect(Math.abs(round.updatedAt - Number(nowS()))).toBeLessThan(600);
    // An account without code, and a token (no latestRoundData).
    expect(await capability(adapter, 'priceFeeds').readPriceFeed(chainOf(h, 'devnet-bsc').faucet)).toBeNull();
    expect(await capability(adapter, 'priceFeeds').readPriceFeed(chainOf(h, 'devnet-bsc').token('USDC').address)).toBeNull();
    expect(await adapter.readTokenDecimals(chainOf(h, 'devnet-bsc').faucet)).toBeNull();
    expect(await adapter.readTokenDecimals(chainOf(h, 'devnet-bsc').token('USDC').address)).toBe(18);
    // A feed that reverts (its latest round has no data) answers nothing either.
    await feeds.postRound('devnet-bsc', 'USDC', { answer: 0n, startedAt: 0n, updatedAt: 0n, answeredInRound: 0n });
    expect(await capability(adapter, 'priceFeeds').readPriceFeed(feed)).toBeNull();
    expect(await rates(h, '?assets=USDC', bsc().apiKey)).toEqual({ USDC: { USD: '0.9999' } }); // devnet-eth's feed stands in
    await feeds.setPrice('devnet-bsc', 'USDC', '1');
    expect(await rates(h, '?assets=USDC', bsc().apiKey)).toEqual({ USDC: { USD: '1' } });
  });

  // Last: it stops this world's chains.
  it('chains that cannot be reached: a rate read earlier serves until its own limit; a symbol with none is a 503 CHAIN_UNAVAILABLE', async () => {
    expect(await rates(h, '?assets=USDC', eth().apiKey)).toEqual({ USDC: { USD: '0.9999' } });
    for (const slug of ['devnet-eth', 'devnet-bsc']) await feeds.postRound(slug, 'USDT', { answer: 0n });
    expect(await rates(h, '?assets=USDT', eth().apiKey)).toEqual({ USDT: { USD: null } });
    await h.devnet.stop();
    expect(await rates(h, '?assets=USDC', eth().apiKey)).toEqual({ USDC: { USD: '0.9999' } });
    const res = await h.api('GET', '/v1/assets/rates?assets=USDT&currency=USD');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ statusCode: 503, error: 'CHAIN_UNAVAILABLE' });
  });
});

describe('RATES_PEG_FALLBACK on, and the cache', () => {
  let h: Harness;
  let feeds: ReturnType<typeof feedTools>;
  const w = () => h.wallets['devnet-eth']!;

  beforeAll(async () => {
    const spec = {
      ...DEVNET_CHAINS[0]!,
      tokens: [...DEVNET_CHAINS[0]!.tokens, { symbol: 'PYUSD', name: 'PayPal USD (devnet)', decimals: 6 }],
      // A feed for the native coin too: nativeBalanceInUSD comes from it.
      usdPrices: { PYUSD: null, ETH: '2500.12345678' },
    };
    h = await startHarness({ specs: [spec], services: { rates: { pegFallback: true, cacheMs: 60_000, graceSeconds: 0 } } });
    feeds = feedTools(h);
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('quotes a feedless USD stablecoin at its peg; an asset with a feed still by its feed', async () => {
    await feeds.setPrice('devnet-eth', 'USDT', '0.9998');
    expect(await rates(h, '?assets=PYUSD,USDT&currency=USD')).toEqual({ PYUSD: { USD: '1' }, USDT: { USD: '0.9998' } });
    await chainOf(h, 'devnet-eth').sendToken('PYUSD', w().address, '7.123456');
    const pyusd = h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'PYUSD')!;
    expect((await balances(h, 'devnet-eth', `?asset_id=${pyusd.id}`)).PYUSD).toMatchObject({
      balance: '7.123456',
      convertedBalance: '7.123456',
    });
  });

  it("a native coin with a feed: its rate, and the network fee's nativeBalanceInUSD at that rate (never the peg)", async () => {
    expect(await rates(h, '?assets=ETH&currency=USD')).toEqual({ ETH: { USD: '2500.12345678' } });
    // The catalogue id, without a balance read (that would cache the USDC quote the next tests rely on).
    const usdt = h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDT')!.id;
    await chainOf(h, 'devnet-eth').sendToken('USDT', w().address, '1');
    const res = await h.api('POST', `/v1/wallets/${w().id}/withdraw/network-fee`, {
      key: w().apiKey,
      body: { assetId: usdt, address: chainOf(h, 'devnet-eth').faucet, amount: '0.5' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { nativeBalance, nativeBalanceInUSD } = res.body.data as { nativeBalance: string; nativeBalanceInUSD: string };
    // Integer arithmetic: wei x 250012345678 / 10^8, shown with 18 decimals at most, rounded down.
    const wei = parseUnits(nativeBalance, 18);
    expect(wei).toBeGreaterThan(0n);
    expect(parseUnits(nativeBalanceInUSD, 18)).toBe((wei * 250_012_345_678n) / 100_000_000n);
  });

  it('reuses a feed read for RATES_CACHE_MS rather than reading the feed on every request', async () => {
    await feeds.setPrice('devnet-eth', 'USDT', '0.5');
    expect(await rates(h, '?assets=USDT')).toEqual({ USDT: { USD: '0.9998' } });
  });

  it('never serves a cached rate past its staleness limit, and the peg never stands in for a stale feed', async () => {
    // A round that reaches its limit (heartbeat, grace 0) four seconds from now.
    const updatedAt = nowS() - BigInt(DEVNET_FEED_HEARTBEAT) + 4n;
    await feeds.postRound('devnet-eth', 'USDC', { answer: 100_010_000n, startedAt: updatedAt, updatedAt });
    expect(await rates(h, '?assets=USDC')).toEqual({ USDC: { USD: '1.0001' } });
    const limit = Number(updatedAt + BigInt(DEVNET_FEED_HEARTBEAT)) * 1000;
    await sleep(Math.max(0, limit - Date.now()) + 1_100);
    expect(await rates(h, '?assets=USDC,PYUSD')).toEqual({ USDC: { USD: null }, PYUSD: { USD: '1' } });
  });
});
