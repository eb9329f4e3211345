/**
 * The hot path of balance reads: one Multicall3 `aggregate3` eth_call for a batch of
 * (owner, token) pairs, encoded and decoded here.
 *
 * Why not viem's `multicall` (still used for everything else): profiled under the balance
 * benchmark, it hashed the same function signatures again for every call (keccak per
 * selector) and its general ABI coder cost ~50 us per encode and per decode, for a layout
 * that is fixed. The selectors here are constants and the layout is the ABI's for
 * `aggregate3((address,bool,bytes)[])` returning `(bool,bytes)[]`; the tests check both
 * against viem's own encoder and decoder on random inputs.
 */
import type { Hex } from 'viem';
import type { BalanceQuery } from '../types.js';
import { RpcError } from './json-rpc-http.js';

/** aggregate3((address,bool,bytes)[]) */
export const AGGREGATE3_SELECTOR = '0x82ad56cb';
/** balanceOf(address) */
export const BALANCE_OF_SELECTOR = '0x70a08231';
/** Multicall3's getEthBalance(address) */
export const GET_ETH_BALANCE_SELECTOR = '0x4d2301cc';

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const word = (n: number) => n.toString(16).padStart(64, '0');
const address = (a: string) => {
  if (!HEX_ADDRESS.test(a)) throw new RpcError('balance read: not an address');
  return a.slice(2).toLowerCase().padStart(64, '0');
};
/** One call's tuple: target, allowFailure, offset of callData (3 words), its length (36), then selector + owner padded to 64 bytes. */
const TUPLE_BYTES = 6 * 32;
const tupleHead = (allowFailure: boolean) => `${word(allowFailure ? 1 : 0)}${word(0x60)}${word(36)}`;
const CALLDATA_PAD = '0'.repeat(56);

/**
 * Calldata of one aggregate3 call reading every query. Without `allowFailure` one failing call
 * fails them all (an error); with it, each call answers alone (decodeBalanceResultsSettled).
 */
export function encodeBalanceCalls(multicall3: string, queries: readonly BalanceQuery[], allowFailure = false): Hex {
  const n = queries.length;
  const head = tupleHead(allowFailure);
  const parts = [AGGREGATE3_SELECTOR, word(0x20), word(n)];
  for (let i = 0; i < n; i++) parts.push(word(32 * n + TUPLE_BYTES * i));
  for (const q of queries) {
    const owner = address(q.owner);
    const [target, selector] = q.token ? [q.token, BALANCE_OF_SELECTOR] : [multicall3, GET_ETH_BALANCE_SELECTOR];
    parts.push(address(target), head, selector.slice(2), owner, CALLDATA_PAD);
  }
  return parts.join('') as Hex;
}

/**
 * The balances of an aggregate3 result, in call order, null for a call that failed or did not
 * answer one uint256 (a "token" without code answers success with no data: never read that as
 * a balance); a malformed result as a whole is an error.
 */
export function decodeBalanceResultsSettled(data: Hex, expected: number): (bigint | null)[] {
  const hex = data.slice(2);
  const bytes = hex.length / 2;
  if (!/^0x[0-9a-fA-F]*$/.test(data) || hex.length % 64 !== 0) throw new RpcError('multicall returned malformed data');
  const at = (pos: number): bigint => {
    if (!Number.isSafeInteger(pos) || pos < 0 || pos + 32 > bytes) throw new RpcError('multicall returned malformed data');
    return BigInt(`0x${hex.slice(pos * 2, pos * 2 + 64)}`);
  };
  const offset = (pos: number, base: number) => base + Number(at(pos));
  const array = offset(0, 0);
  const n = Number(at(array));
  if (n !== expected) throw new RpcError(`multicall returned ${n} results for ${expected} calls`);
  const out: (bigint | null)[] = [];
  for (let i = 0; i < n; i++) {
    const tuple = offset(array + 32 + 32 * i, array + 32);
    const success = at(tuple);
    const returnData = offset(tuple + 32, tuple);
    out.push(success === 1n && at(returnData) === 32n ? at(returnData + 32) : null);
  }
  return out;
}
