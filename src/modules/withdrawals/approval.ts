/**
 * Withdrawals under transaction policies (docs/policies.md).
 *
 * In the creating transaction (create.ts): every item is a policy candidate (WITHDRAW, or
 * BATCH_ITEM for an item of a batch); the business's rules are read, the velocity windows the
 * items count in locked and read (policies/session.ts), and each request decided before its
 * funds are checked: a BLOCK refuses it before anything is reserved, a REQUIRE_APPROVAL item
 * is written PENDING_APPROVAL (nothing signed, no nonce, its amount held back like a pending
 * withdrawal's) with an approval request and `withdraw.pending_approval`.
 *
 * After it (`approval.decided`, subscriptions.ts): APPROVED sends it on as any withdrawal
 * (a nonce, the send job); REJECTED or EXPIRED cancels it (`withdraw.cancelled`), which
 * releases what it held. The client may cancel it while it waits (lifecycle.ts).
 */
import { addressKey } from '../../chains/address-key.js';
import type { DbConn, DbTx } from '../../db/pool.js';
import type { EventPayloads, Purpose } from '../../events.js';
import { ConflictError, type BusinessRuleError } from '../../lib/errors.js';
import type { AuthContext } from '../apikeys/service.js';
import { initiatorOf, labelOf, refusalOf, requireAllowed, type Candidate, type Decision, type PolicySession } from '../policies/service.js';
import { usdValue } from '../rates/service.js';
import { paymentOf, sponsorOf } from './funds.js';
import { readStanding } from './standing.js';
import * as store from './store.js';
import type { Sender, WithdrawalServiceDeps } from './types.js';
import type { Item } from './validate.js';

/** The event withdrawals send when a payout that waited for approval is refused (never withdraw.failed: nothing was sent). */
export const CANCELLED_EVENT = 'withdraw.cancelled';
export const PENDING_APPROVAL_EVENT = 'withdraw.pending_approval';

/** A withdrawal item as a policy candidate: WITHDRAW, BATCH_ITEM, or SIGN_ONLY for a signature only. */
export function candidateOf(
  deps: WithdrawalServiceDeps,
  auth: AuthContext,
  s: Sender,
  item: Item,
  single: boolean,
  signOnly = false,
): Candidate {
  const a = item.asset.asset.row;
  const quote = deps.rates?.cached(a.id) ?? null;
  return {
    type: signOnly ? 'SIGN_ONLY' : single ? 'WITHDRAW' : 'BATCH_ITEM',
    walletId: s.wallet.id,
    addressId: s.addressId,
    asset: { id: a.id, symbol: a.symbol, decimals: a.decimals },
    amount: item.amount,
    amountUsd: quote ? usdValue(item.amount, a.decimals, quote) : null,
    destination: item.to,
    destinationKind: null,
    initiator: initiatorOf(auth),
  };
}

/**
 * What cannot wait for approval (a signature answered at once) goes ahead only when
 * allowed: a REQUIRE_APPROVAL reaching it (rules refuse to say so, validate.ts) is a refusal.
 */
export function refuseUnlessAllowed(items: Item[], decisions: Decision[]): void {
  requireAllowed(decisions, (k) => items[k]!.field || 'amount');
}

/** A BLOCK decision as the client reads it: which rule, and why it matched. */
export function policyRefusal(item: Item, d: Decision): BusinessRuleError {
  return refusalOf(d, item.field || 'amount');
}

/** What create.ts hands over for each item a rule holds for approval. */
export interface Held {
  transactionId: string;
  s: Sender;
  auth: AuthContext;
  decision: Decision;
}

/** The approval requests and their events, in the creating transaction, after the rows are written. */
export async function openApprovals(deps: WithdrawalServiceDeps, tx: DbTx, held: Held[]): Promise<void> {
  if (held.length === 0) return;
  await deps.webhooks.emitForTransactions(
    tx,
    held.map((h) => h.transactionId),
    PENDING_APPROVAL_EVENT,
  );
  // Last: it writes the audit log, whose lock is then held to the commit.
  await deps.policies.approvals.open(
    tx,
    held.map((h) => ({
      transactionId: h.transactionId,
      walletId: h.s.wallet.id,
      businessId: h.s.wallet.business_id,
      rule: h.decision.rule!,
      initiator: initiatorOf(h.auth),
      initiatorLabel: labelOf(h.auth),
    })),
  );
}

/** Decides every fresh item of a request; throws the first BLOCK. The items held for approval, by index. */
export function decideItems(
  deps: WithdrawalServiceDeps,
  session: PolicySession,
  auth: AuthContext,
  s: Sender,
  items: Item[],
  single: boolean,
): { candidates: Candidate[]; decisions: Decision[] } {
  const candidates = items.map((item) => candidateOf(deps, auth, s, item, single));
  const decisions = session.decide(candidates);
  const blocked = decisions.findIndex((d) => d.action === 'BLOCK');
  if (blocked >= 0) throw policyRefusal(items[blocked]!, decisions[blocked]!);
  return { candidates, decisions };
}

/**
 * `approval.decided` (subscriptions.ts), in the transaction that decided: sends the payout
 * on, or cancels it. Runs after the request's row lock, then takes the transaction's.
 */
