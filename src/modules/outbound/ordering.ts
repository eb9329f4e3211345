/**
 * The pipeline's two ordering strategies (strategy.ts says what a strategy answers), and the
 * one place that picks a chain's by its Sender's kind (`orderingOf`), so enqueue, broadcast,
 * track, replace, cancel and sign-only never ask which kind of family they run on.
 *
 * 'nonce', for families whose senders count their transactions (EVM): allocation,
 * conflicts, fillers, speed-up and cancel.
 * - Allocation: consecutive nonces from the `nonces` counter under its row lock, in the
 *   caller's transaction: a rollback gives them back, so no gaps and no duplicates across
 *   callers, processes and restarts. A new sender's pending count is read from the chain
 *   before the caller's transaction opens (`ready`) and seeds its counter when the first
 *   slots are taken, so taking a slot waits on no node.
 * - Conflicts: a node saying our nonce is used, without knowing our hash, drops the row only
 *   if that persists past a grace period (a lagging node behind a load balancer can say so
 *   about a transaction that did mine) and no version of ours has a receipt. A node that
 *   takes the bytes, or refuses them for another reason, ends the sighting; one that does not
 *   answer (a timeout) leaves it running.
 * - Fillers: a row voided before signing hands its nonce to a 0-value self-transfer.
 * - Replacement: same nonce, the family's bump rule (EVM: +10% on both fee fields).
 *
 * 'expiry', for families whose transactions carry a deadline instead (Tron's expiration,
 * Solana's recent block reference): deadlines and rebuilds. No slot is taken (a row's nonce
 * is null) and none is filled when a row is voided. A signed row is never replaced: it
 * stands until it lands or the chain's head passes its deadline; then, with no version
 * landed, it is rebuilt: a new row with the same call, prepared (a fresh deadline) and signed
 * again. The old bytes can never be included any more, so the payment cannot happen twice.
 */
import type { ExpirySender, NonceSender } from '../../chains/types.js';
import type { Purpose } from '../../events.js';
import { uuidv7 } from '../../lib/ids.js';
import { withDeadline } from '../../lib/deadline.js';
import { UpstreamError } from '../../lib/errors.js';
import type { ChainHandle } from '../catalogue/service.js';
import { logFields, successorOf } from './checks.js';
import { minedVersion, settle, settleReceipt, type Core } from './core.js';
import * as store from './store.js';
import type { OutboundRow } from './store.js';
import type { BroadcastOutcome, DetachedSlot, OrderingStrategy } from './strategy.js';

export type { BroadcastOutcome, OrderingStrategy } from './strategy.js';

const strategies = new WeakMap<ChainHandle['adapter']['sender'], OrderingStrategy>();

/** The strategy of a chain's ordering, built once per sender. */
export function orderingOf(chain: ChainHandle): OrderingStrategy {
  const sender = chain.adapter.sender;
  let strategy = strategies.get(sender);
  if (!strategy) {
    strategy = sender.ordering === 'nonce' ? nonceOrdering(sender) : expiryOrdering(sender);
    strategies.set(sender, strategy);
  }
  return strategy;
}

// ---- 'nonce' ---------------------------------------------------------------------------

export const FILLER_PURPOSE: Purpose = 'nonce-filler';

const consecutive = (first: bigint, count: number): bigint[] => Array.from({ length: count }, (_, i) => first + BigInt(i));

/** The row's nonce: every row of a 'nonce' family has one (enqueue took it). */
function nonceOf(row: OutboundRow): bigint {
  if (typeof row.nonce !== 'bigint') throw new Error(`outbound ${row.id} of a 'nonce' family has no nonce`);
  return row.nonce;
}

/**
 * How long a new sender's pending count, read by `ready`, may seed its counter in `take`.
 * The read is made just before the caller's transaction; a stale one could hand out a nonce
 * the address has used since (a transaction the client broadcast itself from sign-only).
 */
const SEED_TTL_MS = 10_000;

/**
 * How long `take` waits, inside its caller's transaction, for a new sender's count that
 * `ready` did not read (or read too long ago: a sweep's child transfer, taken in the
 * transaction that records its top-up, comes well after the sweep's `ready`): the
 * transaction's connection and the sender's locks wait with it. Long enough for a slow node
 * (such a step must go through on one), short of the client's own timeout and retries.
 */
const UNREADY_READ_MS = 10_000;

const unready = (chain: ChainHandle) =>
  new UpstreamError('CHAIN_UNAVAILABLE', `${chain.config.blockchain.name}'s node did not give a new sender's nonce in time; try again`);

