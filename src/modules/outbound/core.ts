/**
 * The pipeline's shared moves, used by the service (send, track) and by replacements:
 * broadcasting stored bytes, finding which version of a nonce got mined, settling a row
 * exactly once with its purpose's handler, and filling a nonce with a 0-value self-transfer.
 */
import type { Db, DbConn } from '../../db/pool.js';
import type { Receipt } from '../../chains/types.js';
import type { Events, Purpose } from '../../events.js';
import type { Signer } from '../../keys/signer.js';
import type { Logger } from '../../lib/logger.js';
import { uuidv7 } from '../../lib/ids.js';
import type { CatalogueService, ChainHandle } from '../catalogue/service.js';
import { logFields, messageOf, rejectionOf, successorOf } from './checks.js';
import * as store from './store.js';
import type { OutboundRow } from './store.js';

export interface CoreOptions {
  firstTrackDelayMs: number;
  maxTrackDelayMs: number;
  stuckAfterMs: number;
  conflictGraceMs: number;
  waitRetryMs: number;
  replaceAfterMs: number;
}

export interface Core {
  db: Db;
  catalogue: CatalogueService;
  signer: Signer;
  logger: Logger;
  opts: CoreOptions;
  /** The event registry: outbound.signed / settled / confirmed go to the purpose's subscriber (src/subscriptions.ts). */
  events: Events;
}

export const FILLER_PURPOSE: Purpose = 'nonce-filler';

/** Queues the first confirmation check (confirm.ts) of a row just settled with a receipt, in the settling transaction. */
export async function queueConfirmation(core: Core, tx: DbConn, row: OutboundRow): Promise<void> {
  if (!row.receipt || !core.events.followsConfirmations(row.purpose)) return;
  await store.enqueueConfirmJob(tx, row.id, 0, core.opts.firstTrackDelayMs);
}

/** 'fee-too-low': the node refused our fee cap (below its base fee); a replacement is due now. */
export type BroadcastOutcome = 'accepted' | 'refused' | 'fee-too-low' | 'settled';

/** Emits outbound.signed inside the transaction that stores the signature. */
export async function signedHook(core: Core, tx: DbConn, row: OutboundRow): Promise<void> {
  await core.events.emit('outbound.signed', tx, { row });
}

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
    if (reason === 'nonce-used' && row.nonce !== null) return nonceConflict(core, { ...row, nonce: row.nonce }, chain, message);
    await store.recordBroadcastFailure(core.db, row.id, message, false);
    core.logger.warn({ ...logFields(row), err: message }, 'outbound broadcast refused; will retry');
    return reason === 'fee-too-low' ? 'fee-too-low' : 'refused';
  }
}

/**
 * The node says our nonce is used and does not know our hash. Only if that persists past
 * a grace period (a lagging node behind a load balancer can say so about a transaction
 * that did mine) and no version of ours has a receipt is the row dropped.
 */
async function nonceConflict(
  core: Core,
  row: OutboundRow & { nonce: bigint },
  chain: ChainHandle,
  message: string,
): Promise<BroadcastOutcome> {
  const error = `nonce ${row.nonce} of ${row.fromAddress} is used by another transaction: ${message}`;
  const seen = await store.recordBroadcastFailure(core.db, row.id, error, true);
  if (!seen || seen.conflictAgeMs === null || seen.conflictAgeMs < core.opts.conflictGraceMs) return 'refused';
  const found = await minedVersion(core, row);
  if (found) {
    await settleReceipt(core, row, found);
    return 'settled';
  }
  const mined = await chain.adapter.sender.nonceOf(row.fromAddress, 'latest');
  if (mined <= row.nonce) return 'refused';
  core.logger.warn({ ...logFields(row), err: error }, 'outbound transaction dropped: its nonce was used elsewhere');
  await settle(core, row.id, ['signed', 'broadcast'], async (tx) => {
    // The key was used outside the pipeline: later allocations start above what it used.
    await store.raiseNonce(tx, row.chainId, row.fromAddress, mined);
    return store.markDropped(tx, row.id, error);
  });
  return 'settled';
}

/**
 * Which version of the live row's nonce has a receipt, if any: the row itself or a
 * transaction it replaced (a node may have mined the original after all).
 */
export async function minedVersion(core: Core, live: OutboundRow): Promise<{ version: OutboundRow; receipt: Receipt } | null> {
  const { sender } = core.catalogue.chain(live.chainId).adapter;
  const own = live.hash ? await sender.findLanded([live.hash]) : null;
  if (own) return { version: live, receipt: own.receipt };
  // Most rows never replaced anything: one indexed lookup finds that out.
  const versions = (await store.family(core.db, live.id)).slice(1);
  if (versions.length === 0) return null;
  const found = await sender.findLanded(versions.map((v) => v.hash!));
  return found ? { version: versions[found.index]!, receipt: found.receipt } : null;
}

/** Settles the live row's family with the receipt of whichever version was mined. */
export function settleReceipt(
  core: Core,
  live: OutboundRow,
  found: { version: OutboundRow; receipt: Receipt },
): Promise<OutboundRow | undefined> {
  return settle(core, live.id, ['signed', 'broadcast'], (tx) =>
    found.version.id === live.id
      ? store.settleMined(tx, live.id, found.receipt)
      : store.settlePredecessor(tx, live.id, found.version.id, found.receipt),
  );
}

/**
 * Moves a row to a terminal stage and emits outbound.settled in one transaction. The
 * row lock and the stage condition make this happen once, whoever else tries. The handler
 * is the settled row's (an earlier version mined instead of a cancellation is settled as
 * that version, by its own purpose).
 */
export async function settle(
  core: Core,
  id: string,
  from: store.Stage[],
  apply: (tx: DbConn) => Promise<OutboundRow>,
): Promise<OutboundRow | undefined> {
  const settled = await core.db.transaction().execute(async (tx) => {
    if (!(await store.lockUnsettled(tx, id, from))) return undefined;
    const row = await apply(tx);
    await core.events.emit('outbound.settled', tx, { row });
    await queueConfirmation(core, tx, row);
    return row;
  });
  if (settled) core.logger.info({ ...logFields(settled), stage: settled.stage }, 'outbound transaction settled');
  return settled;
}

/**
 * Voids a row that was never signed, in the caller's transaction (the row must be locked
 * there). On a 'nonce' family its nonce goes to the family's void call (EVM: a 0-value
 * self-transfer), so later nonces are not blocked; an 'expiry' family has no slot to fill.
 */
export async function voidUnsigned(core: Core, tx: DbConn, row: OutboundRow, reason: string): Promise<OutboundRow> {
  if (row.nonce === null) return store.markReplaced(tx, row.id, null, reason);
  const { network, kind, to, amount } = core.catalogue.chain(row.chainId).adapter.sender.voidCall(row.fromAddress);
  const fillerId = uuidv7();
  const replaced = await store.markReplaced(tx, row.id, fillerId, reason);
  await store.insertOutbound(
    tx,
    successorOf(row, fillerId, {
      intent: { kind, to, amount },
      network,
      purpose: FILLER_PURPOSE,
      ownerId: row.id,
    }),
  );
  await store.enqueueSendJob(tx, fillerId);
  return replaced;
}
