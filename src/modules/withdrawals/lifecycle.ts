/**
 * A broadcast withdrawal after its creation: the signed hash recorded, completion (SUCCESS
 * or FAILED with the receipt's figures, `withdraw.success` / `withdraw.failed` in the same
 * database transaction), cancel and retry (DESIGN section 7).
 *
 * - Cancel: never signed -> CANCELLED at once, its nonce filled by a 0-value self-transfer;
 *   signed (maybe broadcast) -> a 0-value self-transfer with the same nonce and bumped fees,
 *   CANCELLED once that is mined; if the withdrawal is mined instead it is SUCCESS. Mined,
 *   failed or cancelled -> 409.
 * - Retry: FAILED (reverted, dropped or voided: nothing of it is pending) -> a new send with
 *   a new nonce, fees at least 10% above the failed attempt's, after the same balance check
 *   as a new withdrawal; PENDING and signed -> replaced now with bumped fees (speed-up);
 *   SUCCESS or CANCELLED -> 409.
 * A cancellation that gets mined is reported with `withdraw.failed` (status CANCELLED): the
 * event list has no cancellation event, and for the receiver the withdrawal did not happen.
 * Like a mined withdrawal, a mined cancellation is followed to the chain's depth: a reorg
 * that removes it reopens the withdrawal, which then ends as whichever version is mined.
 */
import { BusinessRuleError, ConflictError } from '../../lib/errors.js';
import type { DbConn } from '../../db/pool.js';
import type { Purpose } from '../../events.js';
import type { AuthContext } from '../apikeys/service.js';
import { REVERTED, type Confirmation, type OutboundRow, type OutboundService } from '../outbound/service.js';
import { sendEnd, type Mined, type TransactionRow, type TransactionView } from '../transactions/service.js';
import { countedOf } from '../policies/service.js';
import { paymentOf, checkAgainstPending, chargedFee, planGas, snapshot, sponsorOf } from './funds.js';
import type { SenderAccess, WithdrawalServiceDeps } from './types.js';
import { readStanding, standingRefusal } from './standing.js';
import * as store from './store.js';
import type { Item } from './validate.js';
import { approvalDecided, cancelWaiting, candidateOf } from './approval.js';
import { screen } from './guards.js';
import type { EventPayloads } from '../../events.js';

export const CANCEL_PURPOSE = 'withdraw-cancel' satisfies Purpose;
const ATTEMPTS = 5;

export interface LifecycleResult {
  transaction: TransactionView;
  /** True when the outcome waits for the chain (a cancellation or replacement is in flight). */
  pending: boolean;
}

export class WithdrawalLifecycle {
  constructor(
    private readonly deps: WithdrawalServiceDeps,
    private readonly service: SenderAccess,
  ) {}

