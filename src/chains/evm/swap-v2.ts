/**
 * Uniswap V2 style router (Router02 interface: Uniswap V2, PancakeSwap V2, QuickSwap, our
 * devnet contracts/Swap.sol): quotes with getAmountsOut, mid prices from the pairs' reserves,
 * swaps with swapExactTokensForTokens.
 */
import {
  encodeFunctionData,
  erc20Abi,
  getAddress,
  parseAbi,
  parseEventLogs,
  zeroAddress,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import type { NetworkData, SwapCall, SwapProvider, SwapQuote, TxIntent } from '../types.js';
import { TRANSFER_GAS } from './sender.js';

const routerAbi = parseAbi([
  'function factory() view returns (address)',
  'function WETH() view returns (address)',
  'function getAmountsOut(uint256 amountIn, address[] path) view returns (uint256[] amounts)',
  'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[] amounts)',
]);
const factoryAbi = parseAbi(['function getPair(address tokenA, address tokenB) view returns (address)']);
const pairAbi = parseAbi([
  'function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)',
  'function token0() view returns (address)',
]);

/** Gas of a V2 swap: about 100k for the first hop and 60k per further hop on mainnet; with margin. */
export const SWAP_GAS_BASE = 160_000n;
export const SWAP_GAS_PER_HOP = 90_000n;
/** Gas of an ERC-20 approval: generous for any token (a child's top-up pays for it in advance). */
export const APPROVE_GAS = 80_000n;
/** A child's transfer of a swap's output is signed before its amount exists: generous for any ERC-20. */
const TOKEN_TRANSFER_GAS = 100_000n;

/** The swap along `path` (its hops). */
const swapGas = (path: readonly string[]) => SWAP_GAS_BASE + SWAP_GAS_PER_HOP * BigInt(path.length - 2);
const limited = (gas: bigint): NetworkData => ({ gasLimit: gas.toString() });
const limitOf = (network: NetworkData) => BigInt(network.gasLimit ?? 0);

/** The swaps capability of an EVM chain whose chains file names a router (`swapRouter`); null without one. */
export function createSwapProvider(client: PublicClient, router: string | null | undefined): SwapProvider | null {
  return router ? new UniswapV2Provider(client, getAddress(router)) : null;
}

class UniswapV2Provider implements SwapProvider {
  readonly kind = 'uniswap-v2';
  #factory: Promise<Address> | undefined;
  #weth: Promise<Address | null> | undefined;

  constructor(
    private readonly client: PublicClient,
    readonly spender: Address,
  ) {}

  async quote(tokenIn: string, tokenOut: string, amountIn: bigint): Promise<SwapQuote[]> {
    const a = getAddress(tokenIn);
    const b = getAddress(tokenOut);
    const weth = await this.#wrappedNative();
    const paths: Address[][] = [[a, b]];
    if (weth && weth !== a && weth !== b) paths.push([a, weth, b]);
    const quotes = await Promise.all(paths.map((p) => this.#quotePath(p, amountIn)));
    return quotes.filter((q): q is SwapQuote => q !== null);
  }

  async nativeValueIn(token: string, amount: bigint): Promise<bigint | null> {
    const weth = await this.#wrappedNative();
    if (!weth || amount === 0n) return amount === 0n ? 0n : null;
    const reserves = await this.#reserves(weth, getAddress(token));
    return reserves ? (amount * reserves.out) / reserves.in : null;
  }

  async allowance(token: string, owner: string): Promise<bigint> {
    return this.client.readContract({
      address: getAddress(token),
      abi: erc20Abi,
      functionName: 'allowance',
      args: [getAddress(owner), this.spender],
    });
  }

  approveCall(token: string, amount: bigint): SwapCall {
    return {
      kind: 'call',
      to: getAddress(token),
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [this.spender, amount] }),
      value: 0n,
      network: limited(APPROVE_GAS),
    };
  }

  swapCall(p: { path: string[]; amountIn: bigint; amountOutMin: bigint; recipient: string; deadline: bigint }): SwapCall {
    return {
      kind: 'call',
      to: this.spender,
      data: encodeFunctionData({
        abi: routerAbi,
        functionName: 'swapExactTokensForTokens',
        args: [p.amountIn, p.amountOutMin, p.path.map((x) => getAddress(x)), getAddress(p.recipient), p.deadline],
      }),
      value: 0n,
      network: limited(swapGas(p.path)),
    };
  }

  probe(from: string): { intent: TxIntent; network: NetworkData } {
    return { intent: { kind: 'native', from, to: from, amount: 0n }, network: limited(TRANSFER_GAS) };
  }

  outputTransferLimit(native: boolean): bigint {
    return native ? TRANSFER_GAS : TOKEN_TRANSFER_GAS;
  }

  legs(p: { path: string[]; approvals: number; more?: NetworkData[] }): NetworkData {
    const more = (p.more ?? []).reduce((sum, n) => sum + limitOf(n), 0n);
    return limited(swapGas(p.path) + BigInt(p.approvals) * APPROVE_GAS + more);
  }

  async outputOf(hash: string, tokenOut: string, recipient: string): Promise<bigint | null> {
    const receipt = await this.client.getTransactionReceipt({ hash: hash as Hex }).catch(() => null);
    if (!receipt || receipt.status !== 'success') return null;
    const token = getAddress(tokenOut);
    const to = getAddress(recipient);
    const logs = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs, strict: false });
    let total = 0n;
    for (const log of logs) {
      if (getAddress(log.address) === token && log.args.to && getAddress(log.args.to) === to) total += log.args.value ?? 0n;
    }
    return total;
  }

  /** null when a pair of the path is missing or empty (the router reverts). */
  async #quotePath(path: Address[], amountIn: bigint): Promise<SwapQuote | null> {
    let amounts: readonly bigint[];
    try {
      amounts = await this.client.readContract({
        address: this.spender,
        abi: routerAbi,
        functionName: 'getAmountsOut',
        args: [amountIn, path],
      });
    } catch {
      return null;
    }
    let mid = amountIn;
    for (let i = 0; i < path.length - 1; i++) {
      const r = await this.#reserves(path[i]!, path[i + 1]!);
      if (!r) return null;
      mid = (mid * r.out) / r.in;
    }
    return { path, amountOut: amounts[amounts.length - 1]!, midAmountOut: mid, network: limited(swapGas(path)) };
  }

  async #reserves(tokenIn: Address, tokenOut: Address): Promise<{ in: bigint; out: bigint } | null> {
    const factory = await (this.#factory ??= this.client.readContract({ address: this.spender, abi: routerAbi, functionName: 'factory' }));
    const pair = await this.client.readContract({ address: factory, abi: factoryAbi, functionName: 'getPair', args: [tokenIn, tokenOut] });
    if (pair === zeroAddress) return null;
    const [[r0, r1], token0] = await Promise.all([
      this.client.readContract({ address: pair, abi: pairAbi, functionName: 'getReserves' }),
      this.client.readContract({ address: pair, abi: pairAbi, functionName: 'token0' }),
    ]);
    if (r0 === 0n || r1 === 0n) return null;
    return getAddress(token0) === tokenIn ? { in: r0, out: r1 } : { in: r1, out: r0 };
  }

  /** The router's wrapped native coin, read once; null when it has none. */
  #wrappedNative(): Promise<Address | null> {
    this.#weth ??= this.client
      .readContract({ address: this.spender, abi: routerAbi, functionName: 'WETH' })
      .then((w) => (w === zeroAddress ? null : getAddress(w)))
      .catch(() => null);
    return this.#weth;
  }
}
