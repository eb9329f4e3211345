/**
 * Swaps for auto-settlement: one provider per chain that has a router configured, and the
 * plan of a swap (route, reference, minimum output) per quote.ts's rules.
 */
import type { DbConn } from '../../db/pool.js';
import type { Logger } from '../../lib/logger.js';
import type { NetworkData, SwapProvider, SwapQuote } from '../../chains/types.js';
import { swapProviderFor } from '../../chains/registry.js';
import type { CatalogueService } from '../catalogue/service.js';
import type { Order } from './types.js';
import { chooseRoute, minimumOut, parValue } from './quote.js';
import * as store from './store.js';

export interface SwapAsset {
  address: string;
  decimals: number;
  symbol: string;
  currency: string | null;
}

export interface SwapPlan {
  provider: SwapProvider;
  route: SwapQuote;
  /** What amountOutMin was measured against: 'par' or 'mid' (see quote.ts). */
  referenceKind: 'par' | 'mid' | 'quote';
  reference: bigint;
  amountOutMin: bigint;
  /** Every route that was quoted, for the record. */
  candidates: { path: string[]; amountOut: string }[];
}

export type PlanResult =
  { ok: true; plan: SwapPlan } | { ok: false; reason: string; plan?: Omit<SwapPlan, 'amountOutMin'> & { amountOutMin: bigint } };

export class SwapService {
  readonly #providers = new Map<string, SwapProvider | null>();

  constructor(
    private readonly catalogue: CatalogueService,
    private readonly logger: Logger,
  ) {}

  provider(chainId: string): SwapProvider | null {
    if (!this.#providers.has(chainId)) this.#providers.set(chainId, swapProviderFor(this.catalogue.chain(chainId).adapter));
    return this.#providers.get(chainId)!;
  }

  available(chainId: string): boolean {
    return this.provider(chainId) !== null;
  }

  /**
   * The sender's swap lock (store.lockSender), which API swaps take to look at the sender's
   * other swaps and write theirs: an auto-settlement's swap takes it too, so that neither
   * signs on an allowance the other is about to move (docs/settlement.md).
   */
  lockSender(tx: DbConn, chainId: string, sender: string): Promise<void> {
    return store.lockSender(tx, chainId, sender);
  }

  /**
   * What an auto-settlement from the sender must weigh of its API swaps, under lockSender:
   * one in flight (`pending`: wait for it) or written since `since` (`moved`: plan again).
   */
  seenBySettlement(db: DbConn, sender: store.SwapSender, since: Date | null = null): Promise<{ pending: boolean; moved: boolean }> {
    return store.apiSwapsOf(db, sender, since);
  }

  /**
   * Quotes `amountIn` of `from` into `to`, picks the route by `order` and sets the minimum
   * output. `feeOf` (what a transaction signed with that network data costs in the native
   * coin, at the caller's fee quote) values each route's network fee for CHEAPEST. A failure
   * says why nothing can be sent.
   */
  async plan(
    chainId: string,
    p: { from: SwapAsset; to: SwapAsset; amountIn: bigint; order: Order; slippage: string; feeOf: (network: NetworkData) => bigint },
  ): Promise<PlanResult> {
    const provider = this.provider(chainId);
    if (!provider) return { ok: false, reason: 'no swap router is configured for this chain' };
    const quotes = await provider.quote(p.from.address, p.to.address, p.amountIn);
    const feeValue = new Map<SwapQuote, bigint | null>();
    if (p.order === 'CHEAPEST') for (const q of quotes) feeValue.set(q, await provider.nativeValueIn(p.to.address, p.feeOf(q.network)));
    const route = chooseRoute(quotes, p.order, (q) => feeValue.get(q) ?? null);
    const candidates = quotes.map((q) => ({ path: q.path, amountOut: q.amountOut.toString() }));
    if (!route || route.amountOut === 0n) return { ok: false, reason: `no pool can swap ${p.from.symbol} into ${p.to.symbol}` };

    if (p.order === 'NO_SLIPPAGE') {
      return {
        ok: true,
        plan: { provider, route, referenceKind: 'quote', reference: route.amountOut, amountOutMin: route.amountOut, candidates },
      };
    }
    const par = p.from.currency !== null && p.from.currency === p.to.currency;
    const reference = par ? parValue(p.amountIn, p.from.decimals, p.to.decimals) : route.midAmountOut;
    const amountOutMin = minimumOut(reference, p.slippage);
    const plan: SwapPlan = { provider, route, referenceKind: par ? 'par' : 'mid', reference, amountOutMin, candidates };
    if (route.amountOut < amountOutMin) {
      this.logger.info(
        { chainId, quote: route.amountOut.toString(), amountOutMin: amountOutMin.toString() },
        'swap refused: slippage bound not met',
      );
      return {
        ok: false,
        reason: `the pool gives ${route.amountOut} ${p.to.symbol} base units, below the ${amountOutMin} that a slippage tolerance of ${p.slippage}% allows`,
        plan,
      };
    }
    return { ok: true, plan };
  }
}
