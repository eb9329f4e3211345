/**
 * Approval requests: opened when a REQUIRE_APPROVAL rule holds a payout back (in the
 * transaction that accepts it), decided by distinct approvers (never the initiator), by a
 * rejection, by an owner's override, or by their time to live.
 *
 * A decision is made under the request's row lock, then announced with `approval.decided`
 * in the same transaction (events.ts): the withdrawal module, subscribed in
 * subscriptions.ts, sends the payout on (APPROVED) or cancels it and releases what it held
 * (REJECTED, EXPIRED), so the vote and its effect commit together or not at all. Every vote,
 * decision and override is on the audit log, written last in the transaction.
 */
import type { DbConn, DbTx } from '../../db/pool.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import { pageMeta, type PageMeta } from '../../lib/schema.js';
import { jobs } from '../../jobs/store.js';
import type { AuthContext } from '../apikeys/service.js';
import type { AuditRecord } from '../audit/service.js';
import type { PolicyDeps } from './types.js';
import { actorOf, assertBusinessLevel, assertMayApprove, assertMayOverride, identityOf, initiatorOf, labelOf } from './identity.js';
import { APPROVING_ROLES, type Initiator, type Role, type Rule } from './rules.js';
import type { ApprovalView, ListApprovalsQuery } from './schemas.js';
import * as store from './store.js';

export interface OpenRequest {
  transactionId: string;
  walletId: string;
  businessId: string;
  rule: Rule;
  initiator: Initiator;
  initiatorLabel: string;
}

/** What a vote did. */
export type VoteOutcome = 'RECORDED' | 'APPROVED' | 'REJECTED';

const EXPIRE_BATCH = 100;

export class ApprovalService {
  constructor(private readonly deps: PolicyDeps) {}

  /** Opens one request per held payout, in the transaction that writes them; each expires by its own job. */
  async open(tx: DbTx, requests: OpenRequest[]): Promise<Map<string, string>> {
    const now = this.deps.clock.now();
    const rows = requests.map((r) => ({
      id: uuidv7(),
      businessId: r.businessId,
      walletId: r.walletId,
      transactionId: r.transactionId,
      policyId: r.rule.id,
      policyName: r.rule.name,
      approvers: r.rule.approval!.approvers,
      quorum: r.rule.approval!.quorum,
      initiator: identityOf(r.initiator),
      initiatorLabel: r.initiatorLabel,
      expiresAt: new Date(now.getTime() + r.rule.approval!.ttlSeconds * 1000),
      createdAt: now,
    }));
    await store.insertApprovals(tx, rows);
    for (const a of rows) {
      await jobs.approval_expire.add(tx, { id: a.id }, { runAt: a.expiresAt, key: jobs.approval_expire.key(a.id) });
    }
    await this.deps.audit.recordMany(
      rows.map((a) => ({
        businessId: a.businessId,
        walletId: a.walletId,
        actor: a.initiatorLabel,
        action: 'approval.requested',
        targetType: 'approval',
        targetId: a.id,
        details: {
          transactionId: a.transactionId,
          policy: { id: a.policyId, name: a.policyName },
          quorum: a.quorum,
          expiresAt: a.expiresAt,
        },
      })),
      tx,
    );
    return new Map(rows.map((a) => [a.transactionId, a.id]));
  }

