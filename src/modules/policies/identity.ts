/**
 * Who asks and who approves, from an authentication: an API key, a dashboard user (with its
 * role and whether its session gave a second factor), or the service itself. Identities are
 * compared as text ('key:<id>', 'user:<id>'), so "the initiator never approves its own
 * request" and "approvers are distinct" are each one comparison.
 */
import { ForbiddenError } from '../../lib/errors.js';
import { hasGrant, type AuthContext } from '../apikeys/service.js';
import { APPROVING_ROLES, ROLES, type Initiator, type Role } from './rules.js';

export function initiatorOf(auth: AuthContext): Initiator {
  if (auth.system) return { kind: 'SYSTEM' };
  if (auth.user) return { kind: 'USER', id: auth.user.id };
  return { kind: 'API_KEY', id: auth.keyId };
}

export function identityOf(i: Initiator): string {
  return i.kind === 'API_KEY' ? `key:${i.id}` : i.kind === 'USER' ? `user:${i.id}` : 'system';
}

/**
 * How an identity is shown (an approval's initiator, a voter, an audit entry's actor): the
 * service acting on its schedule (a settlement run) is `system`, as its identity says, never
 * the pseudo key it runs under.
 */
export function labelOf(auth: AuthContext): string {
  if (auth.system) return 'system';
  return auth.user ? auth.user.email : `API key ${auth.keyId.slice(0, 13)}…`;
}

/** An identity text back as the API shows it. */
export function actorOf(identity: string, label: string): { type: 'API_KEY' | 'USER' | 'SYSTEM'; id: string | null; label: string } {
  if (identity.startsWith('key:')) return { type: 'API_KEY', id: identity.slice(4), label };
  if (identity.startsWith('user:')) return { type: 'USER', id: identity.slice(5), label };
  return { type: 'SYSTEM', id: null, label };
}

const roleOf = (auth: AuthContext): Role | null => {
  const r = auth.user?.role;
  return r && (ROLES as readonly string[]).includes(r) ? (r as Role) : null;
};

/** Policies are read by any business key or dashboard user; a wallet key reaches one wallet only. */
export function assertBusinessLevel(auth: AuthContext): void {
  if (auth.walletId !== null) throw new ForbiddenError('A wallet API key cannot reach policies or approvals; use a business API key');
}

/**
 * Creating, changing and deleting rules: a business key with the MANAGE_POLICIES scope, a
 * dashboard owner or admin, or the operator. Anyone who can change the rules can lift them,
 * so no ordinary key can.
 */
export function assertMayManagePolicies(auth: AuthContext): void {
  assertBusinessLevel(auth);
  if (auth.user) {
    const role = roleOf(auth);
    if (role === 'owner' || role === 'admin') return;
    throw new ForbiddenError('Only owners and admins manage policies', 'POLICY_MANAGEMENT_NOT_ALLOWED');
  }
  if (auth.operator || hasGrant(auth, 'MANAGE_POLICIES')) return;
  throw new ForbiddenError('This API key may not manage policies: it needs the MANAGE_POLICIES scope', 'POLICY_MANAGEMENT_NOT_ALLOWED');
}

/** Whether assertMayManagePolicies lets this caller through. */
export function mayManagePolicies(auth: AuthContext): boolean {
  if (auth.walletId !== null) return false;
  if (auth.user) {
    const role = roleOf(auth);
    return role === 'owner' || role === 'admin';
  }
  return auth.operator === true || hasGrant(auth, 'MANAGE_POLICIES');
}

/**
 * Whether this caller may vote on a request with these approvers: a business key with the
 * APPROVE scope that the rule lists, or a dashboard user with an approving role (listed by
 * role or by id) signed in with a second factor.
 */
export function assertMayApprove(auth: AuthContext, approvers: { roles?: string[]; users?: string[]; apiKeys?: string[] }): void {
  assertBusinessLevel(auth);
  if (auth.user) {
    const role = roleOf(auth);
    if (!role || !APPROVING_ROLES.includes(role)) throw new ForbiddenError(`A ${role ?? 'user'} cannot approve payouts`, 'NOT_AN_APPROVER');
    if (!auth.user.twoFactor) {
      throw new ForbiddenError('Approving needs a session signed in with two-factor authentication', 'TWO_FACTOR_REQUIRED');
    }
    if (!(approvers.users ?? []).includes(auth.user.id) && !(approvers.roles ?? []).includes(role)) {
      throw new ForbiddenError("You are not among this request's approvers", 'NOT_AN_APPROVER');
    }
    return;
  }
  if (!hasGrant(auth, 'APPROVE')) throw new ForbiddenError('This API key may not approve: it needs the APPROVE scope', 'NOT_AN_APPROVER');
  if (!(approvers.apiKeys ?? []).includes(auth.keyId))
    throw new ForbiddenError("This API key is not among this request's approvers", 'NOT_AN_APPROVER');
}

/** Overriding a quorum (approving alone, at once): a dashboard owner with a second factor. */
export function assertMayOverride(auth: AuthContext): void {
  assertBusinessLevel(auth);
  if (roleOf(auth) !== 'owner') throw new ForbiddenError('Only an owner can override an approval quorum', 'NOT_AN_APPROVER');
  if (!auth.user!.twoFactor)
    throw new ForbiddenError('Overriding needs a session signed in with two-factor authentication', 'TWO_FACTOR_REQUIRED');
}
