/**
 * AML screening's on-chain reads on EVM chains (chains/screening.ts): the issuers' blacklist
 * functions of the stablecoin contracts and the SanctionsList oracle's isSanctioned, all
 * (read x address) pairs in one Multicall3 aggregate3 per chunk (flag-calls.ts); without a
 * Multicall3, one eth_call per pair, a few at a time.
 */
import type { Hex } from 'viem';
import { decodeFlagResults, encodeFlagCalls, readFlags, type FlagCall } from '../flag-calls.js';
import type { ListRead, ScreeningReads } from '../screening.js';

/** Pairs in flight at once without a Multicall3. */
const CONCURRENCY = 8;

/** eth_call of `data` to `to` at the latest block; rejects with the node's error (a revert included). */
export type EthCall = (to: string, data: string) => Promise<Hex>;

export class EvmScreening implements ScreeningReads {
  constructor(
    private readonly call: EthCall,
    private readonly multicall3: string | null,
    /** Whether an error of `call` is the call's own revert (an answer: "no such function") rather than the node failing. */
    private readonly isRevert: (err: unknown) => boolean,
  ) {}

  supports(_read: ListRead): boolean {
    return true;
  }

  read(reads: readonly ListRead[], addresses: readonly string[]): Promise<(boolean[] | Error)[]> {
    return readFlags(reads, addresses, (a) => a, this.multicall3 ? (calls) => this.#aggregate(calls) : (calls) => this.#oneByOne(calls));
  }

  async #aggregate(calls: FlagCall[]): Promise<(boolean | null)[]> {
    return decodeFlagResults(await this.call(this.multicall3!, encodeFlagCalls(calls)), calls.length);
  }

  async #oneByOne(calls: FlagCall[]): Promise<(boolean | null)[]> {
    const out = new Array<boolean | null>(calls.length);
    let next = 0;
    const worker = async () => {
      while (next < calls.length) {
        const i = next++;
        const c = calls[i]!;
        try {
          const data = await this.call(c.target, `${c.selector}${c.arg.slice(2).toLowerCase().padStart(64, '0')}`);
          out[i] = /^0x[0-9a-fA-F]{64}$/.test(data) ? BigInt(data) !== 0n : null;
        } catch (err) {
          if (!this.isRevert(err)) throw err;
          out[i] = null;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, calls.length) }, worker));
    return out;
  }
}
