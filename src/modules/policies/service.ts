/**
 * Transaction policies (docs/policies.md): rules per business (rules.ts), changed through the
 * API or the dashboard with every change on the audit log, applied inside the database
 * transaction that accepts a payout (session.ts), and tried without effect by the dry run.
 * Approval requests, opened when a rule says REQUIRE_APPROVAL, are approvals.ts.
 */
import type { DbConn } from '../../db/pool.js';
import type { TtlCache } from '../../lib/ttl-cache.js';
import type { Clock } from '../../lib/clock.js';
import { BusinessRuleError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import { parseAmount } from '../../lib/money.js';
import type { AuthContext } from '../apikeys/service.js';
import { usdValue, type RateService } from '../rates/service.js';
import { ApprovalService } from './approvals.js';
import { assertBusinessLevel, assertMayManagePolicies, initiatorOf, labelOf, mayManagePolicies } from './identity.js';
import { earlyDecision, type Candidate, type Decision, type Initiator, type Rule } from './rules.js';
import type { CreatePolicyBody, EvaluateBody, PolicyView, UpdatePolicyBody } from './schemas.js';
import { PolicySession } from './session.js';
import * as store from './store.js';
import { checkRule } from './validate.js';
import type { PolicyDeps } from './types.js';

export type { Candidate, Decision, Initiator, PolicyType, Rule } from './rules.js';
export { APPROVING_ROLES, ROLES, countedOf, type Role } from './rules.js';
export { PolicySession } from './session.js';
export { identityOf, initiatorOf, labelOf } from './identity.js';
export type { ApprovalView, PolicyView } from './schemas.js';

export type { PolicyDeps } from './types.js';

export interface Evaluation {
  action: Decision['action'];
  policy: PolicyView | null;
  reason: string;
  steps: Decision['steps'];
}

/** Published when a business's rules change: every process forgets whether it has any. */
export const POLICIES_CHANGED = 'policies';

export class PolicyService {
  readonly approvals: ApprovalService;
  /**
   * Business id -> its active rules, for the early check only (a few seconds stale at most,
   * emptied in every process when a rule changes): the accepting transaction reads them afresh.
   */
  readonly #rules: TtlCache<string, Rule[]>;

  constructor(private readonly deps: PolicyDeps) {
    this.approvals = new ApprovalService(deps);
    this.#rules = deps.changes.cache('policies');
    deps.changes.on(POLICIES_CHANGED, (businessId) => this.#rules.delete(businessId));
  }

  /**
   * The early answer to a request a rule refuses, before its balances are read or its fees
   * quoted, from the rules alone (rules.ts earlyDecision: a rule with a velocity or a
   * destination condition leaves the decision to the transaction). Only a refusal is acted
   * on; the accepting transaction decides again, authoritatively (session.ts), so a stale
   * copy of the rules can only delay a refusal to the transaction, never let a payout through.
   */
  async precheck(
    businessId: string,
    candidates: readonly Candidate[],
    /** Anything but ALLOW refuses (what cannot wait for approval). */
    strict = false,
  ): Promise<{ index: number; decision: Decision } | null> {
    const rules = await this.#cached(businessId);
    if (!rules || rules.length === 0) return null;
    for (const [index, c] of candidates.entries()) {
      const decision = earlyDecision(rules, c);
      if (decision && (decision.action === 'BLOCK' || (strict && decision.action !== 'ALLOW'))) return { index, decision };
    }
    return null;
  }

  async list(auth: AuthContext): Promise<PolicyView[]> {
    assertBusinessLevel(auth);
    return (await store.listPolicies(this.deps.db, auth.businessId)).map(present);
  }

  async get(auth: AuthContext, id: string): Promise<PolicyView> {
    assertBusinessLevel(auth);
    const row = await store.findPolicy(this.deps.db, auth.businessId, id);
    if (!row) throw new NotFoundError('Policy');
    return present(row);
  }

  async create(auth: AuthContext, body: CreatePolicyBody, requestId?: string): Promise<PolicyView> {
    assertMayManagePolicies(auth);
    const input = await this.#checked(auth, {
      walletId: body.walletId ?? null,
      addressId: body.addressId ?? null,
      conditions: body.conditions ?? {},
      action: body.action,
      approval: body.approval ?? null,
    });
    const row = await this.deps.changes.transaction(async (tx) => {
      await this.deps.changes.publish(tx, POLICIES_CHANGED, auth.businessId);
      const row = await store.insertPolicy(tx, uuidv7(), auth.businessId, {
        ...input,
        name: body.name,
        priority: body.priority,
        isActive: body.isActive ?? true,
      });
      await this.deps.audit.record(record(auth, 'policy.created', row.id, { policy: present(row) }, requestId), tx);
      return row;
    });
    return present(row);
  }

  async update(auth: AuthContext, id: string, body: UpdatePolicyBody, requestId?: string): Promise<PolicyView> {
    assertMayManagePolicies(auth);
    const current = await store.findPolicy(this.deps.db, auth.businessId, id);
    if (!current) throw new NotFoundError('Policy');
    // The rule the body edits, checked before the transaction (the checks read the database).
    const rule = (base: store.PolicyRow) => {
      const action = body.action ?? base.action;
      return this.#checked(
        auth,
        {
          walletId: body.walletId !== undefined ? body.walletId : base.wallet_id,
          addressId: body.addressId !== undefined ? body.addressId : base.address_id,
          conditions: body.conditions ?? base.conditions,
          action,
          // Moving away from REQUIRE_APPROVAL drops the approval settings unless new ones are sent.
          approval: body.approval !== undefined ? body.approval : action === 'REQUIRE_APPROVAL' ? base.approval : null,
        },
        { approvers: body.approval !== undefined, initiators: body.conditions !== undefined },
      );
    };
    const checked = await rule(current);
    const row = await this.deps.changes.transaction(async (tx) => {
      await this.deps.changes.publish(tx, POLICIES_CHANGED, auth.businessId);
      const before = await store.findPolicy(tx, auth.businessId, id, true);
      if (!before) throw new NotFoundError('Policy');
      // Another edit committed since the first read: this one applies its own fields on top of
      // that one's, never writing back what it read before (a concurrent quorum raise, an
      // approver removed, would be undone).
      const input = sameRule(before, current) ? checked : await rule(before);
      const row = await store.updatePolicy(tx, id, {
        ...input,
        name: body.name ?? before.name,
        priority: body.priority ?? before.priority,
        isActive: body.isActive ?? before.is_active,
      });
      await this.deps.audit.record(record(auth, 'policy.updated', id, { before: present(before), after: present(row) }, requestId), tx);
      return row;
    });
    return present(row);
  }

  async remove(auth: AuthContext, id: string, requestId?: string): Promise<PolicyView> {
    assertMayManagePolicies(auth);
    return this.deps.changes.transaction(async (tx) => {
      await this.deps.changes.publish(tx, POLICIES_CHANGED, auth.businessId);
      const row = await store.findPolicy(tx, auth.businessId, id, true);
      if (!row) throw new NotFoundError('Policy');
      await store.deletePolicy(tx, id);
      await this.deps.audit.record(record(auth, 'policy.deleted', id, { policy: present(row) }, requestId), tx);
      return present(row);
    });
  }

  /**
   * A change to a wallet's beneficiaries that changes what an address is to the wallet (a
   * beneficiary added, whitelisted or not, activated or not, deleted): refused with 403
   * POLICY_MANAGEMENT_NOT_ALLOWED while an active rule with a destination condition applies to
   * the wallet, unless the caller may manage policies. Such a rule decides on the wallet's
   * beneficiaries, so changing them changes the rule: a key that could make its destination a
   * whitelisted beneficiary would lift the rule holding its payout. Call it in the transaction
   * that writes the change.
   */
  async assertMayReclassify(db: DbConn, auth: AuthContext, wallet: { id: string; business_id: string }): Promise<void> {
    if (mayManagePolicies(auth)) return;
    const rule = await store.destinationRuleOf(db, wallet.business_id, wallet.id);
    if (!rule) return;
    throw new ForbiddenError(
      `The policy "${rule.name}" (${rule.id}) decides payouts by this wallet's beneficiaries: adding, whitelisting, deactivating or deleting one needs a business key with the MANAGE_POLICIES scope, or a dashboard owner or admin`,
      'POLICY_MANAGEMENT_NOT_ALLOWED',
    );
  }

  /**
   * The live decision's twin without effect: the same rules, the same windows (read without
   * their locks), the same first match. Nothing is written.
   */
  async evaluate(auth: AuthContext, body: EvaluateBody): Promise<Evaluation> {
    assertBusinessLevel(auth);
    const candidate = await this.#candidate(auth, body);
    const session = await PolicySession.open(this.deps.db, auth.businessId, [candidate], { lock: false });
    const decision = session.decide([candidate])[0]!;
    return this.explain(decision);
  }

  /** A decision as the API shows it. */
  async explain(decision: Decision): Promise<Evaluation> {
    const deciding = decision.steps.find((s) => s.matched);
    const row = decision.rule ? await store.findPolicyById(this.deps.db, decision.rule.id) : undefined;
    return {
      action: decision.action,
      policy: row ? present(row) : null,
      reason: deciding ? `${deciding.name}: ${deciding.reason}` : 'no rule matches: allowed',
      steps: decision.steps,
    };
  }

  /**
   * For a payout that cannot wait for approval (a sign-only withdrawal, a contract write, an
   * API swap, a recovery): decides `candidates` in `tx`, under the velocity windows' locks
   * unless `lock` is false, and throws the first that is not ALLOW (422 POLICY_BLOCKED; a
   * REQUIRE_APPROVAL says it cannot wait). Call it before anything is written or reserved.
   */
  async requireAllowed(
    tx: DbConn,
    businessId: string,
    candidates: readonly Candidate[],
    fieldOf: (i: number) => string,
    lock = true,
  ): Promise<void> {
    const session = await this.session(tx, businessId, candidates, lock);
    requireAllowed(session.decide(candidates), fieldOf);
    session.accept(candidates);
  }

  /**
   * The rules of a business applied in `tx` (see session.ts); `lock: false` for reads that
   * decide nothing. The cached rules only tell the session what to read with them.
   */
  session(tx: DbConn, businessId: string, candidates: readonly Candidate[], lock = true): Promise<PolicySession> {
    // Only what is cached already: loading it here would take a second connection while
    // `tx` holds one (and the sender's lock); without it the session reads all it may need.
    return PolicySession.open(tx, businessId, candidates, { lock, hint: this.#rules.get(businessId) });
  }

  /** The business's active rules, a few seconds stale at most (see #rules). */
  #cached(businessId: string): Promise<Rule[] | undefined> {
    return this.#rules.getOrLoad(businessId, async () =>
      (await store.listPolicies(this.deps.db, businessId)).map(store.ruleOf).filter((r) => r.isActive),
    );
  }

  /**
   * The rule checked (validate.ts), its wallet and address this business's, and the people
   * and keys it names live: those of the parts the request sends (`verify`; all of them on
   * create). An edit that leaves the approvers or the conditions as stored does not check
   * their names again: a key revoked or a user removed since must not stop a manager from
   * switching the rule off, renaming it or moving its priority (the stale name can no longer
   * approve or initiate anything either way).
   */
  async #checked(auth: AuthContext, input: Parameters<typeof checkRule>[0], verify = { approvers: true, initiators: true }) {
    const r = checkRule(input);
    if (r.walletId) await this.deps.wallets.require(auth, r.walletId);
    if (r.addressId) await this.deps.addresses.require(auth, r.walletId!, r.addressId);
    const approval = verify.approvers ? r.approval?.approvers : undefined;
    const initiatedBy = verify.initiators ? r.conditions.initiators : undefined;
    const users = [...(approval?.users ?? []), ...(initiatedBy?.users ?? [])];
    const approvers = approval?.apiKeys ?? [];
    const initiators = initiatedBy?.apiKeys ?? [];
    const known = await store.knownIdentities(this.deps.db, auth.businessId, users, [...approvers, ...initiators]);
    const user = users.find((u) => !known.users.has(u));
    if (user) throw new ValidationError(`${user} is not a dashboard user of this business`, [{ field: 'users', message: 'unknown user' }]);
    // An approver is a business key (one with APPROVE); a payout may be asked for by any key of
    // the business, a wallet's own included, so a rule may name one of those as its initiator.
    const approver = approvers.find((k) => !known.keys.has(k));
    if (approver)
      throw new ValidationError(`${approver} is not a live business API key of this business`, [
        { field: 'apiKeys', message: 'unknown key' },
      ]);
    const initiator = initiators.find((k) => !known.keys.has(k) && !known.walletKeys.has(k));
    if (initiator)
      throw new ValidationError(`${initiator} is not a live API key of this business or of its wallets`, [
        { field: 'apiKeys', message: 'unknown key' },
      ]);
    return r;
  }

  /** A would-be transaction from the dry run's body, read as the live flows read theirs. */
  async #candidate(auth: AuthContext, body: EvaluateBody): Promise<Candidate> {
    const wallet = await this.deps.wallets.require(auth, body.walletId);
    if (body.addressId) await this.deps.addresses.require(auth, body.walletId, body.addressId);
    const chain = this.deps.wallets.chainOf(wallet);
    let asset: Candidate['asset'] = null;
    if (body.assetId) {
      const enabled = await this.deps.walletAssets.enabledCached(wallet);
      const found = enabled.find((e) => e.walletAsset.id === body.assetId || e.asset.row.id === body.assetId)?.asset.row;
      const row = found ?? chain.assets.find((a) => a.id === body.assetId);
      if (!row) throw new NotFoundError(`Asset ${body.assetId}`);
      asset = { id: row.id, symbol: row.symbol, decimals: row.decimals };
    }
    if (body.amount !== undefined && !asset)
      throw new ValidationError('amount needs assetId', [{ field: 'assetId', message: 'required with amount' }]);
    const amount = body.amount !== undefined && asset ? parseAmount(body.amount, asset.decimals) : null;
    let destination: string | null = null;
    if (body.address !== undefined) {
      destination = chain.adapter.normalizeAddress(body.address);
      if (!destination)
        throw new ValidationError("address is not a valid address of the wallet's chain", [{ field: 'address', message: 'invalid' }]);
    }
    let amountUsd: string | null = null;
    if (asset && amount !== null && this.deps.rates) {
      await this.deps.rates.prefetch([asset.id]);
      const quote = this.deps.rates.cached(asset.id);
      amountUsd = quote ? usdValue(amount, asset.decimals, quote) : null;
    }
    const i = body.initiator;
    const initiator: Initiator = i?.apiKey
      ? { kind: 'API_KEY', id: i.apiKey }
      : i?.user
        ? { kind: 'USER', id: i.user }
        : i?.system
          ? { kind: 'SYSTEM' }
          : initiatorOf(auth);
    return {
      type: body.type,
      walletId: wallet.id,
      addressId: body.addressId ?? null,
      asset,
      amount,
      amountUsd,
      destination,
      destinationKind: destination === null ? null : 'NON_BENEFICIARY',
      initiator,
    };
  }
}