function nonceOrdering(sender: NonceSender): OrderingStrategy {
  // Senders whose counter this process has seen exist (counters are never deleted).
  const counted = new Set<string>();
  // New senders' pending counts read by `ready`, kept in memory only: nothing is written for
  // a request that ends up sending nothing, and the counter is created by the transaction
  // that takes its first slots (allocateNonces: a counter created meanwhile only rises).
  const seeds = new Map<string, { next: bigint; at: number }>();
  return {
    kind: 'nonce',

    async ready(db, chain, from) {
      const key = `${chain.id}:${from}`;
      if (counted.has(key)) return;
      if ((await store.peekNonce(db, chain.id, from)) !== null) {
        counted.add(key);
        seeds.delete(key);
        return;
      }
      const next = await sender.nonceOf(from, 'pending');
      // Senders that never sent leave their count behind: cleared once stale.
      if (seeds.size >= 1_000) for (const [k, v] of seeds) if (Date.now() - v.at > SEED_TTL_MS) seeds.delete(k);
      seeds.set(key, { next, at: Date.now() });
    },

    async take(tx, chain, from, count) {
      const taken = await store.takeNonces(tx, chain.id, from, count);
      if (taken !== null) return consecutive(taken, count);
      // A new sender: seeded from the count `ready` read before the transaction; a caller
      // that skipped it (or waited past the TTL) reads the chain here, inside its transaction
      // (correct, but the node's answer holds the transaction's connection).
      const key = `${chain.id}:${from}`;
      const seed = seeds.get(key);
      const fresh = seed !== undefined && Date.now() - seed.at <= SEED_TTL_MS;
      if (!fresh) seeds.delete(key);
      const next = fresh ? seed.next : await withDeadline(sender.nonceOf(from, 'pending'), UNREADY_READ_MS, () => unready(chain));
      const first = await store.allocateNonces(tx, chain.id, from, next, count);
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
        // A replacement of a row whose nonce a foreign transaction holds cannot land either,
        // and as a new row it would restart the conflict's grace period: with replaceAfterMs
        // shorter than conflictGraceMs (the defaults) the row was replaced for ever, never dropped.
        if (outcome === 'nonce-used') return false;
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
  const seen = await store.recordBroadcastFailure(core.db, row.id, error, 'seen');
  if (!seen || seen.conflictAgeMs === null || seen.conflictAgeMs < core.opts.conflictGraceMs) return 'nonce-used';
  const found = await minedVersion(core, row);
  if (found) {
    await settleReceipt(core, row, found);
    return 'settled';
  }
  const mined = await sender.nonceOf(row.fromAddress, 'latest');
  if (mined <= nonce) return 'nonce-used';
  core.logger.warn({ ...logFields(row), err: error }, 'outbound transaction dropped: its nonce was used elsewhere');
  await settle(core, row.id, ['signed', 'broadcast'], async (tx) => {
    await store.raiseNonce(tx, row.chainId, row.fromAddress, mined);
    return store.markDropped(tx, row.id, error);
  });
  return 'settled';
}

// ---- 'expiry' --------------------------------------------------------------------------

function expiryOrdering(sender: ExpirySender): OrderingStrategy {
  return {
    kind: 'expiry',

    async ready() {},

    async take(_tx, _chain, _from, count) {
      return Array.from({ length: count }, () => null);
    },

    async detached(_db, _chain, _from, items) {
      const slots: DetachedSlot[] = [];
      // Each built now (a fresh deadline) from what its quote fixed (e.g. Tron's fee limit).
      for (const { intent, quote } of items) slots.push({ nonce: null, network: await sender.prepare(intent, quote.fixed) });
      return slots;
    },

    // No slot to contend for: every refusal is the shared pipeline's to retry.
    async refused() {
      return null;
    },

    // The sender's earlier rows stand for its "earlier nonces".
    waitsForEarlier: (core, row) => store.hasEarlierLive(core.db, row),

    voidUnsigned: (_core, tx, row, reason) => store.markReplaced(tx, row.id, null, reason),

    replacing: null,

    rebuilding: {
      expired: (row) => {
        if (row.hash === null) throw new Error(`outbound ${row.id} is tracked without a signature`);
        return sender.hasExpired(row.network, row.hash);
      },
      rebuild: rebuildExpired,
    },
  };
}

/** See Rebuilding.rebuild: the row's successor is the same call, its deadline made afresh by the send job's prepare. */
async function rebuildExpired(core: Core, row: OutboundRow): Promise<OutboundRow | undefined> {
  const id = uuidv7();
  const rebuilt = await core.db.transaction().execute(async (tx) => {
    if (!(await store.lockUnsettled(tx, row.id, ['signed', 'broadcast']))) return undefined;
    await store.markReplaced(tx, row.id, id, `expired unmined (${row.hash}); rebuilt and signed again`);
    await store.insertOutbound(
      tx,
      // The same payout: signed within what it reserved, as the first time (a replacement's
      // higher fees, on 'nonce' families, are deliberately above it and carry none).
      successorOf(row, id, {
        intent: row.intent,
        network: row.network,
        purpose: row.purpose,
        ownerId: row.ownerId,
        feeCeiling: row.feeCeiling,
      }),
    );
    await store.enqueueSendJob(tx, id);
    return store.findOutbound(tx, id);
  });
  if (rebuilt) core.logger.warn({ ...logFields(row), rebuiltAs: id }, 'outbound transaction expired unmined; rebuilt');
  return rebuilt;
}
