/**
 * What the wallet allows a payout, decided in the transaction that accepts it: whether the
 * wallet is active, the assets enabled on it, its beneficiary whitelist, and whether a
 * payout its AML providers did not screen may go (`configurations.aml.onProviderFailure`).
 *
 * The checks made before that transaction (service.ts `sender`, validate.ts `checkItems`
 * from the cached list of enabled assets, a sign-only request's whitelist) answer early,
 * but a request then reads the chain, screens its destinations and waits for its sender's
 * batch: a deactivation, an asset disabled or a whitelist entry removed meanwhile, through
 * this process or another, would otherwise not stop it. `readStanding` reads all three
 * again in the accepting transaction, under the standing's lock (wallets/store.ts
 * `lockStanding`) and the beneficiaries' lock, both shared and held until that transaction
 * ends: a change committed before is seen, and one asked meanwhile waits for the payout's
 * COMMIT. So no payout is accepted after such a change was answered, whichever API process
 * answered it.
 */
import { addressKey } from '../../chains/address-key.js';
import type { DbConn } from '../../db/pool.js';
import { BusinessRuleError, UpstreamError, type AppError } from '../../lib/errors.js';
import * as store from './store.js';
import type { WithdrawalServiceDeps } from './types.js';
import type { Item } from './validate.js';

export interface Standing {
  isActive: boolean;
  /** Catalogue ids of the assets enabled on the wallet. */
  enabled: Set<string>;
  /** The whitelist by addressKey (empty: every destination allowed). */
  whitelist: Set<string>;
  /**
   * Whether the wallet fails closed (`onProviderFailure: BLOCK`). Screening judged the setting
   * as the request read it when it began, and a provider that hangs is the slow part of a
   * request: a switch to BLOCK answered meanwhile (by any process) must still refuse it.
   */
  failsClosed: boolean;
}

/** The wallet's standing, read in `tx` and held until it ends (the module comment). */
export async function readStanding(deps: WithdrawalServiceDeps, tx: DbConn, walletId: string): Promise<Standing> {
  const { isActive, row } = await deps.wallets.standing(tx, walletId);
  const enabled = new Set((await deps.walletAssets.enabled({ id: walletId }, tx)).map((e) => e.asset.row.id));
  const failsClosed = row !== undefined && deps.aml?.settingsOf(row).onProviderFailure === 'BLOCK';
  return { isActive, enabled, whitelist: await store.whitelist(tx, walletId, { held: true }), failsClosed };
}

/** The refusal `standing` gives these items, worded as the early checks word it, or null. */
export function standingRefusal(standing: Standing, items: Pick<Item, 'asset' | 'to' | 'field' | 'aml'>[]): AppError | null {
  if (!standing.isActive) return new BusinessRuleError('WALLET_INACTIVE', 'This wallet is deactivated');
  const off = items.find((i) => !standing.enabled.has(i.asset.asset.row.id));
  if (off) {
    const field = off.field ? `${off.field}.id` : 'assetId';
    return new BusinessRuleError('ASSET_NOT_ENABLED', `${field}: this asset is not enabled on the wallet`, [
      { field, message: 'not enabled on the wallet' },
    ]);
  }
  return (
    notWhitelisted(standing.whitelist, items) ??
    unscreenedRefusal(
      standing,
      items.map((i) => i.aml),
    )
  );
}

/** What unscreenedRefusal reads of an AML screening (modules/aml AmlScreening): the providers that did not answer. */
export type ScreeningSeen = { failed?: unknown } | null | undefined;

/** AML_UNAVAILABLE, as screening words it, for a screening a provider did not answer on a wallet that now fails closed. */
function unscreenedRefusal(standing: Standing, screenings: readonly ScreeningSeen[]): UpstreamError | null {
  if (!standing.failsClosed) return null;
  const failed = [...new Set(screenings.flatMap((s) => (Array.isArray(s?.failed) ? (s.failed as string[]) : [])))];
  if (failed.length === 0) return null;
  return new UpstreamError(
    'AML_UNAVAILABLE',
    `AML screening could not be completed (${failed.join(', ')} did not answer); ` +
      'payouts wait until every provider answers (the wallet fails closed)',
  );
}

/**
 * NOT_WHITELISTED when the wallet whitelists beneficiaries (`allowed`, by addressKey) and a
 * destination is none of them: on base58 families an entry matches only as spelt (a case
 * look-alike is another address).
 */
export function notWhitelisted(allowed: Set<string>, items: Pick<Item, 'to' | 'field'>[], name = 'address'): BusinessRuleError | null {
  if (allowed.size === 0) return null;
  const off = items.find((i) => !allowed.has(addressKey(i.to)));
  if (!off) return null;
  const field = off.field ? `${off.field}.${name}` : name;
  return new BusinessRuleError('NOT_WHITELISTED', `${off.to} is not a whitelisted beneficiary of this wallet`, [
    { field, message: 'not a whitelisted beneficiary' },
  ]);
}

/**
 * What a move of the wallet's funds a client asked for (a swap, a recovery, a stake, a
 * contract write: guards.ts reserveForMove, moves.ts reserveMoves) must still be allowed in
 * the transaction that accepts it. System moves (sweeps, auto-settlements, a master's fee
 * top-ups) give none: a deactivation does not strand the service's own work in flight.
 */
export interface MoveStanding {
  walletId: string;
  /** The wallet's assets the move takes, which must still be enabled, with the request field naming each. */
  enabled?: { assetId: string; field: string }[];
  /** Destinations that must be whitelisted beneficiaries (when the wallet whitelists), named as notWhitelisted names them. */
  beneficiaries?: { items: Pick<Item, 'to' | 'field'>[]; name?: string };
  /**
   * The AML screenings the move was judged by before its transaction (null: nobody outside
   * screened): one a provider did not answer refuses the move once the wallet fails closed,
   * though it was screened while it let payouts through (a withdrawal's items likewise).
   */
  screenings?: readonly ScreeningSeen[];
}

/**
 * Reads the wallet's standing in `tx` (readStanding: held until `tx` ends) and throws what a
 * client's move is refused for now: WALLET_INACTIVE, ASSET_NOT_ENABLED, NOT_WHITELISTED,
 * AML_UNAVAILABLE.
 * Taken after the senders' withdrawal locks and before the policies' windows (guards.ts).
 */
export async function requireMoveStanding(deps: WithdrawalServiceDeps, tx: DbConn, m: MoveStanding): Promise<Standing> {
  const standing = await readStanding(deps, tx, m.walletId);
  if (!standing.isActive) throw new BusinessRuleError('WALLET_INACTIVE', 'This wallet is deactivated');
  const off = m.enabled?.find((e) => !standing.enabled.has(e.assetId));
  if (off) {
    throw new BusinessRuleError('ASSET_NOT_ENABLED', `${off.field}: this asset is not enabled on the wallet`, [
      { field: off.field, message: 'not enabled on the wallet' },
    ]);
  }
  const refused =
    (m.beneficiaries && notWhitelisted(standing.whitelist, m.beneficiaries.items, m.beneficiaries.name)) ||
    unscreenedRefusal(standing, m.screenings ?? []);
  if (refused) throw refused;
  return standing;
}
