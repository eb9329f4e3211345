/**
 * The 'expiry' strategy of the pipeline (strategy.ts), for families whose transactions carry
 * a deadline instead of a counter (Tron's expiration, Solana's recent block reference):
 * deadlines and rebuilds.
 *
 * No slot is taken (a row's nonce is null) and none is filled when a row is voided. A signed
 * row is never replaced: it stands until it lands or the chain's head passes its deadline;
 * then, with no version landed, it is rebuilt: a new row with the same call, prepared (a
 * fresh deadline) and signed again. The old bytes can never be included any more, so the
 * payment cannot happen twice.
 */
import type { ExpirySender } from '../../chains/types.js';
import { uuidv7 } from '../../lib/ids.js';
import { logFields, successorOf } from './checks.js';
import type { Core } from './core.js';
import * as store from './store.js';
import type { OutboundRow } from './store.js';
import type { DetachedSlot, OrderingStrategy } from './strategy.js';

export function expiryOrdering(sender: ExpirySender): OrderingStrategy {
  return {
    kind: 'expiry',

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
      expired: (row) => sender.hasExpired(row.network),
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
      successorOf(row, id, { intent: row.intent, network: row.network, purpose: row.purpose, ownerId: row.ownerId }),
    );
    await store.enqueueSendJob(tx, id);
    return store.findOutbound(tx, id);
  });
  if (rebuilt) core.logger.warn({ ...logFields(row), rebuiltAs: id }, 'outbound transaction expired unmined; rebuilt');
  return rebuilt;
}