  async cancel(auth: AuthContext, walletId: string, id: string): Promise<LifecycleResult> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const t = await this.#pendingWithdrawal(auth, walletId, id, 'cancelled');
      // Waiting for approval: nothing was signed, so it is cancelled at once (approval.ts).
      if (t.status === 'PENDING_APPROVAL') {
        if (await cancelWaiting(this.deps, auth, id)) return this.#result(id, false);
        continue; // approved meanwhile: cancel it as a pending withdrawal
      }
      const live = (await this.deps.outbound.liveOf(id))[0];
      if (!live) continue; // settled between the two reads: look again
      const r = await this.deps.outbound.cancel(live.id, {
        purpose: CANCEL_PURPOSE,
        onVoided: (tx, row) => this.#cancelledNow(tx, t.id, row),
      });
      if (r.kind === 'voided') return this.#result(id, false);
      if (r.kind === 'replaced' || r.kind === 'already-cancelling') return this.#result(id, true);
      if (r.kind === 'unaffordable') throw unaffordable('cancelling transaction', r.needed, r.balance);
      if (r.kind === 'not-replaceable') {
        throw new ConflictError(
          'NOT_CANCELLABLE',
          'This withdrawal is already signed and sent; on this chain a sent transaction cannot be cancelled, only left to land or expire',
        );
      }
    }
    throw new ConflictError('TRY_AGAIN', 'The transaction changed state while it was being cancelled; try again');
  }

  async retry(auth: AuthContext, walletId: string, id: string): Promise<LifecycleResult> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const t = await this.deps.transactions.require(auth, walletId, id);
      if (t.type !== 'WITHDRAW') throw new ConflictError('NOT_RETRYABLE', `A ${t.type} transaction cannot be retried`);
      if (t.status === 'SUCCESS') throw new ConflictError('ALREADY_MINED', 'This withdrawal was mined successfully; nothing to retry');
      if (t.status === 'CANCELLED') throw new ConflictError('ALREADY_CANCELLED', 'This withdrawal was cancelled; make a new one');
      if (t.status === 'FAILED') {
        this.#requireFinal(t);
        return this.#resend(auth, t);
      }
      if (t.status === 'PENDING_APPROVAL') {
        throw new ConflictError('AWAITING_APPROVAL', 'This withdrawal waits for approval and was never sent; there is nothing to retry');
      }
      const live = (await this.deps.outbound.liveOf(id))[0];
      if (!live) continue;
      if (live.purpose === CANCEL_PURPOSE) throw new ConflictError('CANCELLATION_PENDING', 'This withdrawal is being cancelled');
      const r = await this.deps.outbound.speedUp(live.id);
      if (r.kind === 'not-signed') {
        throw new ConflictError('NOT_YET_SENT', 'This withdrawal is queued and not signed yet; there is nothing to speed up');
      }
      if (r.kind === 'replaced') return this.#result(id, true);
      if (r.kind === 'unaffordable') throw unaffordable('replacement', r.needed, r.balance);
      if (r.kind === 'not-replaceable') {
        throw new ConflictError(
          'NOT_RETRYABLE',
          'On this chain a sent transaction cannot be replaced; if it expires unmined it is rebuilt and sent again automatically',
        );
      }
    }
    throw new ConflictError('TRY_AGAIN', 'The transaction changed state while it was being retried; try again');
  }

  /**
   * A FAILED attempt that was mined (reverted) is retried only once its block is the
   * chain's confirmations deep: a reorg could otherwise take it away, and its signed bytes
   * (which must fill its nonce, confirm.ts) could then succeed after the retry paid too.
   */
  #requireFinal(t: Pick<TransactionRow, 'chain_id' | 'confirmations'> & { block_number: unknown }): void {
    if (t.block_number === null) return; // never mined (dropped or voided): nothing can come back
    const need = Math.max(1, this.deps.catalogue.chain(t.chain_id).config.confirmations);
    if ((t.confirmations ?? 0) >= need) return;
    throw new ConflictError(
      'NOT_FINAL',
      `The failed attempt is ${t.confirmations ?? 0} of ${need} blocks deep; retry once it is final (a reorganisation could still undo it)`,
    );
  }

  /** A PENDING withdrawal, or the 409 (404 when foreign) that its state gives. */
  async #pendingWithdrawal(auth: AuthContext, walletId: string, id: string, verb: string): Promise<TransactionRow> {
    const t = await this.deps.transactions.require(auth, walletId, id);
    if (t.type !== 'WITHDRAW') throw new ConflictError('NOT_CANCELLABLE', `A ${t.type} transaction cannot be ${verb}`);
    if (t.status === 'SUCCESS') throw new ConflictError('ALREADY_MINED', `This withdrawal is already mined; it cannot be ${verb}`);
    if (t.status === 'CANCELLED') throw new ConflictError('ALREADY_CANCELLED', 'This withdrawal is already cancelled');
    if (t.status === 'FAILED') throw new ConflictError('NOT_CANCELLABLE', 'This withdrawal failed; nothing is pending to cancel');
    return t;
  }

  /** A FAILED withdrawal sent again: new nonce, fees above the last attempt's, funds checked as for a new one. */
  async #resend(auth: AuthContext, t: TransactionRow): Promise<LifecycleResult> {
    const s = await this.service.sender(auth, t.wallet_id, t.address_id);
    const asset = (await this.deps.walletAssets.enabled(s.wallet)).find((e) => e.asset.row.id === t.asset_id);
    if (!asset) throw new BusinessRuleError('ASSET_NOT_ENABLED', 'The asset of this withdrawal is no longer enabled on the wallet');
    const item: Item = {
      asset,
      to: t.recipient_address!,
      amount: BigInt(t.amount!),
      reference: t.reference,
      note: t.note,
      metadata: null,
      field: '',
    };
    await this.service.checkWhitelist(s.wallet.id, [item]);
    // Sent again as a new payout is judged: its destination screened now (a listing since the
    // first attempt refuses it, audited), and the transaction policies decided below.
    await screen(this.deps, auth, s, [item], 'withdraw');
    // Its USD quote read now, as a new withdrawal's is (outside the transaction): the decision
    // below takes only what is cached, and without a quote a USD rule would not match it.
    await this.deps.rates?.prefetch([item.asset.asset.row.id]);
    const snap = await snapshot(this.deps.db, s.chain, s.address, [item]);
    // Fees above the last attempt's (the family's bump rule), and at least the current quote.
    const earlier = (await this.deps.outbound.ofOwner(t.id)).map((r) => r.network);
    const payer = sponsorOf(s.chain, s.address, s.wallet.address);
    const plan = await planGas(s.chain, s.address, [item], {}, earlier, payer);
    const quote = plan.quotes[0]!;
    const fee = chargedFee(plan, 0);

    await this.service.serialise(s, () =>
      this.deps.db.transaction().execute(async (tx) => {
        await store.lockSender(tx, s.chain.id, s.address);
        // The wallet's standing as a new withdrawal reads it, under its locks held to this
        // COMMIT (standing.ts): a deactivation, an asset disabled or the destination taken off
        // the whitelist, answered while this retry screened and priced it, refuses it.
        const refused = standingRefusal(await readStanding(this.deps, tx, s.wallet.id), [item]);
        if (refused) throw refused;
        // The policies, as for a new withdrawal (the sender's lock, then the windows' locks):
        // a FAILED payout counts in no velocity window, so without a decision here a retry
        // would move money the windows never weighed, or that a rule made since refuses.
        // REQUIRE_APPROVAL refuses too: a retry answers at once (a new withdrawal would wait).
        const candidate = candidateOf(this.deps, auth, s, item, true);
        await this.deps.policies.requireAllowed(tx, s.wallet.business_id, [candidate], () => 'amount');
        const locked = await store.lockTransaction(tx, t.id);
        if (locked?.status !== 'FAILED') throw new ConflictError('TRY_AGAIN', 'The transaction changed state meanwhile; try again');
        // The failure found now may be another attempt's than the one judged above: a retry
        // that ran meanwhile sent it again and that attempt failed too, maybe not final yet.
        this.#requireFinal(locked);
        await checkAgainstPending(tx, s.chain, s.address, [item], [fee], snap);
        const sent = await this.deps.outbound.enqueue(tx, {
          chainId: s.chain.id,
          walletId: s.wallet.id,
          wallet: s.wallet,
          fromIndex: s.index,
          intent: paymentOf(item),
          network: quote.fixed,
          // Within the fee quoted now, also where the master pays it (fee is then 0 for the sender).
          ...(quote.fee > 0n ? { feeCeiling: quote.fee } : {}),
          purpose: 'withdraw' satisfies Purpose,
          ownerId: t.id,
          ...(payer ? { feePayer: payer } : {}),
        });
        await this.deps.transactions.retryWithdrawal(tx, t.id, fee, sent.nonce, countedOf(candidate));
      }),
    );
    return this.#result(t.id, true);
  }

  async #result(id: string, pending: boolean): Promise<LifecycleResult> {
    return { transaction: await this.deps.transactions.load(id), pending };
  }

  /** approval.decided (src/subscriptions.ts): the held payout is sent on or cancelled (approval.ts). */
  approvalDecided(tx: DbConn, decided: EventPayloads['approval.decided']): Promise<void> {
    return approvalDecided(this.deps, tx, decided);
  }

  /** outbound.signed of 'withdraw' (src/subscriptions.ts): the withdrawal holds the signed hash. */
  async signed(tx: DbConn, row: OutboundRow): Promise<void> {
    if (!row.ownerId) return;
    // Every withdrawal the transaction carries holds its hash (one, or a group's: outbound_owners).
    const owners = await this.deps.outbound.ownersOf(row.ownerId, tx);
    // A speed-up bids at least 10% above the version it replaces, so its worst case can pass
    // what the acceptance reserved (reserved_fee), and the funds check of every later request
    // from this sender would count too little for it: a lone withdrawal's reservation follows
    // its costliest version (a group's fee was split between its items when reserved). Not
    // under a fee payer (a Solana child's: the master pays it, and the child reserved none):
    // the child would hold a fee in coin it need not have, refusing its every later payout.
    const worstFee =
      owners.length === 1 && !row.feePayer ? this.deps.catalogue.chain(row.chainId).adapter.sender.costOf(0n, row.network) : undefined;
    for (const id of owners) {
      await this.deps.transactions.recordSigned(tx, id, {
        hash: row.hash!,
        raw: row.raw!,
        nonce: row.nonce,
        fees: this.deps.outbound.feeFields(row),
        ...(worstFee !== undefined ? { worstFee } : {}),
      });
    }
  }

  /** outbound.settled of 'withdraw': SUCCESS or FAILED, with its webhook. */
  async settled(tx: DbConn, row: OutboundRow): Promise<void> {
    if (!row.ownerId) return;
    // One transaction may carry several withdrawals (a group, in order): each is settled
    // from this row, in the pipeline's transaction that settles it once; the fee paid is
    // split between them (minedOf).
    const owners = await this.deps.outbound.ownersOf(row.ownerId, tx);
    for (const [k, id] of owners.entries()) {
      const t = await store.lockTransaction(tx, id);
      if (!t || t.status !== 'PENDING') continue;
      // An earlier attempt (another nonce) never settles a retried withdrawal.
      if (!holdsSlot(t.nonce, row)) continue;
      const ok = row.stage === 'mined';
      await this.deps.transactions.settleWithdrawal(tx, t.id, {
        ...sendEnd(ok, row.stage === 'replaced' ? 'failed' : row.stage),
        reason: ok ? null : failureReason(row),
        mined: minedOf(this.deps.outbound, row, k, owners.length),
      });
      await this.deps.webhooks.emitForTransaction(tx, t.id, ok ? 'withdraw.success' : 'withdraw.failed');
    }
  }

  /**
   * After settlement: the depth of the receipt's block, a move to another block, or a reorg
   * that took it away (PENDING again while the same signed bytes are re-sent; settled
   * again by settled(), with `withdraw.success` or `withdraw.failed`, when mined again).
   * Only for the attempt whose hash the withdrawal holds. outbound.confirmed of 'withdraw'.
   */
  async confirmation(tx: DbConn, row: OutboundRow, change: Confirmation): Promise<void> {
    if (!row.ownerId || !row.hash) return;
    const owners = await this.deps.outbound.ownersOf(row.ownerId, tx);
    for (const [k, id] of owners.entries()) {
      const t = await store.lockTransaction(tx, id);
      if (!t) continue;
      if (change.kind === 'depth') await this.deps.transactions.setConfirmations(tx, t.id, row.hash, change.depth);
      else if (change.kind === 'moved')
        await this.deps.transactions.moveBlock(tx, t.id, minedOf(this.deps.outbound, row, k, owners.length)!, change.depth);
      else await this.deps.transactions.reopenAfterReorg(tx, t.id, row.hash, `reorganised away, being sent again: ${change.reason}`);
    }
  }

  /** outbound.settled of the cancel purpose: the 0-value self-transfer took the nonce, the withdrawal can never be mined now. */
  async cancelSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    const t = row.ownerId ? await store.lockTransaction(tx, row.ownerId) : undefined;
    if (!t || t.status !== 'PENDING') return;
    const took = row.stage === 'mined' || row.stage === 'failed';
    await this.deps.transactions.settleWithdrawal(tx, t.id, {
      ...(took ? { status: 'CANCELLED', stage: 'cancelled' } : sendEnd(false, row.stage)),
      reason: took
        ? `cancelled: nonce ${row.nonce} was taken by the 0-value self-transfer ${row.hash}`
        : `the cancellation did not get its nonce mined: ${row.error ?? row.stage}`,
      mined: minedOf(this.deps.outbound, row),
    });
    await this.deps.webhooks.emitForTransaction(tx, t.id, 'withdraw.failed');
  }

  /**
   * outbound.confirmed of the cancel purpose: the CANCELLED withdrawal follows its
   * cancellation's receipt as a mined withdrawal follows its own (confirmation above). A
   * reorg that takes the cancel away makes the withdrawal PENDING again: the original was
   * broadcast too and may now hold the nonce. The tracker then settles the cancel row's
   * family by whichever version the chain has (core.ts, minedVersion): the original through
   * settled() (SUCCESS, withdraw.success), the cancel again through cancelSettled().
   */
  async cancelConfirmation(tx: DbConn, row: OutboundRow, change: Confirmation): Promise<void> {
    if (!row.ownerId || !row.hash) return;
    const t = await store.lockTransaction(tx, row.ownerId);
    if (!t) return;
    if (change.kind === 'depth') await this.deps.transactions.setConfirmations(tx, t.id, row.hash, change.depth);
    else if (change.kind === 'moved') await this.deps.transactions.moveBlock(tx, t.id, minedOf(this.deps.outbound, row)!, change.depth);
    else
      await this.deps.transactions.reopenAfterReorg(
        tx,
        t.id,
        row.hash,
        `the cancellation was reorganised away; nonce ${row.nonce} goes to whichever of the withdrawal and its cancellation is mined: ${change.reason}`,
      );
  }

  /**
   * The row was voided before it was signed. A row carrying several withdrawals (a batch on
   * Solana, outbound_owners) is one transaction: voiding it cancels every withdrawal it
   * carries, each CANCELLED with its withdraw.failed (docs/withdrawals.md, "On Solana").
   */
  async #cancelledNow(tx: DbConn, id: string, voided: OutboundRow): Promise<void> {
    const owners = voided.ownerId ? await this.deps.outbound.ownersOf(voided.ownerId, tx) : [id];
    for (const each of owners) {
      const t = await store.lockTransaction(tx, each);
      // Rolls the voiding back too: a live row always belongs to PENDING withdrawals.
      if (t?.status !== 'PENDING') throw new ConflictError('TRY_AGAIN', 'The transaction changed state meanwhile; try again');
      await this.deps.transactions.settleWithdrawal(tx, each, {
        status: 'CANCELLED',
        stage: 'cancelled',
        reason:
          owners.length > 1 && each !== id
            ? `cancelled before broadcast with ${id}: they were to be sent in one transaction`
            : voided.replacedBy
              ? `cancelled before broadcast; nonce ${voided.nonce} is filled by a 0-value self-transfer`
              : 'cancelled before broadcast',
        mined: null,
      });
      await this.deps.webhooks.emitForTransaction(tx, each, 'withdraw.failed');
    }
  }
}

