/**
 * Broadcasting a row's stored bytes (the send job, every track poll, a replacement): a node
 * that already has them answers with the same hash; a refusal is recorded and retried, unless
 * the chain's ordering strategy judges it (a nonce used elsewhere: ordering.ts).
 */
import { logFields, messageOf, rejectionOf } from './checks.js';
import type { Core } from './core.js';
import { orderingOf, type BroadcastOutcome } from './ordering.js';
import * as store from './store.js';
import type { OutboundRow } from './store.js';

export type { BroadcastOutcome } from './ordering.js';

export async function broadcast(core: Core, row: OutboundRow): Promise<BroadcastOutcome> {
  const chain = core.catalogue.chain(row.chainId);
  try {
    const hash = await chain.adapter.broadcast(row.raw!);
    if (hash.toLowerCase() !== row.hash!.toLowerCase()) throw new Error(`node returned ${hash} for ${row.hash}`);
    await store.markBroadcast(core.db, row.id);
    if (row.stage === 'signed') core.logger.info(logFields(row), 'outbound transaction broadcast');
    return 'accepted';
  } catch (err) {
    const message = messageOf(err);
    const reason = rejectionOf(err);
    const judged = await orderingOf(chain).refused(core, row, reason, message);
    if (judged !== null) return judged;
    // A node's other refusal is an answer about the slot; no answer at all (a timeout) is
    // none, and must not restart a conflict's grace period (ordering.ts, conflict).
    await store.recordBroadcastFailure(core.db, row.id, message, reason === null ? 'unanswered' : 'refuted');
    core.logger.warn({ ...logFields(row), err: message }, 'outbound broadcast refused; will retry');
    return reason === 'fee-too-low' ? 'fee-too-low' : 'refused';
  }
}
