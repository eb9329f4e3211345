/**
 * Constant (read-only) contract calls on a Tron node: `/wallet/triggerconstantcontract` runs
 * the call in the TVM as of the head (pending state included, as java-tron's full node shows
 * it) and answers `constant_result`, with no transaction and no fee. The TRC-20 reads the
 * family needs (balanceOf, decimals, allowance) and Multicall3's aggregate3 go through here.
 */
import type { TronNode } from './node.js';
import { tronHex } from './codec.js';

/**
 * The caller of every constant call: the zero address (T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb),
 * as TronGrid's examples use. A constant call needs no account, so none of ours is named.
 */
export const CONSTANT_CALLER = `41${'0'.repeat(40)}`;

export interface ConstantCallJson {
  result?: { result?: boolean; code?: string; message?: string };
  constant_result?: string[];
  transaction?: { ret?: { ret?: string }[] };
  Error?: string;
}

/** What a constant call gave: its output (hex, no 0x), or why it gave none. */
export type ConstantOutcome = { ok: true; output: string } | { ok: false; why: string };

/** A 32-byte ABI word (hex, no 0x) of an address (any spelling the codec accepts). */
export function addressWord(address: string): string {
  const hex = tronHex(address);
  if (hex === null) throw new Error(`not a Tron address: ${address}`);
  return hex.slice(2).padStart(64, '0');
}

/** A 32-byte ABI word of a uint256. */
export function uintWord(n: bigint): string {
  if (n < 0n || n >= 1n << 256n) throw new Error(`not a uint256: ${n}`);
  return n.toString(16).padStart(64, '0');
}

/**
 * Runs `selector(parameter)` on `contract` as a constant call. A node failure in the body
 * (no such contract, a revert, an out-of-energy) is an outcome, not an exception; a
 * transport failure throws (TronNodeError).
 */
export async function constantCall(
  node: TronNode,
  contract: string,
  functionSelector: string,
  parameter: string,
): Promise<ConstantOutcome> {
  const contractHex = tronHex(contract);
  if (contractHex === null) return { ok: false, why: `not a Tron address: ${contract}` };
  const res = await node.post<ConstantCallJson>('wallet/triggerconstantcontract', {
    owner_address: CONSTANT_CALLER,
    contract_address: contractHex,
    function_selector: functionSelector,
    parameter,
    visible: false,
  });
  if (res.Error) return { ok: false, why: res.Error };
  if (res.result?.result !== true) return { ok: false, why: `${res.result?.code ?? 'no result'}: ${textOf(res.result?.message)}` };
  if (res.transaction?.ret?.[0]?.ret === 'FAILED') return { ok: false, why: `reverted: ${textOf(res.result.message)}` };
  const output = res.constant_result?.[0];
  if (typeof output !== 'string' || !/^([0-9a-fA-F]{2})*$/.test(output)) return { ok: false, why: 'no constant_result' };
  return { ok: true, output: output.toLowerCase() };
}

/** One uint256 out of a call's output; null when the output is not exactly one word. */
export function uintOutput(output: string): bigint | null {
  return /^[0-9a-f]{64}$/.test(output) ? BigInt(`0x${output}`) : null;
}

const textOf = (m: unknown) =>
  typeof m === 'string' && /^([0-9a-fA-F]{2})+$/.test(m) ? Buffer.from(m, 'hex').toString('utf8') : String(m ?? '');

/** Runs `fn` over `items` with at most `limit` at a time; results in item order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
