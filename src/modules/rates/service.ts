/**
 * USD rates, from the one source the operator configures: each asset's price feed on its
 * chain (Chainlink AggregatorV3, judged in quote.ts), or, only where RATES_PEG_FALLBACK
 * allows it, the peg of a USD stablecoin that has no feed. Nothing else: no invented rate,
 * no stale one (a feed's answer is reused for RATES_CACHE_MS at most, and never past its
 * staleness limit). Balances' `convertedBalance`, transactions' `amountUSD` / `rateUSD` and
 * `GET /v1/assets/rates` all come from here.
 */
import type { RateSettings } from '../../config/index.js';
import { capability } from '../../chains/registry.js';
import { AppError, UpstreamError, ValidationError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { AuthContext } from '../apikeys/service.js';
import type { AssetHandle, CatalogueService } from '../catalogue/service.js';
import type { WalletService } from '../wallets/service.js';
import { judgeRound, PEG_QUOTE, type Lookup, type UsdQuote } from './quote.js';

export type { UsdQuote } from './quote.js';
// Other modules value amounts in USD through these (the house rules: only through service.ts).
export { rateText, usdValue } from './quote.js';

export const DEFAULT_RATE_SETTINGS: RateSettings = { pegFallback: false, cacheMs: 5_000, graceSeconds: 600 };

/** The currencies rates are quoted in: the feeds are X / USD. */
export const RATE_CURRENCIES = ['USD'] as const;

interface Cached {
  lookup: Lookup;
  expires: number;
}

export class RateService {
  /** Asset id -> the latest judged read of its feed, until RATES_CACHE_MS (or its staleness limit) passes. */
  readonly #reads = new Map<string, Cached>();
  readonly #inflight = new Map<string, Promise<Lookup>>();
  /** Asset id -> the latest usable quote of its feed, for `cached` (dropped once a read refuses the feed). */
  readonly #good = new Map<string, UsdQuote>();

  constructor(
    private readonly catalogue: CatalogueService,
    private readonly wallets: WalletService,
    private readonly logger: Logger,
    readonly settings: RateSettings = DEFAULT_RATE_SETTINGS,
    /**
     * Wall-clock time, not the services' schedule clock: a feed's `updatedAt` is chain time,
     * which follows the real one, and a test's fake clock must not make a live feed look stale.
     */
    private readonly now: () => number = Date.now,
  ) {}

  /** The asset's USD quote, or why it has none. A chain that cannot be reached is `UNAVAILABLE`, not an error. */
  async lookup(asset: AssetHandle): Promise<Lookup> {
    const feed = asset.priceFeed;
    if (!feed) {
      if (this.settings.pegFallback && asset.row.currency === 'USD') return { quote: PEG_QUOTE };
      return { quote: null, reason: 'NO_SOURCE', detail: `no price feed is configured for ${asset.row.symbol} on ${asset.chain.key}` };
    }
    const id = asset.row.id;
    const hit = this.#reads.get(id);
    if (hit && this.now() < hit.expires) return hit.lookup;
    let pending = this.#inflight.get(id);
    if (!pending) {
      pending = this.#read(asset, feed).finally(() => this.#inflight.delete(id));
      this.#inflight.set(id, pending);
    }
    return pending;
  }

  async #read(asset: AssetHandle, feed: NonNullable<AssetHandle['priceFeed']>): Promise<Lookup> {
    const id = asset.row.id;
    let lookup: Lookup;
    try {
      const round = await capability(asset.chain.adapter, 'priceFeeds').readPriceFeed(feed.address);
      lookup = round
        ? judgeRound(round, feed.heartbeat, this.settings.graceSeconds, this.now())
        : { quote: null, reason: 'INVALID', detail: `${feed.address} does not answer as a price feed` };
    } catch (err) {
      // The node, not the feed: the last usable answer stays good until its own limit.
      if (!(err instanceof AppError && err.retryable)) this.logger.error({ err, asset: id }, 'reading a price feed failed');
      const last = this.cached(id);
      return last ? { quote: last } : { quote: null, reason: 'UNAVAILABLE', detail: (err as Error).message };
    }
    const now = this.now();
    if (lookup.quote) this.#good.set(id, lookup.quote);
    else {
      this.#good.delete(id);
      this.logger.warn({ asset: id, symbol: asset.row.symbol, chain: asset.chain.key, detail: lookup.detail }, 'price feed refused');
    }
    const expires = Math.min(now + this.settings.cacheMs, lookup.quote ? lookup.quote.validUntil : Infinity);
    if (this.settings.cacheMs > 0) this.#reads.set(id, { lookup, expires });
    return lookup;
  }

  async usd(asset: AssetHandle): Promise<UsdQuote | null> {
    return (await this.lookup(asset)).quote;
  }

  /**
   * Reads the quotes of these assets (catalogue ids), so that `cached` has them: before a
   * database transaction, which must not wait on a chain. Never fails.
   */
  async prefetch(assetIds: string[]): Promise<void> {
    const assets = [...new Set(assetIds)].flatMap((id) => this.catalogue.asset(id) ?? []);
    await Promise.all(assets.map((a) => this.lookup(a)));
  }

  /** The asset's quote without reading a chain: the last usable feed answer still within its limit, or the peg. */
  cached(assetId: string): UsdQuote | null {
    const asset = this.catalogue.asset(assetId);
    if (!asset) return null;
    if (!asset.priceFeed) return this.settings.pegFallback && asset.row.currency === 'USD' ? PEG_QUOTE : null;
    const quote = this.#good.get(assetId);
    return quote && this.now() < quote.validUntil ? quote : null;
  }

  /**
   * `GET /v1/assets/rates`: symbol -> { currency -> quote or null }. A symbol is quoted from
   * the first of its assets (the caller's wallet's chain first, then the others) whose feed
   * gives a usable answer; the peg only when none of them has a feed. Unknown symbols and
   * currencies are the client's mistake (400); a symbol whose every feed sits on chains that
   * cannot be reached is a 503, as for other chain reads.
   */
  async symbolRates(
    auth: AuthContext,
    symbols: string[] | undefined,
    currency: string,
  ): Promise<Record<string, Record<string, UsdQuote | null>>> {
    const wanted = currency.toUpperCase();
    if (!(RATE_CURRENCIES as readonly string[]).includes(wanted)) {
      throw new ValidationError(`currency ${currency} is not supported: rates are quoted in ${RATE_CURRENCIES.join(', ')}`, [
        { field: 'currency', message: `must be one of ${RATE_CURRENCIES.join(', ')}` },
      ]);
    }
    const assets = this.catalogue.activeAssets();
    const canonical = new Map<string, string>();
    for (const a of assets) if (!canonical.has(a.row.symbol.toUpperCase())) canonical.set(a.row.symbol.toUpperCase(), a.row.symbol);
    const asked = symbols ?? [...canonical.values()].sort();
    const unknown = asked.filter((s) => !canonical.has(s.toUpperCase()));
    if (unknown.length) {
      throw new ValidationError(`assets: unknown asset symbol ${unknown.join(', ')}`, [
        { field: 'assets', message: `no asset ${unknown.join(', ')} on this installation (GET /v1/assets lists them)` },
      ]);
    }
    const preferred = auth.walletId ? (await this.wallets.requireRef(auth, auth.walletId)).chain_id : null;
    const out: Record<string, Record<string, UsdQuote | null>> = {};
    const names = [...new Set(asked.map((s) => canonical.get(s.toUpperCase())!))];
    const quotes = await Promise.all(
      names.map((name) => {
        const candidates = assets
          .filter((a) => a.row.symbol.toUpperCase() === name.toUpperCase())
          .sort((a, b) => Number(b.chain.id === preferred) - Number(a.chain.id === preferred));
        return this.#ofSymbol(name, candidates, wanted);
      }),
    );
    names.forEach((name, i) => (out[name] = { [wanted]: quotes[i]! }));
    return out;
  }

  async #ofSymbol(name: string, candidates: AssetHandle[], currency: string): Promise<UsdQuote | null> {
    const withFeed = candidates.filter((a) => a.priceFeed);
    if (withFeed.length === 0) {
      return this.settings.pegFallback && candidates.some((a) => a.row.currency === currency) ? PEG_QUOTE : null;
    }
    const failures: string[] = [];
    for (const asset of withFeed) {
      const lookup = await this.lookup(asset);
      if (lookup.quote) return lookup.quote;
      if (lookup.reason === 'UNAVAILABLE') failures.push(lookup.detail);
    }
    // Stale or refused feeds are an answer ("no rate"); unreachable chains are not.
    if (failures.length === withFeed.length) throw new UpstreamError('CHAIN_UNAVAILABLE', `No rate for ${name}: ${failures.join('; ')}`);
    return null;
  }
}