  async list(auth: AuthContext, q: ListApprovalsQuery & { decided?: boolean }): Promise<{ items: ApprovalView[]; meta: PageMeta }> {
    assertBusinessLevel(auth);
    const page = q.page ?? 1;
    const limit = q.limit ?? 100;
    const { rows, total } = await store.listApprovals(
      this.deps.db,
      {
        businessId: auth.businessId,
        ...(q.status ? { status: q.status } : {}),
        ...(q.walletId ? { walletId: q.walletId } : {}),
        ...(q.decided ? { decided: true } : {}),
      },
      (page - 1) * limit,
      limit,
    );
    return { items: await this.#present(rows), meta: pageMeta(page, limit, rows.length, total) };
  }

  async get(auth: AuthContext, id: string, db: DbConn = this.deps.db): Promise<ApprovalView> {
    assertBusinessLevel(auth);
    const row = await store.findApproval(db, auth.businessId, id);
    if (!row) throw new NotFoundError('Approval');
    return (await this.#present([row], db))[0]!;
  }

  /** Open requests of the caller's business (the dashboard's badge). */
  countPending(auth: AuthContext): Promise<number> {
    return store.countPending(this.deps.db, auth.businessId);
  }

  /** The request holding a transaction, if any (the transaction page shows it). */
  async ofTransaction(auth: AuthContext, transactionId: string): Promise<ApprovalView | null> {
    const row = await store.findApprovalOfTransaction(this.deps.db, auth.businessId, transactionId);
    return row ? (await this.#present([row]))[0]! : null;
  }

  approve(auth: AuthContext, id: string, comment?: string, requestId?: string): Promise<ApprovalView> {
    return this.#vote(auth, id, 'APPROVE', comment ?? null, requestId);
  }

  reject(auth: AuthContext, id: string, comment?: string, requestId?: string): Promise<ApprovalView> {
    return this.#vote(auth, id, 'REJECT', comment ?? null, requestId);
  }

  /** An owner approves alone, at once, whatever the quorum (recorded as an override). */
  override(auth: AuthContext, id: string, comment?: string, requestId?: string): Promise<ApprovalView> {
    assertMayOverride(auth);
    return this.#vote(auth, id, 'OVERRIDE', comment ?? null, requestId);
  }

  async #vote(auth: AuthContext, id: string, decision: 'APPROVE' | 'REJECT' | 'OVERRIDE', comment: string | null, requestId?: string) {
    assertBusinessLevel(auth);
    const found = await store.findApproval(this.deps.db, auth.businessId, id);
    if (!found) throw new NotFoundError('Approval');
    if (decision !== 'OVERRIDE') assertMayApprove(auth, found.approvers);
    const voter = identityOf(initiatorOf(auth));
    if (voter === found.initiator) throw new ForbiddenError('The initiator of a payout cannot approve or reject it', 'SELF_APPROVAL');
    id = found.id;
    if (decision !== 'REJECT') await this.#screenPayout(auth, found.transaction_id, requestId);
    const expired = await this.deps.db.transaction().execute(async (tx) => {
      const a = await store.lockApprovalById(tx, id);
      if (!a || a.status !== 'PENDING') throw closed(a?.status ?? 'CANCELLED');
      const now = this.deps.clock.now();
      if (a.expires_at <= now) {
        await this.#close(tx, a, 'EXPIRED', 'its time to live passed before a decision', now, null);
        return true;
      }
      const voted = await store.insertVote(tx, { approvalId: id, voter, voterLabel: labelOf(auth), decision, comment, at: now });
      if (!voted) throw new ConflictError('ALREADY_VOTED', 'You have already voted on this request');
      const votes = await store.votesOf(tx, [id]);
      // Only the approvals of voters who still may approve: a key revoked since it voted (or a
      // user removed, or moved to a role that cannot approve) no longer counts toward the quorum.
      // Their rows are held to this COMMIT, so one revoked meanwhile is not answered before it.
      const approvals = (await approvalsOf(tx, [a], votes, true)).get(id) ?? 0;
      const entry = (action: string, details: Record<string, unknown>): AuditRecord => ({
        businessId: a.business_id,
        walletId: a.wallet_id,
        actor: labelOf(auth),
        action,
        targetType: 'approval',
        targetId: id,
        details: { transactionId: a.transaction_id, by: voter, comment, ...details },
        ...(requestId ? { requestId } : {}),
      });
      if (decision === 'REJECT') {
        await this.#close(
          tx,
          a,
          'REJECTED',
          `rejected by ${labelOf(auth)}${comment ? `: ${comment}` : ''}`,
          now,
          entry('approval.rejected', {}),
        );
      } else if (decision === 'OVERRIDE') {
        await this.#close(
          tx,
          a,
          'APPROVED',
          `approved by ${labelOf(auth)} overriding the quorum of ${a.quorum}`,
          now,
          entry('approval.override', { approvals, quorum: a.quorum }),
        );
      } else if (approvals >= a.quorum) {
        await this.#close(
          tx,
          a,
          'APPROVED',
          `approved by ${approvals} of ${a.quorum} required`,
          now,
          entry('approval.approved', { approvals, quorum: a.quorum, granted: true }),
        );
      } else {
        await this.deps.audit.record(entry('approval.approved', { approvals, quorum: a.quorum, granted: false }), tx);
      }
      return false;
    });
    if (expired) throw new ConflictError('APPROVAL_EXPIRED', 'This request expired before a decision; its payout is cancelled');
    return this.get(auth, id);
  }

  /**
   * The recipient may have been listed while the payout waited (hours, with a long time to
   * live): it is screened again before a vote that may send it, outside the vote's
   * transaction (providers answer over the network). A listed recipient refuses the vote with
   * AML_BLOCKED (audited by the screening) and records nothing; the payout keeps waiting
   * until someone rejects it or it expires.
   */
  async #screenPayout(auth: AuthContext, transactionId: string, requestId?: string): Promise<void> {
    if (!this.deps.aml) return;
    const t = await this.deps.transactions.findRow(this.deps.db, transactionId);
    if (!t?.recipient_address) return;
    const wallet = await this.deps.wallets.requireRow(t.wallet_id);
    await this.deps.aml.checkPayout({
      wallet,
      chain: this.deps.wallets.chainOf(wallet),
      recipients: [{ address: t.recipient_address, field: 'recipientAddress' }],
      operation: 'approval',
      actor: labelOf(auth),
      ...(requestId ? { requestId } : {}),
    });
  }

  /** The job at a request's time to live (and the minute's sweep): expires it if still open and due. */
  async expire(id: string): Promise<boolean> {
    return this.deps.db.transaction().execute(async (tx) => {
      const a = await store.lockApprovalById(tx, id);
      const now = this.deps.clock.now();
      if (!a || a.status !== 'PENDING') return false;
      if (a.expires_at > now) {
        // Run a little early (another process's clock): again at its time, not only at the minute's sweep.
        await jobs.approval_expire.add(tx, { id }, { runAt: a.expires_at, key: jobs.approval_expire.key(id) });
        return false;
      }
      await this.#close(tx, a, 'EXPIRED', 'its time to live passed before a decision', now, null);
      return true;
    });
  }

  /** Expires every open request past its time to live (the scheduled sweep; tests move the clock and call it). */
  async expireDue(): Promise<number> {
    let n = 0;
    for (;;) {
      const ids = await store.dueApprovals(this.deps.db, this.deps.clock.now(), EXPIRE_BATCH);
      for (const id of ids) if (await this.expire(id)) n++;
      if (ids.length < EXPIRE_BATCH) return n;
    }
  }

  /**
   * The payout's own cancellation (POST .../transactions/cancel while it waits), in two
   * steps around the caller's cancelling of the transaction: first the open request is
   * locked (the order every decision takes: request, then transaction), then closed and
   * recorded (`closeCancelled`, last in the transaction).
   */
  async lockOpen(tx: DbTx, transactionId: string): Promise<store.ApprovalRow | null> {
    const a = await store.lockApprovalOfTransaction(tx, transactionId);
    return a && a.status === 'PENDING' ? a : null;
  }

  async closeCancelled(tx: DbTx, auth: AuthContext, a: store.ApprovalRow): Promise<void> {
    await store.decideApproval(tx, a.id, 'CANCELLED', `the payout was cancelled by ${labelOf(auth)}`, this.deps.clock.now());
    await this.deps.audit.record(
      {
        businessId: a.business_id,
        walletId: a.wallet_id,
        actor: labelOf(auth),
        action: 'approval.cancelled',
        targetType: 'approval',
        targetId: a.id,
        details: { transactionId: a.transaction_id, by: identityOf(initiatorOf(auth)) },
      },
      tx,
    );
  }

  async #close(
    tx: DbTx,
    a: store.ApprovalRow,
    outcome: 'APPROVED' | 'REJECTED' | 'EXPIRED',
    reason: string,
    now: Date,
    entry: AuditRecord | null,
  ) {
    await store.decideApproval(tx, a.id, outcome, reason, now);
    await this.deps.events.emit('approval.decided', tx, { approvalId: a.id, transactionId: a.transaction_id, outcome, reason });
    await this.deps.audit.record(
      entry ?? {
        businessId: a.business_id,
        walletId: a.wallet_id,
        actor: 'system',
        action: 'approval.expired',
        targetType: 'approval',
        targetId: a.id,
        details: { transactionId: a.transaction_id, expiresAt: a.expires_at },
      },
      tx,
    );
  }

  async #present(rows: store.ApprovalRow[], db: DbConn = this.deps.db): Promise<ApprovalView[]> {
    const [votes, views] = await Promise.all([
      store.votesOf(
        db,
        rows.map((r) => r.id),
      ),
      this.deps.transactions.loadMany(
        rows.map((r) => r.transaction_id),
        db,
      ),
    ]);
    const byId = new Map(views.map((v) => [v.id, v]));
    const counted = await approvalsOf(db, rows, votes);
    return rows.map((r) => {
      const mine = votes.filter((v) => v.approval_id === r.id);
      return {
        id: r.id,
        status: r.status,
        walletId: r.wallet_id,
        transaction: byId.get(r.transaction_id)!,
        policy: { id: r.policy_id, name: r.policy_name },
        approvers: r.approvers,
        quorum: r.quorum,
        approvals: counted.get(r.id) ?? 0,
        initiator: actorOf(r.initiator, r.initiator_label),
        votes: mine.map((v) => ({
          voter: actorOf(v.voter, v.voter_label),
          decision: v.decision,
          comment: v.comment,
          at: v.created_at.toISOString(),
        })),
        reason: r.reason,
        expiresAt: r.expires_at.toISOString(),
        createdAt: r.created_at.toISOString(),
        decidedAt: r.decided_at?.toISOString() ?? null,
      };
    });
  }
}

