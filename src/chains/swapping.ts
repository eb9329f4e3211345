/**
 * The seam's swap side (chains/types.ts re-exports it): what the service needs of a DEX for
 * API swaps and auto-settlement, in domain terms.
 */
import type { TxIntent } from './intents.js';
import type { NetworkData } from './network-data.js';

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
  /**
   * What a swap along this path is signed with (opaque: EVM its fixed gas limit), so its fee
   * can be priced at a quote's fees (Sender.requote) for CHEAPEST.
   */
  network: NetworkData;
}

/** A call a swap makes (an approval, the swap itself), as an intent without its parties. */
export interface SwapCall {
  kind: 'call';
  to: string;
  data: string;
  value: bigint;
  /**
   * What it must be signed with (opaque: EVM its gas limit, fixed because estimating a swap
   * before its approval is mined would revert).
   */
  network: NetworkData;
}

export interface SwapProvider {
  readonly kind: string;
  /** The contract that pulls the input token: the approval's spender. */
  readonly spender: string;
  /** Quotes the direct route and, where the router has a wrapped native coin, the route through it. */
  quote(tokenIn: string, tokenOut: string, amountIn: bigint): Promise<SwapQuote[]>;
  /** Converts an amount of the native coin (base units) into `token` units at the pools' mid price; null when no pool prices it. */
  nativeValueIn(token: string, amount: bigint): Promise<bigint | null>;
  allowance(token: string, owner: string): Promise<bigint>;
  approveCall(token: string, amount: bigint): SwapCall;
  swapCall(p: { path: string[]; amountIn: bigint; amountOutMin: bigint; recipient: string; deadline: bigint }): SwapCall;
  /**
   * A payment that moves nothing, from `from`, with the network data it is signed with: what
   * the fees of a swap's transactions are quoted on, and what a child's top-up from its
   * master costs.
   */
  probe(from: string): { intent: TxIntent; network: NetworkData };
  /**
   * The network data of several of a swap's transactions taken together (what they can cost
   * at most at a quote's fees; what a child's top-up pays for): the swap along `path`,
   * `approvals` approvals before it, and `more` (other transactions paid for the same way).
   */
  legs(p: { path: string[]; approvals: number; more?: NetworkData[] }): NetworkData;
  /**
   * The limit, in the family's units, of a transfer of the swap's output signed by a child
   * after the swap: fixed, since the amount exists only once the swap is mined (nothing to
   * estimate at planning), and enough for any plain transfer of the coin or of a token.
   */
  outputTransferLimit(native: boolean): bigint;
  /** Units of `tokenOut` the mined transaction `hash` transferred to `recipient`; null when unknown. */
  outputOf(hash: string, tokenOut: string, recipient: string): Promise<bigint | null>;
}
