/**
 * The pipeline's shared moves, used by the service (send, track), the ordering strategies
 * and replacements: finding which version of a transaction landed, and settling a row exactly
 * once with its purpose's handler.
 */
import type { Db, DbConn } from '../../db/pool.js';
import type { Receipt } from '../../chains/types.js';
import type { Events } from '../../events.js';
import type { Signer } from '../../keys/signer.js';
import type { Logger } from '../../lib/logger.js';
import type { CatalogueService } from '../catalogue/service.js';
import { logFields } from './checks.js';
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

/** Queues the first confirmation check (confirm.ts) of a row just settled with a receipt, in the settling transaction. */
export async function queueConfirmation(core: Core, tx: DbConn, row: OutboundRow): Promise<void> {
  if (!row.receipt || !core.events.followsConfirmations(row.purpose)) return;
  await store.enqueueConfirmJob(tx, row.id, 0, core.opts.firstTrackDelayMs);
}

/** Emits outbound.signed inside the transaction that stores the signature. */
export async function signedHook(core: Core, tx: DbConn, row: OutboundRow): Promise<void> {
  await core.events.emit('outbound.signed', tx, { row });
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
