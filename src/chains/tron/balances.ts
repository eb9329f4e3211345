/**
 * Balances on Tron in as few node calls as the node allows:
 * - with a Multicall3 deployed (the chain's `multicall3`; the stand-in deploys one), one
 *   constant call of `aggregate3` per chunk of queries: TRC-20 `balanceOf` and Multicall3's
 *   `getEthBalance` (the TVM's BALANCE opcode answers TRX in sun), the calldata laid out by
 *   the EVM family's encoder (the ABI is the same; addresses are the 20-byte form);
 * - without one, one `/wallet/getaccount` per distinct owner asked for TRX (an inactive
 *   account answers `{}`: 0 sun) and one `balanceOf` constant call per distinct (owner,
 *   token), at most `concurrency` calls in flight.
 * Amounts are exact bigints (sun, token base units).
 */
import type { BalanceQuery } from '../types.js';
import { decodeBalanceResultsSettled, encodeBalanceCalls } from '../evm/multicall-balances.js';
import { ChainRejectedError } from '../errors.js';
import { UpstreamError } from '../../lib/errors.js';
import { tronEvmHex, tronHex } from './codec.js';
import { addressWord, constantCall, mapLimit, uintOutput } from './calls.js';
import type { TronNode } from './node.js';
import { int64 } from './scan.js';

/** Calls per aggregate3: well under a node's constant-call energy cap (~5,000 energy per balanceOf). */
export const MULTICALL_CHUNK = 200;

export async function readBalances(
  node: TronNode,
  queries: readonly BalanceQuery[],
  opts: { multicall: string | null; concurrency: number },
): Promise<bigint[]> {
  if (queries.length === 0) return [];
  if (opts.multicall) return viaMulticall(node, opts.multicall, queries, opts.concurrency);
  return oneByOne(node, queries, opts.concurrency);
}

async function viaMulticall(node: TronNode, multicall: string, queries: readonly BalanceQuery[], concurrency: number): Promise<bigint[]> {
  const evmQueries = queries.map((q) => ({ owner: evmHex(q.owner), token: q.token === null ? null : evmHex(q.token) }));
  const chunks: BalanceQuery[][] = [];
  for (let i = 0; i < evmQueries.length; i += MULTICALL_CHUNK) chunks.push(evmQueries.slice(i, i + MULTICALL_CHUNK));
  const results = await mapLimit(chunks, concurrency, async (chunk) => {
    // encodeBalanceCalls gives selector + arguments; java-tron takes them apart.
    // Each call answers alone (allowFailure): a contract that is no token fails its own query,
    // said as such (unreadable), not the whole call.
    const data = encodeBalanceCalls(evmHex(multicall), chunk, true);
    const out = await constantCall(node, multicall, 'aggregate3((address,bool,bytes)[])', data.slice(10));
    if (!out.ok) throw new Error(`balance multicall failed: ${out.why}`);
    return decodeBalanceResultsSettled(`0x${out.output}`, chunk.length);
  });
  return results.flat().map((v, i) => v ?? unreadable(queries[i]!));
}

/**
 * A token query whose balanceOf reverted or answered no uint256: the node is fine, the
 * contract answers no balance (a recovery's contract a client named: rejectionReason
 * 'reverted' says so to the caller).
 */
function unreadable(q: BalanceQuery): never {
  const what = `balanceOf(${q.owner}) on ${q.token ?? 'the native coin'} answered no uint256`;
  throw new UpstreamError('CHAIN_UNAVAILABLE', `Tron balance read failed: ${what}`, new ChainRejectedError('reverted', what));
}

async function oneByOne(node: TronNode, queries: readonly BalanceQuery[], concurrency: number): Promise<bigint[]> {
  const key = (q: BalanceQuery) => `${hex41(q.owner)}|${q.token === null ? '' : hex41(q.token)}`;
  const unique = new Map<string, BalanceQuery>();
  for (const q of queries) unique.set(key(q), q);
  const list = [...unique.entries()];
  const values = await mapLimit(list, concurrency, async ([, q]) =>
    q.token === null ? trxBalance(node, q.owner) : tokenBalance(node, q.token, q.owner),
  );
  const byKey = new Map(list.map(([k], i) => [k, values[i]!]));
  return queries.map((q) => byKey.get(key(q))!);
}

/** TRX of an account, in sun, from /wallet/getaccount (`{}` for an account never activated: 0). */
export async function trxBalance(node: TronNode, owner: string): Promise<bigint> {
  const account = await node.post<{ balance?: unknown; Error?: string }>('wallet/getaccount', { address: hex41(owner), visible: false });
  if (account.Error) throw new Error(`getaccount failed: ${account.Error}`);
  return int64(account.balance);
}

export async function tokenBalance(node: TronNode, token: string, owner: string): Promise<bigint> {
  const out = await constantCall(node, token, 'balanceOf(address)', addressWord(owner));
  const value = out.ok ? uintOutput(out.output) : null;
  if (value === null && (out.ok || out.why.startsWith('reverted'))) unreadable({ owner, token });
  if (value === null) throw new Error(`balanceOf on ${token} failed: ${out.ok ? 'not one uint256' : out.why}`);
  return value;
}

function hex41(address: string): string {
  const hex = tronHex(address);
  if (hex === null) throw new Error(`not a Tron address: ${address}`);
  return hex;
}

function evmHex(address: string): string {
  const hex = tronEvmHex(address);
  if (hex === null) throw new Error(`not a Tron address: ${address}`);
  return hex;
}
