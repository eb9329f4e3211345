/**
 * The 'nonce' strategy of the pipeline (strategy.ts), for families whose senders count their
 * transactions (EVM): allocation, conflicts, fillers, speed-up and cancel.
 *
 * - Allocation: consecutive nonces from the `nonces` counter under its row lock, in the
 *   caller's transaction: a rollback gives them back, so no gaps and no duplicates across
 *   callers, processes and restarts. A sender's first send seeds the counter from the chain.
 * - Conflicts: a node saying our nonce is used, without knowing our hash, drops the row only
 *   if that persists past a grace period (a lagging node behind a load balancer can say so
 *   about a transaction that did mine) and no version of ours has a receipt.
 * - Fillers: a row voided before signing hands its nonce to a 0-value self-transfer.
 * - Replacement: same nonce, the family's bump rule (EVM: +10% on both fee fields).
 */
import type { NonceSender } from '../../chains/types.js';
import type { Purpose } from '../../events.js';
import { uuidv7 } from '../../lib/ids.js';
import { logFields, successorOf } from './checks.js';
import { minedVersion, settle, settleReceipt, type Core } from './core.js';
import * as store from './store.js';
import type { OutboundRow } from './store.js';
import type { BroadcastOutcome, DetachedSlot, OrderingStrategy } from './strategy.js';

export const FILLER_PURPOSE: Purpose = 'nonce-filler';

const consecutive = (first: bigint, count: number): bigint[] => Array.from({ length: count }, (_, i) => first + BigInt(i));

/** The row's nonce: every row of a 'nonce' family has one (enqueue took it). */
function nonceOf(row: OutboundRow): bigint {
  if (typeof row.nonce !== 'bigint') throw new Error(`outbound ${row.id} of a 'nonce' family has no nonce`);
  return row.nonce;
}

export function nonceOrdering(sender: NonceSender): OrderingStrategy {
  return {
    kind: 'nonce',

    async take(tx, chain, from, count) {
      // The common case is one statement; only a sender's first send reads the chain's count.
      const first =
        (await store.takeNonces(tx, chain.id, from, count)) ??
        (await store.allocateNonces(tx, chain.id, from, await sender.nonceOf(from, 'pending'), count));
      return consecutive(first, count);
    },

    async detached(db, chain, from, items) {
      // max(the chain's pending count, our counter's next value): what would be sent next.
      const [pending, ours] = await Promise.all([sender.nonceOf(from, 'pending'), store.peekNonce(db, chain.id, from)]);
      const first = ours !== null && ours > pending ? ours : pending;
      return items.map(({ quote }, i): DetachedSlot => ({ nonce: first + BigInt(i), network: quote.network }));
    },

    async refused(core, row, reason, message) {
      return reason === 'nonce-used' ? conflict(core, sender, row, message) : null;
    },

    async waitsForEarlier(_core, row) {
      return (await sender.nonceOf(row.fromAddress, 'latest')) < nonceOf(row);
    },

    async voidUnsigned(_core, tx, row, reason) {
      const { network, kind, to, amount } = sender.voidCall(row.fromAddress);
      const fillerId = uuidv7();
      const replaced = await store.markReplaced(tx, row.id, fillerId, reason);
      await store.insertOutbound(
        tx,
        successorOf(row, fillerId, { intent: { kind, to, amount }, network, purpose: FILLER_PURPOSE, ownerId: row.id }),
      );
      await store.enqueueSendJob(tx, fillerId);
      return replaced;
    },

    replacing: {
      due(core, row, outcome, now = Date.now()) {
        if (outcome === 'fee-too-low') return true;
        return now - (row.broadcastAt ?? row.updatedAt).getTime() >= core.opts.replaceAfterMs;
      },
      network: (row) => sender.replacementNetwork(row.network),
      voidCall: (from) => sender.voidCall(from),
    },

    rebuilding: null,
  };
}

/**
 * The node says our nonce is used and does not know our hash. Only if that persists past
 * a grace period and no version of ours has a receipt is the row dropped; the counter is
 * raised to the chain's count, since the key was used outside the pipeline.
 */
async function conflict(core: Core, sender: NonceSender, row: OutboundRow, message: string): Promise<BroadcastOutcome> {
  const nonce = nonceOf(row);
  const error = `nonce ${nonce} of ${row.fromAddress} is used by another transaction: ${message}`;
  const seen = await store.recordBroadcastFailure(core.db, row.id, error, true);
  if (!seen || seen.conflictAgeMs === null || seen.conflictAgeMs < core.opts.conflictGraceMs) return 'refused';
  const found = await minedVersion(core, row);
  if (found) {
    await settleReceipt(core, row, found);
    return 'settled';
  }
  const mined = await sender.nonceOf(row.fromAddress, 'latest');
  if (mined <= nonce) return 'refused';
  core.logger.warn({ ...logFields(row), err: error }, 'outbound transaction dropped: its nonce was used elsewhere');
  await settle(core, row.id, ['signed', 'broadcast'], async (tx) => {
    await store.raiseNonce(tx, row.chainId, row.fromAddress, mined);
    return store.markDropped(tx, row.id, error);
  });
  return 'settled';
}