/**
 * The approvals each request counts. An open request counts the APPROVE votes of voters who
 * may still approve it (a business key not revoked and still holding APPROVE, a dashboard
 * user not removed whose current role approves and is listed, or who is listed by id): the
 * quorum is of approvers standing when it is reached (`lock`: their rows held to the deciding
 * transaction's COMMIT, store.standingVoters). A decided request shows every approval
 * (and override) cast on it; its `reason` says how many counted when it was decided.
 */
async function approvalsOf(db: DbConn, rows: store.ApprovalRow[], votes: store.VoteRow[], lock = false): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const open = new Map(rows.filter((r) => r.status === 'PENDING').map((r) => [r.id, r]));
  for (const r of rows) {
    if (open.has(r.id)) continue;
    out.set(r.id, votes.filter((v) => v.approval_id === r.id && (v.decision === 'APPROVE' || v.decision === 'OVERRIDE')).length);
  }
  const pending = votes.filter((v) => open.has(v.approval_id) && v.decision === 'APPROVE');
  for (const r of open.values()) out.set(r.id, 0);
  for (const businessId of new Set([...open.values()].map((r) => r.business_id))) {
    const mine = pending.filter((v) => open.get(v.approval_id)!.business_id === businessId);
    const ids = (prefix: string) => [...new Set(mine.flatMap((v) => (v.voter.startsWith(prefix) ? [v.voter.slice(prefix.length)] : [])))];
    const standing = await store.standingVoters(db, businessId, ids('key:'), ids('user:'), lock);
    for (const v of mine) {
      const approvers = open.get(v.approval_id)!.approvers;
      let counts = false;
      if (v.voter.startsWith('key:')) {
        const key = v.voter.slice(4);
        counts = standing.keys.has(key) && (approvers.apiKeys ?? []).includes(key);
      } else if (v.voter.startsWith('user:')) {
        const user = v.voter.slice(5);
        const role = standing.users.get(user) as Role | undefined;
        counts =
          role !== undefined &&
          APPROVING_ROLES.includes(role) &&
          ((approvers.users ?? []).includes(user) || (approvers.roles ?? []).includes(role));
      }
      if (counts) out.set(v.approval_id, out.get(v.approval_id)! + 1);
    }
  }
  return out;
}

function closed(status: string): ConflictError {
  return new ConflictError('APPROVAL_CLOSED', `This request is already ${status.toLowerCase()}`);
}
