import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../lib/errors.js';
import { checkRule, type RuleInput } from './validate.js';

const KEY_A = '11111111-1111-4111-8111-111111111111';
const KEY_B = '22222222-2222-4222-8222-222222222222';
const USER = '33333333-3333-4333-8333-333333333333';

const rule = (approval: RuleInput['approval']): RuleInput => ({
  walletId: null,
  addressId: null,
  conditions: { types: ['WITHDRAW'] },
  action: 'REQUIRE_APPROVAL',
  approval,
});

const refusal = (r: RuleInput) => {
  try {
    checkRule(r);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).message;
  }
  throw new Error('accepted');
};

describe('checkRule: the quorum of an approval', () => {
  it('is refused above the number of approvers named, when no role is given', () => {
    expect(refusal(rule({ approvers: { apiKeys: [KEY_A, KEY_B] }, quorum: 3, ttlSeconds: 3600 }))).toMatch(
      /^approval\.quorum is 3, above the 2 approver\(s\) named/,
    );
    expect(refusal(rule({ approvers: { users: [USER] }, quorum: 2, ttlSeconds: 3600 }))).toMatch(/^approval\.quorum/);
  });

  it('may equal the named approvers, users and keys together', () => {
    expect(() => checkRule(rule({ approvers: { apiKeys: [KEY_A, KEY_B], users: [USER] }, quorum: 3, ttlSeconds: 3600 }))).not.toThrow();
  });

  it('is not counted against a role, whose members change', () => {
    expect(() => checkRule(rule({ approvers: { roles: ['approver'], apiKeys: [KEY_A] }, quorum: 5, ttlSeconds: 3600 }))).not.toThrow();
  });
});
