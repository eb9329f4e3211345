/**
 * Balance reads on an EVM chain: with Multicall3, concurrent reads of the chain's catalogued
 * tokens and native coin share aggregate3 calls (BalanceBatcher), each call answering alone
 * (allowFailure), so one query that fails fails only its own callers; without Multicall3,
 * one call per query.
 *
 * A token outside the catalogue is a contract a client named (an asset recovery's): its
 * balanceOf may revert, answer nothing, or spend the gas of the whole call (Multicall3
 * forwards most of what is left to each call, and the loop then runs out). Such a query is
 * read in a call of its own, never in a batch with other wallets' reads, so no client can fail
 * or slow another business's balance reads by the contract it names.
 */
import { erc20Abi, type Address, type Hex, type PublicClient } from 'viem';
import type { ChainConfig } from '../../config/index.js';
import { UpstreamError } from '../../lib/errors.js';
import { addressKey } from '../address-key.js';
import { BalanceBatcher } from '../balance-batcher.js';
import { ChainRejectedError } from '../errors.js';
import type { BalanceQuery } from '../types.js';
import type { JsonRpcPoster } from './json-rpc-http.js';
import { decodeBalanceResultsSettled, encodeBalanceCalls } from './multicall-balances.js';

const multicallAbi = [
  {
    type: 'function',
    name: 'getEthBalance',
    stateMutability: 'view',
    inputs: [{ name: 'addr', type: 'address' }],
    outputs: [{ name: 'balance', type: 'uint256' }],
  },
] as const;

export class EvmBalances {
  readonly #batcher = new BalanceBatcher((queries) => this.#readSettled(queries));
  /** The catalogued tokens' addresses (addressKey): the contracts whose reads share calls. */
  readonly #catalogued: ReadonlySet<string>;

  constructor(
    private readonly config: ChainConfig,
    private readonly client: PublicClient,
    /** The hot path's own keep-alive connections (multicall-balances.ts); null: viem's multicall. */
    private readonly rpc: JsonRpcPoster | null,
    private readonly failed: (err: unknown) => UpstreamError,
  ) {
    this.#catalogued = new Set(config.assets.filter((a) => !a.isNative).map((a) => addressKey(a.address)));
  }

  async read(queries: BalanceQuery[]): Promise<bigint[]> {
    if (queries.length === 0) return [];
    if (!this.config.multicall3) return this.#oneByOne(queries);
    const apart = queries.map((q) => q.token !== null && !this.#catalogued.has(addressKey(q.token)));
    if (!apart.includes(true)) return this.#batcher.load(queries);
    const [shared, own] = await Promise.all([
      this.#batcher.load(queries.filter((_q, i) => !apart[i])),
      this.#readSettled(queries.filter((_q, i) => apart[i])),
    ]);
    let s = 0;
    let o = 0;
    return queries.map((_q, i) => {
      if (!apart[i]) return shared[s++]!;
      const v = own[o++]!;
      if (v instanceof Error) throw v;
      return v;
    });
  }

  /** One aggregate3 call; each query's balance, or its own error when its call failed. */
  async #readSettled(queries: BalanceQuery[]): Promise<(bigint | Error)[]> {
    const multicall3 = this.config.multicall3!;
    try {
      if (this.rpc) {
        const data = encodeBalanceCalls(multicall3, queries, true);
        const result = await this.rpc.call('eth_call', [{ to: multicall3, data }, 'latest']);
        return decodeBalanceResultsSettled(result as Hex, queries.length).map((v, i) => v ?? this.#unreadable(queries[i]!));
      }
      const contracts = queries.map((q) =>
        q.token
          ? { address: q.token as Address, abi: erc20Abi, functionName: 'balanceOf' as const, args: [q.owner as Address] as const }
          : {
              address: multicall3 as Address,
              abi: multicallAbi,
              functionName: 'getEthBalance' as const,
              args: [q.owner as Address] as const,
            },
      );
      const results = await this.client.multicall({ contracts, allowFailure: true, multicallAddress: multicall3 as Address });
      return results.map((r, i) => (r.status === 'success' ? (r.result as bigint) : this.#unreadable(queries[i]!)));
    } catch (err) {
      throw this.failed(err);
    }
  }

  async #oneByOne(queries: BalanceQuery[]): Promise<bigint[]> {
    try {
      return await Promise.all(
        queries.map((q) =>
          q.token
            ? this.client.readContract({
                address: q.token as Address,
                abi: erc20Abi,
                functionName: 'balanceOf',
                args: [q.owner as Address],
              })
            : this.client.getBalance({ address: q.owner as Address }),
        ),
      );
    } catch (err) {
      throw this.failed(err);
    }
  }

  /**
   * A query whose call failed or answered no uint256: the node is fine, the contract is not
   * a token that answers balanceOf (or not at that moment). A 503 like any failed read for
   * the caller that needs the balance; the cause says the call reverted, for a caller that
   * asked about a contract a client named (rejectionReason: 'reverted').
   */
  #unreadable(q: BalanceQuery): UpstreamError {
    const what = q.token ? `balanceOf(${q.owner}) on ${q.token}` : `the native balance of ${q.owner}`;
    return this.failed(new ChainRejectedError('reverted', `${what} answered no uint256`));
  }
}
