/**
 * Replacing a signed transaction: same sender, same nonce, both fee fields raised by at
 * least 10% (and to at least the current estimate). A speed-up re-sends the same call; a
 * cancellation sends a 0-value self-transfer instead. The original steps aside as
 * 'replaced' (replaced_by) in the database transaction that stores the replacement's
 * signature, but stays in the replacement's family: whichever version is mined settles
 * the owner, once (core.ts, minedVersion / settleReceipt).
 *
 * Families with 'expiry' ordering (Tron, Solana) cannot replace a signed transaction: there
 * is no slot to take. One that expired unmined is rebuilt instead (rebuildExpired): a new
 * row with the same call, signed afresh with a new deadline, once the chain's head is past
 * the old one and no version landed. Before that, a speed-up or a cancellation is refused.
 */
import type { IntentBody, NetworkData } from '../../chains/types.js';
import { intentOf, nativeValueOf } from '../../chains/intents.js';
import type { DbConn } from '../../db/pool.js';
import { uuidv7 } from '../../lib/ids.js';
import { logFields, successorOf } from './checks.js';
import { broadcast, voidUnsigned, minedVersion, settleReceipt, signedHook, type BroadcastOutcome, type Core } from './core.js';
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
export async function replaceSigned(core: Core, row: OutboundRow, spec: ReplacementSpec, why: string): Promise<ReplaceResult> {
  const chain = core.catalogue.chain(row.chainId);
  const { sender } = chain.adapter;
  // The family's bump rule over the original, against a fresh quote (EVM: +10%, at least the current fees).
  const network = { ...(await sender.replacementNetwork(row.network)), ...spec.network };
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
    if (!(await store.lockUnsettled(tx, row.id, ['signed', 'broadcast']))) return undefined;
    await store.markReplaced(tx, row.id, id, `${why}: replaced by ${signed.hash}`);
    await store.insertOutbound(tx, successorOf(row, id, { intent: spec.intent, network, purpose: spec.purpose, ownerId: row.ownerId }));
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
  if (row.nonce === null) return { kind: 'not-replaceable' };
  return replaceSigned(core, row, { purpose: row.purpose, intent: row.intent }, why);
}

/**
 * Whether an unmined row is due for a speed-up: its fee cap was refused outright, or no
 * version got mined for `replaceAfterMs` since it was first accepted (signed, if never).
 * Times are the database's; the two clocks only need to agree to well under that delay.
 */
export function replacementDue(core: Core, row: OutboundRow, outcome: BroadcastOutcome, now = Date.now()): boolean {
  if (row.nonce === null) return false; // an 'expiry' family: rebuilt once expired, never replaced
  if (outcome === 'fee-too-low') return true;
  return now - (row.broadcastAt ?? row.updatedAt).getTime() >= core.opts.replaceAfterMs;
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
  if (row.stage === 'created') {
    const voided = await core.db.transaction().execute(async (tx) => {
      if (!(await store.lockUnsettled(tx, id, ['created']))) return undefined;
      const replaced = await voidUnsigned(core, tx, row, 'cancelled before signing');
      await opts.onVoided(tx, replaced);
      return replaced;
    });
    return voided ? { kind: 'voided', row: voided } : { kind: 'raced' };
  }
  if (row.purpose === opts.purpose) return { kind: 'already-cancelling', row };
  if (row.nonce === null) return { kind: 'not-replaceable' };
  // Mined but not yet recorded: settle it now rather than pay for a doomed cancellation.
  const found = await minedVersion(core, row);
  if (found) {
    await settleReceipt(core, row, found);
    return { kind: 'settled' };
  }
  const { network, kind, to, amount } = core.catalogue.chain(row.chainId).adapter.sender.voidCall(row.fromAddress);
  return replaceSigned(core, row, { purpose: opts.purpose, intent: { kind, to, amount }, network }, 'cancelled');
}

/**
 * An 'expiry' family's row whose deadline the chain's head has passed, with no version
 * landed (the caller checked both, in that order): it steps aside as 'replaced' by a new
 * created row with the same call and owner, which the send job prepares (a fresh deadline)
 * and signs again. The old bytes can never be included any more, so the payment cannot
 * happen twice; the owner learns the new hash from outbound.signed, as after a speed-up.
 */
export async function rebuildExpired(core: Core, row: OutboundRow): Promise<OutboundRow | undefined> {
  const id = uuidv7();
  const rebuilt = await core.db.transaction().execute(async (tx) => {
    if (!(await store.lockUnsettled(tx, row.id, ['signed', 'broadcast']))) return undefined;
    await store.markReplaced(tx, row.id, id, `expired unmined (${row.hash}); rebuilt and signed again`);
    // The same call again; its family's prepare gives it a fresh deadline.
    await store.insertOutbound(
      tx,
      successorOf(row, id, {
        intent: row.intent,
        network: row.network,
        purpose: row.purpose,
        ownerId: row.ownerId,
      }),
    );
    await store.enqueueSendJob(tx, id);
    return store.findOutbound(tx, id);
  });
  if (rebuilt) core.logger.warn({ ...logFields(row), rebuiltAs: id }, 'outbound transaction expired unmined; rebuilt');
  return rebuilt;
}