/**
 * The receipt as withdrawal `k` of the `of` the transaction carries records it: its share of
 * what was used (an equal share, the remainder on the first), so that the recorded fees
 * (used x price) sum exactly to what the transaction cost.
 */
function minedOf(outbound: OutboundService, row: OutboundRow, k = 0, of = 1): Mined | null {
  const m = outbound.mined(row);
  if (!m) return null;
  return { ...m, gasUsed: m.gasUsed / BigInt(of) + (k === 0 ? m.gasUsed % BigInt(of) : 0n) };
}

/**
 * Whether the row is in the ordering slot the withdrawal's current attempt recorded (its
 * nonce); where the withdrawal recorded none (an 'expiry' family), any row of its own is.
 */
function holdsSlot(recorded: string | null, row: OutboundRow): boolean {
  return recorded === null || BigInt(recorded) === row.nonce;
}

function failureReason(row: OutboundRow): string {
  if (row.stage === 'failed') {
    // The chain's own words when it says more than "reverted" (e.g. out of resources).
    const detail = row.error && row.error !== REVERTED ? `: ${row.error}` : '';
    return `the transaction reverted on chain (the network fee was paid)${detail}`;
  }
  if (row.stage === 'dropped') return `never mined: ${row.error ?? 'its nonce was used by another transaction'}`;
  return row.error ?? 'not sent';
}

function unaffordable(what: string, needed: bigint, balance: bigint): BusinessRuleError {
  return new BusinessRuleError(
    'INSUFFICIENT_BALANCE',
    `The sender cannot pay the network fee of the ${what}: needs up to ${needed}, holds ${balance} (base units of the native coin)`,
  );
}
