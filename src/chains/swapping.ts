/**
 * The seam's swap side (chains/types.ts re-exports it): what the service needs of a DEX for
 * auto-settlement, in domain terms.
 */

/*
 * What the service needs of a DEX, in domain terms: quotes over candidate routes, the calls
 * that perform a swap (token approval and the swap itself), and the output a mined swap
 * delivered. registry.ts's swapProviderFor() picks a family's implementation (today a
 * Uniswap V2 style router on EVM, chains/evm/swap-v2.ts).
 */

/** One candidate route, quoted against the pools' current state. */
export interface SwapQuote {
  /** Token addresses from input to output; hops = path.length - 1. */
  path: string[];
  /** What the swap gives now, fees and price impact included (the router's getAmountsOut). */
  amountOut: bigint;
  /** What the pools' mid prices give, before fees and price impact. */
  midAmountOut: bigint;
  /** Gas a swap along this path is expected to use (for CHEAPEST and for gas top-ups). */
  gas: bigint;
}

/** A call a swap makes (an approval, the swap itself), as an intent without its parties. */
export interface SwapCall {
  kind: 'call';
  to: string;
  data: string;
  value: bigint;
}

export interface SwapProvider {
  readonly kind: string;
  /** The contract that pulls the input token: the approval's spender. */
  readonly spender: string;
  /** Quotes the direct route and, where the router has a wrapped native coin, the route through it. */
  quote(tokenIn: string, tokenOut: string, amountIn: bigint): Promise<SwapQuote[]>;
  /** Converts native coin (wei) into `token` units at the pools' mid price; null when no pool prices it. */
  nativeValueIn(token: string, wei: bigint): Promise<bigint | null>;
  allowance(token: string, owner: string): Promise<bigint>;
  approveCall(token: string, amount: bigint): SwapCall;
  swapCall(p: { path: string[]; amountIn: bigint; amountOutMin: bigint; recipient: string; deadline: bigint }): SwapCall;
  /** Units of `tokenOut` the mined transaction `hash` transferred to `recipient`; null when unknown. */
  outputOf(hash: string, tokenOut: string, recipient: string): Promise<bigint | null>;
}
