/**
 * What an EIP-712 signature grants when it is a token permit: the allowance a token's
 * `permit` sets from the signature alone, with no transaction of the owner's. Signing one
 * is an `approve` in all but name, so policies weigh it as one (modules/signing).
 *
 * Recognised by the primary type's members, as a token call is by its selector: EIP-2612
 * (`Permit(owner, spender, value, nonce, deadline)`: `value` is the allowance) and DAI's
 * (`Permit(holder, spender, nonce, expiry, allowed)`: `allowed` sets it to the maximum or to
 * 0). The members are matched by name and type in any order: a permit a token would refuse
 * (members out of order hash differently) is still weighed as the one it imitates.
 */
import type { SignedAllowance, TypedDataPayload } from '../types.js';

const MAX_UINT256 = (1n << 256n) - 1n;

export function allowanceOf(payload: TypedDataPayload): SignedAllowance | null {
  if (payload.primaryType !== 'Permit') return null;
  const members = new Map((payload.types.Permit ?? []).map((m) => [m.name, m.type]));
  const m = payload.message;
  const owner = members.get('owner') === 'address' ? m.owner : members.get('holder') === 'address' ? m.holder : undefined;
  if (typeof owner !== 'string' || members.get('spender') !== 'address' || typeof m.spender !== 'string') return null;
  const base = { token: payload.domain.verifyingContract, owner, spender: m.spender };
  if (/^uint\d*$/.test(members.get('value') ?? '') && typeof m.value === 'bigint') return { ...base, amount: m.value };
  if (members.get('allowed') === 'bool' && typeof m.allowed === 'boolean') return { ...base, amount: m.allowed ? MAX_UINT256 : 0n };
  return null;
}
