/**
 * Replacing a signed transaction: same sender, same nonce, both fee fields raised by at
 * least 10% (and to at least the current estimate). A speed-up re-sends the same call; a
 * cancellation sends a 0-value self-transfer instead. The original steps aside as
 * 'replaced' (replaced_by) in the database transaction that stores the replacement's
 * signature, but stays in the replacement's family: whichever version is mined settles
 * the owner, once (core.ts, minedVersion / settleReceipt).
 *
 * Replacing is the 'nonce' strategy's (ordering.ts: its `replacing`). A family with 'expiry'
 * ordering (Tron, Solana) cannot replace a signed transaction: there is no slot to take. One
 * that expired unmined is rebuilt instead (ordering.ts, 'expiry'); before that, a speed-up or a
 * cancellation is refused.
 */
import type { IntentBody, NetworkData } from '../../chains/types.js';
import { intentOf, nativeValueOf } from '../../chains/intents.js';
import type { DbConn } from '../../db/pool.js';
import { uuidv7 } from '../../lib/ids.js';
import { broadcast } from './broadcast.js';
import { logFields, successorOf } from './checks.js';
import { minedVersion, settleReceipt, signedHook, type Core } from './core.js';
import { orderingOf } from './ordering.js';
import type { Replacing } from './strategy.js';
import * as store from './store.js';
import type { OutboundRow } from './store.js';

export interface ReplacementSpec {
  purpose: string;
  intent: IntentBody;
  /** Network fields that differ from the original's (a cancellation's plain-transfer limit); fees are bumped regardless. */
  network?: NetworkData;
}

export type ReplaceResult =
  | { kind: 'replaced'; row: OutboundRow }
  /** An 'expiry' family: a signed transaction stands until it lands or expires (then it is rebuilt). */
  | { kind: 'not-replaceable' }
  /** The sender cannot pay the replacement's worst-case cost (value + gas x fee cap). */
  | { kind: 'unaffordable'; needed: bigint; balance: bigint }
  /** The row was settled or replaced by someone else meanwhile; read it again. */
  | { kind: 'raced' };

export type CancelResult =
  | ReplaceResult
  /** Never signed: voided (on a 'nonce' family a 0-value self-transfer fills its nonce); `onVoided` ran in that transaction. */
  | { kind: 'voided'; row: OutboundRow }
  | { kind: 'already-cancelling'; row: OutboundRow }
  /** Mined, failed or dropped: nothing left to cancel. */
  | { kind: 'settled' };

/** Signs the replacement, then swaps it in under the original's row lock. */
async function replaceSigned(
  core: Core,
  replacing: Replacing,
  row: OutboundRow,
  spec: ReplacementSpec,
  why: string,
): Promise<ReplaceResult> {
  const chain = core.catalogue.chain(row.chainId);
  const { sender } = chain.adapter;
  // The family's bump rule over the original, against a fresh quote (EVM: +10%, at least the current fees).
  const network = { ...(await replacing.network(row)), ...spec.network };
  // A replacement the sender cannot pay for is refused by every node, while the original
  // (no longer re-broadcast once replaced) might have been mined: keep the original then.
  const needed = sender.costOf(nativeValueOf(spec.intent), network);
  const [balance = 0n] = await chain.adapter.getBalances([{ owner: row.fromAddress, token: null }]);
  if (balance < needed) return { kind: 'unaffordable', needed, balance };

  const intent = intentOf(spec.intent, row.fromAddress);
  const signed = await core.signer.withKey(row.walletId, row.fromIndex, row.fromAddress, (key) =>
    sender.sign(intent, row.nonce, network, key),
  );
  const id = uuidv7();
  const stored = await core.db.transaction().execute(async (tx): Promise<OutboundRow | undefined> => {
    // Settled or replaced meanwhile: this signature is discarded unsent, as in signAndStore.
    const current = await store.lockUnsettled(tx, row.id, ['signed', 'broadcast']);
    if (!current) return undefined;
    await store.markReplaced(tx, row.id, id, `${why}: replaced by ${signed.hash}`);
    await store.insertOutbound(tx, successorOf(row, id, { intent: spec.intent, network, purpose: spec.purpose, ownerId: row.ownerId }));
    // A slot a node says another transaction holds is judged from its first sighting
    // (ordering.ts, conflict): the replacement takes the same slot, so it keeps that clock.
    // Started afresh, a client's speed-ups or a cancel asked more often than the grace
    // period kept the row from ever being dropped, and its withdrawal held its funds for ever.
    if (current.conflictSeenAt) await store.keepConflictClock(tx, id, current.conflictSeenAt);
    const s = (await store.markSigned(tx, id, { ...signed, network }))!;
    await signedHook(core, tx, s);
    // Stored before any broadcast, with its status check, as every signed row.
    await store.enqueueTrackJob(tx, id, 0, core.opts.firstTrackDelayMs);
    await store.enqueueSendJob(tx, id);
    return s;
  });
  if (!stored) return { kind: 'raced' };
  core.logger.info({ ...logFields(stored), replaces: row.hash, network, why }, 'outbound transaction replaced');
  await broadcast(core, stored); // the send job would too; this saves its latency
  return { kind: 'replaced', row: stored };
}

/** The same call again with bumped fees. */
export async function speedUp(core: Core, row: OutboundRow, why: string): Promise<ReplaceResult> {
  const { replacing } = orderingOf(core.catalogue.chain(row.chainId));
  if (!replacing) return { kind: 'not-replaceable' };
  return replaceSigned(core, replacing, row, { purpose: row.purpose, intent: row.intent }, why);
}

/**
 * Cancels a live row: never signed -> voided now (its nonce filled); signed -> replaced by a
 * 0-value self-transfer with bumped fees (`purpose` names its completion handler). If the
 * original is mined after all, it is settled as itself.
 */
export async function cancel(
  core: Core,
  id: string,
  opts: { purpose: string; onVoided: (tx: DbConn, row: OutboundRow) => Promise<void> },
): Promise<CancelResult> {
  const row = await store.findOutbound(core.db, id);
  if (!row || ['mined', 'failed', 'dropped'].includes(row.stage)) return { kind: 'settled' };
  if (row.stage === 'replaced') return { kind: 'raced' };
  const ordering = orderingOf(core.catalogue.chain(row.chainId));
  if (row.stage === 'created') {
    const voided = await core.db.transaction().execute(async (tx) => {
      if (!(await store.lockUnsettled(tx, id, ['created']))) return undefined;
      const replaced = await ordering.voidUnsigned(core, tx, row, 'cancelled before signing');
      await opts.onVoided(tx, replaced);
      return replaced;
    });
    return voided ? { kind: 'voided', row: voided } : { kind: 'raced' };
  }
  if (row.purpose === opts.purpose) return { kind: 'already-cancelling', row };
  const { replacing } = ordering;
  if (!replacing) return { kind: 'not-replaceable' };
  // Mined but not yet recorded: settle it now rather than pay for a doomed cancellation.
  const found = await minedVersion(core, row);
  if (found) {
    await settleReceipt(core, row, found);
    return { kind: 'settled' };
  }
  const { network, kind, to, amount } = replacing.voidCall(row.fromAddress);
  return replaceSigned(core, replacing, row, { purpose: opts.purpose, intent: { kind, to, amount }, network }, 'cancelled');
}
