/**
 * What a rule must be beyond its schema: bounds in order, a whole COUNT limit, approvals
 * only on types that can wait for them and only with approvers who can give them.
 */
import { ValidationError } from '../../lib/errors.js';
import { APPROVABLE_TYPES, APPROVING_ROLES, isDecimal, scaled, type ApprovalSpec, type Conditions, type Action } from './rules.js';

const bad = (field: string, message: string) => new ValidationError(`${field} ${message}`, [{ field, message }]);

export interface RuleInput {
  walletId: string | null;
  addressId: string | null;
  conditions: Conditions;
  action: Action;
  approval: ApprovalSpec | null;
}

/** Normalises (asset symbols upper case) and checks a rule; throws the first problem as a 400. */
export function checkRule(r: RuleInput): RuleInput {
  if (r.addressId && !r.walletId) throw bad('addressId', 'needs walletId (the wallet the address belongs to)');
  const k: Conditions = { ...r.conditions };
  if (k.assets) k.assets = [...new Set(k.assets.map((a) => a.toUpperCase()))];
  if (k.amount) {
    const { min, max } = k.amount;
    if (min === undefined && max === undefined) throw bad('conditions.amount', 'needs min, max or both');
    for (const [name, v] of [
      ['min', min],
      ['max', max],
    ] as const) {
      if (v !== undefined && !isDecimal(v)) throw bad(`conditions.amount.${name}`, 'must be a plain decimal');
    }
    if (min !== undefined && max !== undefined && scaled(min) > scaled(max)) throw bad('conditions.amount.min', 'is above max');
  }
  if (k.velocity) {
    const v = k.velocity;
    if (!isDecimal(v.limit)) throw bad('conditions.velocity.limit', 'must be a plain decimal');
    if (v.measure === 'COUNT') {
      if (!/^\d{1,9}$/.test(v.limit)) throw bad('conditions.velocity.limit', 'must be a whole number of transactions for COUNT');
      if (v.currency !== undefined) throw bad('conditions.velocity.currency', 'applies to SUM only');
    }
    // The default currency is SUM's alone: a COUNT stored with one would fail this very
    // check when a later PATCH checks the stored rule again (every edit of it a 400).
    if (v.measure === 'SUM') k.velocity = { ...v, currency: v.currency ?? 'ASSET' };
  }
  if (r.action === 'REQUIRE_APPROVAL') {
    if (!r.approval) throw bad('approval', 'is required for REQUIRE_APPROVAL (approvers, quorum, ttlSeconds)');
    const types = k.types;
    if (!types || types.some((t) => !APPROVABLE_TYPES.includes(t))) {
      throw bad(
        'conditions.types',
        `must list only ${APPROVABLE_TYPES.join(' and ')} for REQUIRE_APPROVAL: other transactions answer at once or run unattended and cannot wait for approval`,
      );
    }
    const a = r.approval.approvers;
    const roles = a.roles ?? [];
    const refused = roles.find((role) => !APPROVING_ROLES.includes(role));
    if (refused) throw bad('approval.approvers.roles', `${refused} cannot approve (owner, admin and approver can)`);
    const named = (a.users ?? []).length + (a.apiKeys ?? []).length;
    if (roles.length + named === 0) throw bad('approval.approvers', 'names nobody: give roles, users or apiKeys');
    // Only named approvers: a quorum above their number could never be met, and every request
    // the rule held would wait its whole time to live and end CANCELLED. (A role's members
    // change, so a rule with roles is not counted here.)
    if (roles.length === 0 && r.approval.quorum > named) {
      throw bad('approval.quorum', `is ${r.approval.quorum}, above the ${named} approver(s) named: it could never be met`);
    }
  } else if (r.approval) {
    throw bad('approval', `is only for REQUIRE_APPROVAL, not ${r.action}`);
  }
  return { ...r, conditions: k };
}
