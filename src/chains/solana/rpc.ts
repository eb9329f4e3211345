/**
 * The Solana node client of the family: @solana/kit's JSON-RPC client, loaded on first use.
 * Kit costs about 300 ms of start-up and 10 MB of memory (see codec.ts), so a process without
 * a Solana chain never loads it: the adapter opens the client lazily, once per chain.
 *
 * History (blocks, transactions) is read at `confirmed`, the lowest commitment a node serves
 * it at; account state at `confirmed` too, so balances agree with the blocks the indexer saw.
 */
import type { Rpc, SolanaRpcApi } from '@solana/kit';

export type SolanaRpc = Rpc<SolanaRpcApi>;

/** A u64 as kit answers it (bigint), or a number from a looser field, as bigint. */
export function u64(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
  throw new Error(`not a u64: ${String(v)}`);
}

/** One client per URL, created on first use (the module and the client both). */
export class SolanaNode {
  #rpc: Promise<SolanaRpc> | null = null;

  constructor(readonly url: string) {}

  rpc(): Promise<SolanaRpc> {
    return (this.#rpc ??= import('@solana/kit').then((kit) => kit.createSolanaRpc(this.url)));
  }
}

/** The JSON-RPC error code of a node's refusal as kit raises it, or null for anything else (the network, a parse error). */
export function rpcErrorCode(err: unknown): number | null {
  const ctx = (err as { context?: { __code?: unknown } } | null)?.context;
  const code = ctx?.__code;
  // Kit's server errors carry the node's JSON-RPC code as their own (-32000 .. -32099).
  return typeof code === 'number' && code <= -32000 && code >= -32099 ? code : null;
}

/** -32007 "Slot N was skipped" (or -32009 from long-term storage): no block was produced in that slot. */
export const isSkippedSlot = (err: unknown) => {
  const code = rpcErrorCode(err);
  return code === -32007 || code === -32009;
};

/**
 * -32004 "Block not available for slot N": the slot is above the commitment asked (not there
 * yet), or, above the finalized slot, holds no block of the confirmed chain (agave's getBlock).
 */
export const isNotAvailable = (err: unknown) => rpcErrorCode(err) === -32004;
