/**
 * Recoveries under transaction policies (SALVAGE): what is recovered, paid out to the
 * recipient, initiated by the API key, decided in the transaction that records the recovery
 * (under the velocity windows' locks, taken after the sender's withdrawal lock when the
 * recovery is reserved like a withdrawal: service.ts; before anything is reserved or
 * written). A recovery answers at once and cannot wait for approval: anything but ALLOW
 * refuses it (422 POLICY_BLOCKED), as a sign-only withdrawal or a contract write is.
 *
 * A catalogued asset (the native coin, a listed token) is named with its amount. An unlisted
 * token, or anything on a chain this installation does not configure, moves nothing policies
 * can name: rules on assets or amounts do not match it; rules on the type, the destination,
 * the initiator and COUNT velocity do.
 */
import type { DbConn } from '../../db/pool.js';
import type { AuthContext } from '../apikeys/service.js';
import type { ModuleDeps } from '../deps.js';
import { countedOf, initiatorOf, movedOf, type Candidate } from '../policies/service.js';
import type { Counted } from '../transactions/service.js';
import type { WalletRow } from '../wallets/service.js';
import type { Salvager } from './types.js';

/** What a recovery moves, as policies read it. */
export interface Recovered {
  sender: Salvager;
  recipient: string;
  /** The catalogue asset it is, or null (unlisted, or on a chain not configured). */
  assetId: string | null;
  amount: bigint;
}

/**
 * Decides a recovery in `tx`; throws 422 POLICY_BLOCKED unless a rule allows it (or none
 * matches). What it counted in the velocity windows: for the recovery's Transaction row.
 */
export async function requirePolicies(deps: ModuleDeps, tx: DbConn, auth: AuthContext, wallet: WalletRow, r: Recovered): Promise<Counted> {
  const asset = r.assetId ? deps.catalogue.asset(r.assetId)?.row : undefined;
  const candidate: Candidate = {
    type: 'SALVAGE',
    walletId: wallet.id,
    addressId: r.sender.addressId,
    ...(asset ? movedOf(deps.rates, asset, r.amount) : { asset: null, amount: null, amountUsd: null }),
    destination: r.recipient,
    destinationKind: null,
    initiator: initiatorOf(auth),
  };
  await deps.policies.requireAllowed(tx, wallet.business_id, [candidate], () => 'amount');
  return countedOf(candidate);
}
