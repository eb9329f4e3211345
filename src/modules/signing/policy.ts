/**
 * What a typed-data signature must pass before the key signs it. It is a contract write
 * signed off chain: its verifying contract verifies it, and the standard authorisations (a
 * token permit, a USDC transfer authorisation, Permit2: the family's `grantsOf`) let others
 * move the master's tokens with nothing more from the wallet. So:
 *
 * - the wallet's contract-write setting applies to the verifying contract (switched off:
 *   422 CONTRACT_WRITES_DISABLED; an allow-list: CONTRACT_NOT_ALLOWED);
 * - an authorisation over the master's own tokens must name the wallet's chain (400:
 *   the service weighs nothing on another chain), at most one catalogued token (400: one
 *   signature is one candidate), and is held to the withdrawal rules an `approve` or a
 *   `transfer` is: the spender or recipient whitelisted when the wallet has a whitelist,
 *   the token and the spender or recipient AML-screened;
 * - transaction policies decide it as a CONTRACT_WRITE: an authorisation of a catalogued
 *   token as that amount to its spender or recipient, anything else as no amount to the
 *   verifying contract (rules on the type, destination, initiator and COUNT velocity match
 *   it). A signature answers at once: anything but ALLOW refuses it (422 POLICY_BLOCKED).
 *
 * Personal messages are decided by none of these: no contract acts on one.
 */
import { addressKey } from '../../chains/address-key.js';
import type { SignedGrant, TypedDataPayload } from '../../chains/types.js';
import type { AmlScreening } from '../aml/service.js';
import { capability } from '../../chains/registry.js';
import type { DbConn } from '../../db/pool.js';
import { ValidationError } from '../../lib/errors.js';
import type { AuthContext } from '../apikeys/service.js';
import { tokenAt, type AssetHandle, type ChainHandle } from '../catalogue/service.js';
import { requireContractsAllowed } from '../contracts/service.js';
import type { ModuleDeps } from '../deps.js';
import { initiatorOf, movedOf, type Candidate } from '../policies/service.js';
import type { WalletRow } from '../wallets/service.js';
import type { WithdrawalService } from '../withdrawals/service.js';

/** The authorisation over the master's own tokens that policies weigh, if any: its catalogued token with it. */
export interface OwnGrant {
  grant: SignedGrant;
  asset: AssetHandle['row'] | null;
}

/**
 * The contract-write setting for the verifying contract, read again in the transaction that
 * records the signature, on the wallet as read there under its standing's lock (a change of
 * the setting takes it exclusive: wallets/service.ts update), so that writes switched off or
 * the contract left off the allow-list, answered while the request screened its addresses,
 * refuses it and the signature made is never handed out.
 */
export async function requireContractsStanding(deps: ModuleDeps, tx: DbConn, wallet: WalletRow, payload: TypedDataPayload): Promise<void> {
  const { row } = await deps.wallets.standing(tx, wallet.id);
  requireContractsAllowed(deps, row ?? wallet, [{ address: payload.domain.verifyingContract, field: 'domain.verifyingContract' }]);
}

/** What checkTypedData found: the grant over the master's tokens, and its addresses' AML screenings. */
export interface TypedDataCheck {
  own: OwnGrant | null;
  /** Read again in the recording transaction: one a provider did not answer refuses once the wallet fails closed. */
  screenings: AmlScreening[];
}

/**
 * The rules before signing, but the policies (decided by `requirePolicies`, twice); what the
 * signature authorises over a catalogued token of the master's, for them.
 */
export async function checkTypedData(
  deps: ModuleDeps,
  withdrawals: WithdrawalService,
  auth: AuthContext,
  wallet: WalletRow,
  chain: ChainHandle,
  payload: TypedDataPayload,
): Promise<TypedDataCheck> {
  requireContractsAllowed(deps, wallet, [{ address: payload.domain.verifyingContract, field: 'domain.verifyingContract' }]);
  const grants = capability(chain.adapter, 'typedData')
    .grantsOf(payload)
    .filter((g) => g.owner === null || addressKey(g.owner) === addressKey(wallet.address));
  if (grants.length === 0) return { own: null, screenings: [] };
  if (grants.some((g) => !g.thisChain)) {
    const message = `must be this wallet's chain for an authorisation over its tokens: the service weighs nothing on another chain`;
    throw new ValidationError(`domain.chainId ${message}`, [{ field: 'domain.chainId', message }]);
  }
  const own = grants.map((grant) => ({ grant, asset: tokenAt(chain, grant.token) ?? null }));
  const catalogued = own.filter((g) => g.asset !== null);
  if (catalogued.length > 1) {
    const message = 'authorises several catalogued tokens: sign one per signature, so that each is weighed';
    throw new ValidationError(`message ${message}`, [{ field: 'message', message }]);
  }
  // The withdrawal rules an approve or a transfer of a catalogued token obeys (revoking, 0, moves nothing).
  for (const { grant } of catalogued) if (grant.amount > 0n) await withdrawals.checkWhitelistOf(wallet.id, grant.to, grant.field);
  const verifying = addressKey(payload.domain.verifyingContract);
  const screenings = await deps.aml?.checkPayout({
    wallet,
    chain,
    recipients: [
      { address: payload.domain.verifyingContract, field: 'domain.verifyingContract' },
      ...own.flatMap(({ grant }) => [
        // A token other than the verifying contract (Permit2 names them in the message).
        ...(addressKey(grant.token) === verifying ? [] : [{ address: grant.token, field: grant.field }]),
        { address: grant.to, field: grant.field },
      ]),
    ],
    operation: 'typed-data-authorisation',
    actor: `api-key:${auth.keyId}`,
  });
  return { own: catalogued[0] ?? own[0]!, screenings: screenings ?? [] };
}

export async function typedDataCandidate(
  deps: ModuleDeps,
  auth: AuthContext,
  wallet: WalletRow,
  payload: TypedDataPayload,
  own: OwnGrant | null,
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
  if (!own?.asset) return base;
  await deps.rates?.prefetch([own.asset.id]); // its USD value, read outside any transaction
  return { ...base, ...movedOf(deps.rates, own.asset, own.grant.amount), destination: own.grant.to };
}

/** Decides a signature in `db` (under the velocity windows' locks when it is the recording transaction). */
export async function requirePolicies(deps: ModuleDeps, db: DbConn, wallet: WalletRow, c: Candidate, lock: boolean): Promise<void> {
  await deps.policies.requireAllowed(db, wallet.business_id, [c], () => 'message', lock);
}
