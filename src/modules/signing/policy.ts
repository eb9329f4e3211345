/**
 * Typed-data signatures under transaction policies, as CONTRACT_WRITE: the signature is
 * checked by the domain's contract, and a token permit (EIP-2612, DAI's) sets an allowance
 * from it alone, as an `approve` would. A permit of a catalogued token, signed by the wallet
 * for its own funds, is judged as that approve: the amount to the spender. Any other typed
 * data is a candidate with no amount, its destination the verifying contract (rules on the
 * type, the destination, the initiator and COUNT velocity match it). A signature answers at
 * once: anything but ALLOW refuses it (422 POLICY_BLOCKED), as a contract write is refused.
 * Personal messages are decided by no rule: no contract acts on one.
 */
import { addressKey } from '../../chains/address-key.js';
import type { SignedAllowance, TypedDataPayload } from '../../chains/types.js';
import { capability } from '../../chains/registry.js';
import type { DbConn } from '../../db/pool.js';
import type { AuthContext } from '../apikeys/service.js';
import type { ChainHandle } from '../catalogue/service.js';
import type { ModuleDeps } from '../deps.js';
import { initiatorOf, movedOf, type Candidate } from '../policies/service.js';
import type { WalletRow } from '../wallets/service.js';

/** The allowance typed data grants on the wallet's own funds (a permit the master signs for itself), or null. */
export function ownPermit(chain: ChainHandle, wallet: WalletRow, payload: TypedDataPayload): SignedAllowance | null {
  const grant = capability(chain.adapter, 'typedData').allowanceOf(payload);
  return grant && addressKey(grant.owner) === addressKey(wallet.address) ? grant : null;
}

/**
 * A permit the wallet signs for its own funds pays its spender by allowance: screened as a
 * contract call's spender is (docs/aml.md), before anything is signed.
 */
export async function screenPermit(
  deps: ModuleDeps,
  auth: AuthContext,
  wallet: WalletRow,
  chain: ChainHandle,
  grant: SignedAllowance | null,
): Promise<void> {
  if (!grant) return;
  const recipients = [
    { address: grant.token, field: 'domain.verifyingContract' },
    { address: grant.spender, field: 'message.spender' },
  ];
  await deps.aml?.checkPayout({ wallet, chain, recipients, operation: 'typed-data-permit', actor: `api-key:${auth.keyId}` });
}

export async function typedDataCandidate(
  deps: ModuleDeps,
  auth: AuthContext,
  wallet: WalletRow,
  chain: ChainHandle,
  payload: TypedDataPayload,
  grant: SignedAllowance | null,
): Promise<Candidate> {
  const base: Candidate = {
    type: 'CONTRACT_WRITE',
    walletId: wallet.id,
    addressId: null,
    asset: null,
    amount: null,
    amountUsd: null,
    destination: payload.domain.verifyingContract,
    destinationKind: null,
    initiator: initiatorOf(auth),
  };
  if (!grant) return base;
  const token = chain.assets.find((a) => !a.is_native && a.address !== null && addressKey(a.address) === addressKey(grant.token));
  if (!token) return base;
  await deps.rates?.prefetch([token.id]); // its USD value, read outside any transaction
  return { ...base, ...movedOf(deps.rates, token, grant.amount), destination: grant.spender };
}

/** Decides a signature in `db` (under the velocity windows' locks when it is the recording transaction). */
export async function requirePolicies(deps: ModuleDeps, db: DbConn, wallet: WalletRow, c: Candidate, lock: boolean): Promise<void> {
  await deps.policies.requireAllowed(db, wallet.business_id, [c], () => 'message', lock);
}
