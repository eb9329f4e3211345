/**
 * After a row is settled with a receipt: following it until its block is the chain's
 * `confirmations` deep, and undoing the settlement when a reorg takes the block away.
 *
 * Only purposes with an `outbound.confirmed` subscriber (src/subscriptions.ts) are
 * followed: their owners must be able to go back to pending. The row's track job
 * (`outbound_track`) goes on with these checks once the row is settled: its next run is
 * queued in the settling transaction (outbox), then it polls with the tracker's backoff:
 *
 * - the receipt is still in the recorded block: the depth (head - block + 1) is reported;
 *   at `confirmations` it is final and the job ends; a head below that block (a node behind
 *   the one that gave the receipt) reports nothing and it looks again;
 * - the node has no receipt but the recorded block is still canonical, or its head is
 *   below that block (a lagging or load-balanced node): nothing is concluded, it looks again;
 * - the same transaction was re-mined in another block with the same outcome: the row
 *   takes the new receipt ('moved') and the count starts again from there;
 * - otherwise (no receipt and the block replaced, or re-mined with the other outcome): the
 *   row goes back to 'broadcast' with its raw bytes and hash ('reorged'), and the tracker
 *   re-sends those same bytes and settles it again, through the purpose's completion
 *   handler, when a receipt appears. The bytes were signed once: the same nonce can never
 *   become a second payment.
 *
 * Each change is made under the row's lock, conditional on the row still holding the
 * receipt that was checked, so two jobs (or a job and a restart) cannot apply one twice.
 */
import type { DbConn } from '../../db/pool.js';
import type { Receipt } from '../../chains/types.js';
import { logFields } from './checks.js';
import type { Core } from './core.js';
import * as store from './store.js';
import type { OutboundRow } from './store.js';

/** Depth at which a receipt is final: the chain's configured confirmations (at least 1). */
export const requiredDepth = (core: Core, row: OutboundRow): number => Math.max(1, core.catalogue.chain(row.chainId).config.confirmations);

/** One depth check of a settled row (see the header); queues the next one unless final or reorged. */
export async function confirm(core: Core, id: string, poll: number): Promise<void> {
  const row = await store.findOutbound(core.db, id);
  if (!row?.receipt || !row.hash || !core.events.followsConfirmations(row.purpose) || (row.stage !== 'mined' && row.stage !== 'failed'))
    return;
  const adapter = core.catalogue.chain(row.chainId).adapter;
  const need = requiredDepth(core, row);
  const recorded = row.receipt;
  const [receipt, head] = await Promise.all([adapter.getReceipt(row.hash), adapter.getBlockNumber()]);

  const next = () => {
    const { firstTrackDelayMs, maxTrackDelayMs } = core.opts;
    return store.enqueueConfirmJob(core.db, id, poll + 1, Math.min(firstTrackDelayMs * 2 ** Math.min(poll, 20), maxTrackDelayMs));
  };
  // At least 1: the receipt proves its block. A head below it comes from a node behind the
  // one that gave the receipt (a load balancer's backends), and said 0 or less.
  const depthOf = (r: Receipt) => Math.max(1, Number(head - r.block.number + 1n));

  if (receipt && sameBlock(receipt, recorded)) {
    // Such a head proves no depth at all: nothing is reported (the count would go back), it looks again.
    if (head < receipt.block.number) {
      await next();
      return;
    }
    const depth = depthOf(receipt);
    const final = depth >= need;
    await core.db.transaction().execute(async (tx) => {
      const locked = await store.lockSettledIn(tx, id, recorded.block.hash);
      if (locked) await core.events.emit('outbound.confirmed', tx, { row: locked, change: { kind: 'depth', depth, final } });
    });
    if (!final) await next();
    return;
  }
  if (!receipt) {
    // A node that has not seen (or has forgotten) the receipt proves nothing while the
    // recorded block is still the chain's block at that height, nor while its head is below
    // that height: a node behind the one that gave the receipt (a load balancer's) has no
    // block there to compare, and reading that as a reorg reopened a mined withdrawal.
    if (head < recorded.block.number) {
      await next();
      return;
    }
    const block = await adapter.getBlock(recorded.block.number);
    if (block && block.hash.toLowerCase() === recorded.block.hash.toLowerCase()) {
      await next();
      return;
    }
  }

  const moved = receipt !== null && receipt.status === recorded.status;
  const reason = receipt
    ? `block ${recorded.block.number} (${recorded.block.hash}) was replaced by a reorganisation; mined again in block ${receipt.block.number} with status ${receipt.status}`
    : `block ${recorded.block.number} (${recorded.block.hash}) was replaced by a reorganisation and the transaction is no longer in the chain; sending the same signed bytes again`;
  const changed = await core.db.transaction().execute(async (tx) => {
    if (!(await store.lockSettledIn(tx, id, recorded.block.hash))) return false;
    if (moved) {
      const depth = depthOf(receipt);
      const updated = await store.moveReceipt(tx, id, receipt);
      await core.events.emit('outbound.confirmed', tx, { row: updated, change: { kind: 'moved', depth, final: depth >= need } });
      if (depth < need) await store.enqueueConfirmJob(tx, id, 0, core.opts.firstTrackDelayMs);
    } else {
      const back = await store.unsettle(tx, id, reason);
      await core.events.emit('outbound.confirmed', tx, { row: back, change: { kind: 'reorged', reason } });
      // The tracker re-broadcasts the stored bytes and settles the row again (with the new receipt, if any).
      await store.enqueueTrackJob(tx, id, 0, 0);
    }
    return true;
  });
  if (changed)
    core.logger.warn({ ...logFields(row), err: reason }, moved ? 'outbound receipt moved by a reorg' : 'outbound receipt reorged away');
}

const sameBlock = (a: Receipt, b: Receipt) => a.block.hash.toLowerCase() === b.block.hash.toLowerCase();
