/**
 * AML screening's on-chain reads on Tron (chains/screening.ts): the TRC-20 stablecoins'
 * blacklist functions (Tether's USDT on Tron is the same TetherToken code: isBlackListed)
 * and a SanctionsList oracle where one is configured, as constant calls. With a Multicall3
 * (the chain's `multicall3`; the stand-in deploys one) every (read x address) pair goes in
 * one aggregate3 per chunk, laid out as on EVM (flag-calls.ts, 20-byte addresses); without
 * one, a constant call per pair, a few at a time.
 */
import { decodeFlagResults, encodeFlagCalls, FLAG_SIGNATURES, FLAG_SELECTORS, readFlags, type FlagCall } from '../flag-calls.js';
import type { ListRead, ScreeningReads } from '../screening.js';
import { constantCall, mapLimit } from './calls.js';
import { tronEvmHex } from './codec.js';
import type { TronNode } from './node.js';

const SIGNATURE_OF = new Map<string, string>(
  Object.entries(FLAG_SELECTORS).map(([k, sel]) => [sel, FLAG_SIGNATURES[k as keyof typeof FLAG_SELECTORS]]),
);

export class TronScreening implements ScreeningReads {
  constructor(
    private readonly node: TronNode,
    private readonly multicall: string | null,
    private readonly concurrency: number,
  ) {}

  supports(_read: ListRead): boolean {
    return true;
  }

  read(reads: readonly ListRead[], addresses: readonly string[]): Promise<(boolean[] | Error)[]> {
    return readFlags(reads, addresses, evmHex, (calls) => (this.multicall ? this.#aggregate(calls) : this.#oneByOne(calls)));
  }

  async #aggregate(calls: FlagCall[]): Promise<(boolean | null)[]> {
    // encodeFlagCalls gives selector + arguments; java-tron takes them apart.
    const data = encodeFlagCalls(calls);
    const out = await constantCall(this.node, this.multicall!, 'aggregate3((address,bool,bytes)[])', data.slice(10));
    if (!out.ok) throw new Error(`screening multicall failed: ${out.why}`);
    return decodeFlagResults(out.output, calls.length);
  }

  #oneByOne(calls: FlagCall[]): Promise<(boolean | null)[]> {
    return mapLimit(calls, this.concurrency, async (c) => {
      // 41-prefixed hex of the 20-byte form: the address word is the same bytes.
      const out = await constantCall(this.node, `41${c.target.slice(2)}`, SIGNATURE_OF.get(c.selector)!, c.arg.slice(2).padStart(64, '0'));
      return out.ok && /^[0-9a-f]{64}$/.test(out.output) ? BigInt(`0x${out.output}`) !== 0n : null;
    });
  }
}

function evmHex(address: string): string {
  const hex = tronEvmHex(address);
  if (hex === null) throw new Error(`not a Tron address: ${address}`);
  return hex;
}
