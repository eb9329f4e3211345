/**
 * Pure swap arithmetic: the constant-product output (what the pair contract computes), the
 * minimum output a slippage tolerance allows, and the choice among quoted routes.
 *
 * Slippage is measured against a reference output, not against the quote itself: a quote
 * taken a moment before sending would make any tolerance meaningless for an unattended
 * settlement (it would accept whatever a drained or skewed pool gives). The reference is
 *  - par value when both assets track the same fiat currency (USDC -> USDT: 1 for 1, scaled
 *    by decimals), so a depegged or thin pool is refused;
 *  - otherwise the pools' mid price along the route (before fees and price impact).
 * amountOutMin = reference x (1 - tolerance), rounded up. If the quote is already below it,
 * the pool cannot meet the bound and nothing is sent. NO_SLIPPAGE sets amountOutMin to the
 * exact quote: the swap executes at the quoted amount or reverts.
 */
import { parseAmount } from '../../lib/money.js';
import type { SwapQuote } from '../../chains/types.js';
import type { Order } from './types.js';

/** Uniswap V2's getAmountOut: 0.3% fee on the input, x * y = k. */
export function amountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  if (amountIn <= 0n || reserveIn <= 0n || reserveOut <= 0n) return 0n;
  const withFee = amountIn * 997n;
  return (withFee * reserveOut) / (reserveIn * 1000n + withFee);
}

/** Slippage percentages carry up to 4 decimals: work in millionths of the whole. */
const SCALE = 1_000_000n;

export function slippageMillionths(percent: string): bigint {
  return parseAmount(percent, 4, 'slippageTolerance');
}

/** reference x (1 - percent/100), rounded up so the bound is never looser than asked. */
export function minimumOut(reference: bigint, percent: string): bigint {
  const keep = SCALE - slippageMillionths(percent);
  if (keep <= 0n) return 0n;
  return (reference * keep + SCALE - 1n) / SCALE;
}

/** amountIn at par in the output asset's decimals (rounded down). */
export function parValue(amountIn: bigint, decimalsIn: number, decimalsOut: number): bigint {
  return decimalsOut >= decimalsIn
    ? amountIn * 10n ** BigInt(decimalsOut - decimalsIn)
    : amountIn / 10n ** BigInt(decimalsIn - decimalsOut);
}

/**
 * The route the order asks for:
 * - FASTEST: fewest hops (one transaction either way, but fewer pools = less to go wrong);
 *   ties by output;
 * - CHEAPEST: best output net of its network fee, the fee valued in the output asset
 *   (`feeCostOut`, null when no pool prices the native coin: then best output);
 * - RECOMMENDED and NO_SLIPPAGE: best output.
 */
export function chooseRoute(quotes: SwapQuote[], order: Order, feeCostOut: (q: SwapQuote) => bigint | null): SwapQuote | null {
  if (quotes.length === 0) return null;
  const byOutput = (a: SwapQuote, b: SwapQuote) =>
    a.amountOut === b.amountOut ? a.path.length - b.path.length : a.amountOut > b.amountOut ? -1 : 1;
  const sorted = [...quotes];
  if (order === 'FASTEST') sorted.sort((a, b) => a.path.length - b.path.length || byOutput(a, b));
  else if (order === 'CHEAPEST') {
    const net = (q: SwapQuote) => q.amountOut - (feeCostOut(q) ?? 0n);
    sorted.sort((a, b) => (net(a) === net(b) ? byOutput(a, b) : net(a) > net(b) ? -1 : 1));
  } else sorted.sort(byOutput);
  return sorted[0]!;
}