export async function approvalDecided(deps: WithdrawalServiceDeps, tx: DbConn, p: EventPayloads['approval.decided']): Promise<void> {
  const t = await store.lockTransaction(tx, p.transactionId);
  if (!t || t.type !== 'WITHDRAW' || t.status !== 'PENDING_APPROVAL') return;
  if (p.outcome !== 'APPROVED') {
    await refuse(deps, tx, t.id, `cancelled: ${p.reason}`);
    return;
  }
  const wallet = await deps.wallets.requireRow(t.wallet_id, tx);
  const chain = deps.wallets.chainOf(wallet);
  let address = wallet.address;
  let index: number | null = 0;
  if (t.address_id) {
    const row = await deps.addresses.findRow(t.address_id, tx);
    address = row!.address;
    index = row!.derivation_index;
  }
  // The sender's lock, then the wallet's standing (active, enabled assets, whitelist) read
  // under its locks, shared and held to this COMMIT (standing.ts readStanding), in the order
  // every payout takes them: a deactivation, an asset disabled or a whitelist entry removed
  // and answered while this vote was under way, by any API process, is seen, and one asked
  // now waits for this COMMIT. Read before them, the payout went out after the change was
  // answered.
  await store.lockSender(tx, chain.id, address);
  const standing = await readStanding(deps, tx, wallet.id);
  // Sent as any withdrawal, so refused as any would be now: a wallet deactivated, or the
  // asset disabled on it, while the payout waited stops it (a new one is 422
  // WALLET_INACTIVE / ASSET_NOT_ENABLED). Cancelled, releasing what it held, as below.
  if (!standing.isActive) {
    await refuse(deps, tx, t.id, 'cancelled: approved, but the wallet was deactivated while the payout waited');
    return;
  }
  // On the deciding transaction's connection: a read sent to the pool from inside it would
  // hold this connection while waiting for another (docs/architecture.md, "One connection per
  // transaction"), and with as many votes at once as the pool has connections none would get one.
  const asset = (await deps.walletAssets.enabled(wallet, tx)).find((e) => e.asset.row.id === t.asset_id);
  if (!asset) {
    await refuse(deps, tx, t.id, 'cancelled: approved, but its asset is no longer enabled on the wallet');
    return;
  }
  const item: Item = {
    asset,
    to: t.recipient_address!,
    amount: BigInt(t.amount!),
    reference: null,
    note: null,
    metadata: null,
    field: '',
  };
  // The wallet may have stopped paying this address while the payout waited.
  const allowed = standing.whitelist;
  if (allowed.size > 0 && !allowed.has(addressKey(item.to))) {
    await refuse(deps, tx, t.id, `cancelled: approved, but ${item.to} is no longer a whitelisted beneficiary of the wallet`);
    return;
  }
  const payer = sponsorOf(chain, address, wallet.address);
  // Sent as it was accepted: with the fee fields the client fixed, and within the fee quoted
  // at its acceptance, whatever the network asks by the time it is approved: what its sender
  // holds (reserved_fee), or, where the master pays it (sponsored, funds.ts: the child holds
  // none of it), what the master holds back for it while it waits (store.ts heldBack). Rows
  // held before quoted_fee existed: within reserved_fee, as then.
  const quoted = t.quoted_fee ?? t.reserved_fee;
  const reserved = quoted === null ? 0n : BigInt(quoted);
  const sent = await deps.outbound.enqueue(tx, {
    chainId: chain.id,
    walletId: wallet.id,
    wallet,
    fromIndex: index,
    ...(index === null ? { fromAddress: address } : {}),
    intent: paymentOf(item),
    ...(t.send_network ? { network: t.send_network } : {}),
    ...(reserved > 0n ? { feeCeiling: reserved } : {}),
    purpose: 'withdraw' satisfies Purpose,
    ownerId: t.id,
    ...(payer ? { feePayer: payer } : {}),
  });
  if (!(await deps.transactions.grantApproval(tx, t.id, sent.nonce))) {
    throw new ConflictError('TRY_AGAIN', 'The transaction changed state meanwhile; try again');
  }
}

async function refuse(deps: WithdrawalServiceDeps, tx: DbConn, id: string, reason: string): Promise<void> {
  if (await deps.transactions.refuseApproval(tx, id, reason)) await deps.webhooks.emitForTransaction(tx, id, CANCELLED_EVENT);
}

/**
 * The client cancels a payout while it waits for approval: the request closed (its lock
 * first, as every decision takes it) and the payout CANCELLED in one transaction. False
 * when it no longer waits (approved meanwhile: the ordinary cancel applies).
 */
export async function cancelWaiting(deps: WithdrawalServiceDeps, auth: AuthContext, id: string): Promise<boolean> {
  return deps.db.transaction().execute(async (tx) => {
    const open = await deps.policies.approvals.lockOpen(tx, id);
    if (!(await deps.transactions.refuseApproval(tx, id, `cancelled by ${labelOf(auth)} while waiting for approval`))) return false;
    await deps.webhooks.emitForTransaction(tx, id, CANCELLED_EVENT);
    if (open) await deps.policies.approvals.closeCancelled(tx, auth, open);
    return true;
  });
}
