/**
 * What an EIP-712 signature lets others do with the signer's tokens by itself, with no
 * transaction of the signer's: the standard authorisations a token, or Permit2, executes
 * from the signature alone. Signing one is an `approve` or a `transfer` in all but name, so
 * the service weighs it as one (modules/signing). Recognised by the primary type and its
 * members (by name and type, in any order: a signature the contract would refuse, its
 * members out of order, is still weighed as the one it imitates):
 *
 * - EIP-2612 `Permit(owner, spender, value, nonce, deadline)`: an allowance of `value`; DAI's
 *   `Permit(holder, spender, nonce, expiry, allowed)`: the maximum, or 0. The token is the
 *   verifying contract.
 * - EIP-3009 `TransferWithAuthorization` / `ReceiveWithAuthorization(from, to, value, …)`
 *   (USDC): a transfer of `value` to `to`, the token the verifying contract.
 * - A meta-transaction (`MetaTransaction(nonce, from, functionSignature)`, the bridged tokens
 *   of Polygon): the token call its calldata makes (token-calls.ts), as `from`.
 * - Permit2 (its one address on every chain): any message with a `spender` and `details`
 *   (PermitSingle, PermitBatch) or `permitted` (PermitTransferFrom, its batch and witness
 *   forms) entries of `{ token, amount }`: an allowance per entry to the spender; the owner
 *   is the signer itself.
 */
import type { SignedGrant, TypedDataPayload } from '../types.js';
import { describeTokenCall } from './token-calls.js';

const MAX_UINT256 = (1n << 256n) - 1n;
/** Uniswap's Permit2, deployed at one address on every EVM chain. */
export const PERMIT2 = '0x000000000022d473030f116ddee9f6b43ac78ba3';

type Members = Map<string, string>;

export function grantsOf(payload: TypedDataPayload, chainId: number): SignedGrant[] {
  const { domain, types, primaryType } = payload;
  const m = payload.message;
  const members = membersOf(types, primaryType);
  const token = domain.verifyingContract;
  const thisChain = domain.chainId === chainId;
  const isUint = (name: string) => /^uint\d*$/.test(members.get(name) ?? '');
  const isAddress = (name: string) => members.get(name) === 'address' && typeof m[name] === 'string';

  if (token.toLowerCase() === PERMIT2) return permit2(types, members, m, token, thisChain);
  if (primaryType === 'Permit' && isAddress('spender')) {
    const owner = isAddress('owner') ? (m.owner as string) : isAddress('holder') ? (m.holder as string) : null;
    if (owner === null) return [];
    const base = { kind: 'allowance' as const, token, owner, to: m.spender as string, thisChain, field: 'message.spender' };
    if (isUint('value') && typeof m.value === 'bigint') return [{ ...base, amount: m.value }];
    if (members.get('allowed') === 'bool' && typeof m.allowed === 'boolean') return [{ ...base, amount: m.allowed ? MAX_UINT256 : 0n }];
    return [];
  }
  if (
    (primaryType === 'TransferWithAuthorization' || primaryType === 'ReceiveWithAuthorization') &&
    isAddress('from') &&
    isAddress('to') &&
    isUint('value') &&
    typeof m.value === 'bigint'
  ) {
    return [{ kind: 'transfer', token, owner: m.from as string, to: m.to as string, amount: m.value, thisChain, field: 'message.to' }];
  }
  if (isAddress('from') && members.get('functionSignature') === 'bytes' && typeof m.functionSignature === 'string') {
    const call = describeTokenCall(m.functionSignature);
    const base = { token, owner: m.from as string, thisChain, field: 'message.functionSignature' };
    if (call?.kind === 'transfer') return [{ ...base, kind: 'transfer', to: call.to, amount: call.amount }];
    if (call?.kind === 'approve' || call?.kind === 'increaseAllowance')
      return [{ ...base, kind: 'allowance', to: call.spender, amount: call.amount }];
    if (call?.kind === 'transferFrom') return [{ ...base, kind: 'transfer', owner: call.from, to: call.to, amount: call.amount }];
  }
  return [];
}

function permit2(
  types: TypedDataPayload['types'],
  members: Members,
  m: Record<string, unknown>,
  contract: string,
  thisChain: boolean,
): SignedGrant[] {
  if (members.get('spender') !== 'address' || typeof m.spender !== 'string') return [];
  const spender = m.spender;
  const out: SignedGrant[] = [];
  for (const name of ['details', 'permitted']) {
    const type = members.get(name);
    if (!type) continue;
    const entryType = type.replace(/\[\d*\]$/, '');
    const entry = membersOf(types, entryType);
    if (entry.get('token') !== 'address' || !/^uint\d*$/.test(entry.get('amount') ?? '')) continue;
    const value = m[name];
    const entries = Array.isArray(value) ? value : [value];
    for (const [i, e] of entries.entries()) {
      const { token, amount } = (e ?? {}) as { token?: unknown; amount?: unknown };
      if (typeof token !== 'string' || typeof amount !== 'bigint') continue;
      const field = Array.isArray(value) ? `message.${name}.${i}` : `message.${name}`;
      out.push({ kind: 'allowance', token, owner: null, to: spender, amount, thisChain, field });
    }
  }
  // Permit2 itself is the domain: the tokens are named in the message, never the contract.
  return out.filter((g) => g.token.toLowerCase() !== contract.toLowerCase());
}

function membersOf(types: TypedDataPayload['types'], name: string): Members {
  return new Map((types[name] ?? []).map((x) => [x.name, x.type]));
}
