/**
 * Whether a Solana transaction landed (findLanded) or can no longer land (hasExpired): the
 * SolanaSender's answers to the outbound pipeline's tracker, read so that a node behind
 * another (a load balancer's backends, a history node) can never make a landed payment look
 * lost, which would have it rebuilt and paid twice.
 */
import { UpstreamError } from '../../lib/errors.js';
import type { NetworkData, Receipt } from '../types.js';
import { rentOf, type RentMeta } from './rent.js';
import { u64, type SolanaNode } from './rpc.js';
import { blockRef } from './scan.js';

/** One getSignatureStatuses for all versions; a version counts once confirmed (a processed one can still be dropped). */
export async function findLanded(node: SolanaNode, hashes: string[]): Promise<{ index: number; receipt: Receipt } | null> {
  if (hashes.length === 0) return null;
  const rpc = await node.rpc();
  const { value } = await rpc.getSignatureStatuses(hashes as never, { searchTransactionHistory: true }).send();
  for (const [index, status] of value.entries()) {
    if (!status || status.confirmationStatus === 'processed') continue;
    const slot = u64(status.slot);
    const tx = await rpc
      .getTransaction(hashes[index] as never, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send();
    const block = await blockRef(node, slot);
    if (!tx || !block || block.number !== slot) {
      // A finalized transaction is in the chain for good: a node that does not give it (or
      // its block) back is behind the one that answered the status (a load balancer's, a
      // history node), and reading that as "not landed" would let an expired payment be
      // rebuilt and paid twice. Asked again later; a confirmed one may have been dropped
      // with its fork between the reads.
      if (status.confirmationStatus === 'finalized') {
        throw new UpstreamError(
          'CHAIN_UNAVAILABLE',
          `the Solana node reports ${hashes[index]} finalized in slot ${slot} but does not return it or its block; asked again later`,
        );
      }
      continue;
    }
    const rent = status.err === null ? rentOf(tx.meta as RentMeta | null) : {};
    return {
      index,
      receipt: {
        status: status.err === null ? 'success' : 'reverted',
        block: { number: slot, hash: block.hash },
        // What the fee payer paid: the fee, and the rent of the token accounts it created
        // (rentPaid, shown apart too); a failed transaction moved nothing but its fee.
        fee: u64(tx.meta?.fee ?? 0n) + (rent.rentPaid ?? 0n),
        details: {
          ...(rent.rentPaid !== undefined ? { rentPaid: rent.rentPaid.toString() } : {}),
          ...(rent.rentReclaimed !== undefined ? { rentReclaimed: rent.rentReclaimed.toString() } : {}),
        },
      },
    };
  }
  return null;
}

/**
 * Whether the transaction signed as `hash` can no longer land and has not: the finalized
 * block height is past its blockhash's last valid height (no fork can include it any more),
 * and a node at or past that finalized slot, holding the ledger of every slot the
 * transaction could have landed in, has no status for it.
 * - Behind a load balancer the reads can reach different nodes; a status answered by one
 *   whose slot is below the finalized slot the first saw is a lagging node's "not found" (it
 *   may not have the block the payment landed in yet), and rebuilding on it would pay twice:
 *   nothing is concluded then.
 * - A node restarted from a snapshot, or one that prunes its ledger, has no history before
 *   its first available block: its "not found" for a payment that landed in a slot it lacks
 *   would pay twice too. Its first available block must be at or before the slot of the
 *   blockhash's bank (`blockhashSlot`, noted at prepare; rows prepared before it was noted
 *   are not held to it).
 */
export async function hasExpired(node: SolanaNode, network: NetworkData, hash: string): Promise<boolean> {
  if (network.lastValidBlockHeight === undefined) throw new Error('network data without lastValidBlockHeight');
  const last = BigInt(network.lastValidBlockHeight);
  // One JSON-RPC batch, one HTTP request: a load balancer hands it to one backend, whose
  // status answer then covers every slot up to its own finalized one (its processed bank
  // descends from its root) from its first available block on. A balancer that splits
  // batches is caught by the slot check.
  const [epoch, statuses, firstAvailable] = await oneNode(node, [
    { method: 'getEpochInfo', params: [{ commitment: 'finalized' }] },
    { method: 'getSignatureStatuses', params: [[hash], { searchTransactionHistory: true }] },
    { method: 'getFirstAvailableBlock', params: [] },
  ]);
  const finalized = epoch as { absoluteSlot: number; blockHeight: number };
  if (BigInt(finalized.blockHeight) <= last) return false;
  const { context, value } = statuses as { context: { slot: number }; value: unknown[] };
  if (BigInt(context.slot) < BigInt(finalized.absoluteSlot)) {
    throw new UpstreamError(
      'CHAIN_UNAVAILABLE',
      `the Solana node that answered the status of ${hash} is at slot ${context.slot}, behind the finalized slot ${finalized.absoluteSlot} another answered; asked again later`,
    );
  }
  if (value[0] !== null) return false;
  if (network.blockhashSlot !== undefined && BigInt(firstAvailable as number) > BigInt(network.blockhashSlot)) {
    throw new UpstreamError(
      'CHAIN_UNAVAILABLE',
      `the Solana node's ledger starts at slot ${String(firstAvailable)}, after slot ${network.blockhashSlot} from which ${hash} could land: it cannot tell whether it did; asked again later (point the service at a node that keeps that history)`,
    );
  }
  return true;
}

/**
 * Calls sent as one JSON-RPC batch (kit's client sends one call per request); their results
 * in order. A node's refusal of any is a retryable UpstreamError naming it.
 */
async function oneNode(node: SolanaNode, calls: { method: string; params: unknown[] }[]): Promise<unknown[]> {
  const res = await fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(calls.map((c, id) => ({ jsonrpc: '2.0', id, ...c }))),
    signal: AbortSignal.timeout(30_000),
  });
  if (!res.ok) throw new UpstreamError('CHAIN_UNAVAILABLE', `the Solana node answered HTTP ${res.status}`);
  const answers = (await res.json()) as { id?: number; result?: unknown; error?: { code?: number; message?: string } }[];
  if (!Array.isArray(answers)) throw new UpstreamError('CHAIN_UNAVAILABLE', 'the Solana node answered a JSON-RPC batch without a list');
  return calls.map((c, id) => {
    const a = answers.find((x) => x.id === id);
    if (!a || a.error || a.result === undefined) {
      throw new UpstreamError('CHAIN_UNAVAILABLE', `the Solana node refused ${c.method}: ${a?.error?.message ?? 'no answer'}`);
    }
    return a.result;
  });
}