/**
 * What a candidate moves: `amount` of a catalogued asset, in USD at the quote already read
 * (RateService.prefetch before the transaction; none cached: no USD amount).
 */
export function movedOf(
  rates: RateService | undefined,
  asset: { id: string; symbol: string; decimals: number },
  amount: bigint,
): Pick<Candidate, 'asset' | 'amount' | 'amountUsd'> {
  const quote = rates?.cached(asset.id) ?? null;
  return {
    asset: { id: asset.id, symbol: asset.symbol, decimals: asset.decimals },
    amount,
    amountUsd: quote ? usdValue(amount, asset.decimals, quote) : null,
  };
}

/** A refusal as the client reads it: which rule, and why it matched (`field`: where in the request). */
export function refusalOf(d: Decision, field: string): BusinessRuleError {
  const step = d.steps.find((s) => s.matched);
  if (!step) throw new Error('a refusal needs the rule that matched');
  const why =
    d.action === 'REQUIRE_APPROVAL' ? `it needs approval, which this kind of transaction cannot wait for (${step.reason})` : step.reason;
  return new BusinessRuleError('POLICY_BLOCKED', `Refused by the policy "${step.name}": ${why}`, [
    { field, message: `blocked by policy ${step.policyId}` },
  ]);
}

/** Throws the first decision that is not ALLOW (what cannot wait for approval goes ahead only when allowed). */
export function requireAllowed(decisions: readonly Decision[], fieldOf: (i: number) => string): void {
  const k = decisions.findIndex((d) => d.action !== 'ALLOW');
  if (k >= 0) throw refusalOf(decisions[k]!, fieldOf(k));
}

export function present(r: store.PolicyRow): PolicyView {
  return {
    id: r.id,
    name: r.name,
    priority: r.priority,
    walletId: r.wallet_id,
    addressId: r.address_id,
    isActive: r.is_active,
    conditions: r.conditions,
    action: r.action,
    approval: r.approval,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

function record(auth: AuthContext, action: string, id: string, details: Record<string, unknown>, requestId?: string) {
  return {
    businessId: auth.businessId,
    walletId: null,
    actor: labelOf(auth),
    action,
    targetType: 'policy',
    targetId: id,
    details: { ...details, by: initiatorOf(auth) },
    ...(requestId ? { requestId } : {}),
  };
}

/** Whether two reads of a rule agree on what an edit builds on (all but name, priority and isActive, read under the lock). */
function sameRule(a: store.PolicyRow, b: store.PolicyRow): boolean {
  const of = (r: store.PolicyRow) => JSON.stringify([r.wallet_id, r.address_id, r.conditions, r.action, r.approval]);
  return of(a) === of(b);
}
