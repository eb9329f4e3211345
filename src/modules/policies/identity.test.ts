import { describe, expect, it } from 'vitest';
import type { AuthContext } from '../apikeys/service.js';
import { assertMayApprove, assertMayManagePolicies, assertMayOverride, identityOf, initiatorOf } from './identity.js';

const key = (scopes: AuthContext['scopes'] = [], id = 'k1'): AuthContext => ({ keyId: id, businessId: 'b', walletId: null, scopes });
const user = (role: string, twoFactor: boolean, id = 'u1'): AuthContext => ({
  keyId: `dashboard:${id}`,
  businessId: 'b',
  walletId: null,
  user: { id, email: 'e', role, twoFactor },
});
const code = (f: () => void) => {
  try {
    f();
    return 'ok';
  } catch (err) {
    return (err as { code: string }).code;
  }
};

describe('who may approve', () => {
  const approvers = { roles: ['approver' as const, 'admin' as const], users: ['u9'], apiKeys: ['k1'] };

  it('a dashboard user: an approving role the rule lists (or listed by id), signed in with a code', () => {
    expect(code(() => assertMayApprove(user('approver', true), approvers))).toBe('ok');
    expect(code(() => assertMayApprove(user('approver', false), approvers))).toBe('TWO_FACTOR_REQUIRED');
    expect(code(() => assertMayApprove(user('owner', true), approvers))).toBe('NOT_AN_APPROVER');
    expect(code(() => assertMayApprove(user('owner', true, 'u9'), approvers))).toBe('ok');
    expect(code(() => assertMayApprove(user('viewer', true, 'u9'), approvers))).toBe('NOT_AN_APPROVER');
    expect(code(() => assertMayApprove(user('developer', true), { roles: ['developer' as never] }))).toBe('NOT_AN_APPROVER');
  });

  it('an API key: a business key with the APPROVE scope that the rule lists', () => {
    expect(code(() => assertMayApprove(key(['APPROVE']), approvers))).toBe('ok');
    expect(code(() => assertMayApprove(key([]), approvers))).toBe('NOT_AN_APPROVER');
    expect(code(() => assertMayApprove(key(['APPROVE'], 'k2'), approvers))).toBe('NOT_AN_APPROVER');
    expect(code(() => assertMayApprove({ ...key(['APPROVE']), walletId: 'w' }, approvers))).toBe('FORBIDDEN');
  });

  it('overriding a quorum: an owner with a code; managing rules: the grant, an owner or admin, or the operator', () => {
    expect(code(() => assertMayOverride(user('owner', true)))).toBe('ok');
    expect(code(() => assertMayOverride(user('owner', false)))).toBe('TWO_FACTOR_REQUIRED');
    expect(code(() => assertMayOverride(user('admin', true)))).toBe('NOT_AN_APPROVER');
    expect(code(() => assertMayOverride(key(['APPROVE'])))).toBe('NOT_AN_APPROVER');
    expect(code(() => assertMayManagePolicies(key(['MANAGE_POLICIES'])))).toBe('ok');
    expect(code(() => assertMayManagePolicies(key(['APPROVE'])))).toBe('POLICY_MANAGEMENT_NOT_ALLOWED');
    expect(code(() => assertMayManagePolicies({ ...key(), operator: true }))).toBe('ok');
    expect(code(() => assertMayManagePolicies(user('admin', false)))).toBe('ok');
    expect(code(() => assertMayManagePolicies(user('approver', true)))).toBe('POLICY_MANAGEMENT_NOT_ALLOWED');
  });

  it('identities compare as text: a key and a user never collide', () => {
    expect(identityOf(initiatorOf(key()))).toBe('key:k1');
    expect(identityOf(initiatorOf(user('owner', true)))).toBe('user:u1');
  });
});
