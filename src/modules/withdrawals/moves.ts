/**
 * Moves of a wallet's funds made outside withdrawals (contract writes), judged by the
 * withdrawal rules: the wallet's beneficiary whitelist, and the balance reservation of
 * funds.ts under each paying address's withdrawal lock, so withdrawals and these moves
 * can never together spend more than an address holds.
 *
 * A request may take funds from more than one address (a child pulling from the master
 * with transferFrom): each address is checked against its own balance and holds, and the
 * locks are taken in address order, so two such requests cannot deadlock.
 */
import type { DbConn } from '../../db/pool.js';
import type { EnabledAsset } from '../assets/service.js';
import type { AssetHandle, ChainHandle } from '../catalogue/service.js';
import { notWhitelisted, requireMoveStanding, type ScreeningSeen } from './standing.js';
import { checkFunds, checkHeld, lockedReads, snapshot, type Snapshot } from './funds.js';
import type { DbClock } from './db-clock.js';
import * as store from './store.js';
import type { WithdrawalServiceDeps } from './types.js';
import type { Item } from './validate.js';
import { addressKey } from '../../chains/address-key.js';

/** One thing leaving an address: an asset amount (may be 0) and the network fee it pays. */
export interface Spend {
  asset: AssetHandle;
  amount: bigint;
  /** Where it goes (a recipient, a spender, a contract receiving native coin). */
  to: string;
  /** The most this address pays in network fees for it (the family's quote); 0 when another address sends the transaction. */
  fee: bigint;
  /** Whether `to` must be a whitelisted beneficiary. */
  beneficiary: boolean;
  /** The request field the spend comes from, for error details. */
  field: string;
}

export interface OwnerSpends {
  owner: string;
  spends: Spend[];
  /**
   * Allowances this request itself uses (transferFrom by the spender), by spender (lower
   * case) and token asset id: that much of the standing allowance is no longer held, since
   * the request's own hold replaces it.
   */
  consumes?: { spender: string; assetId: string; amount: bigint }[];
}

export interface PreparedMoves {
  chain: ChainHandle;
  /** Per paying address: its spends as items, and each one's fee in item order. */
  owners: { spends: OwnerSpends; items: Item[]; fees: bigint[]; snap: Snapshot }[];
}

const itemOf = (s: Spend): Item => ({
  // checkFunds reads only the asset's row and the item's field.
  asset: { asset: s.asset } as EnabledAsset,
  to: s.to,
  amount: s.amount,
  reference: null,
  note: null,
  metadata: null,
  field: s.field,
});

/** Balances and allowances of every paying address (before any lock), and a first check against them. */
export async function prepareMoves(db: DbConn, chain: ChainHandle, owners: OwnerSpends[], clock?: DbClock): Promise<PreparedMoves> {
  const prepared = await Promise.all(
    owners.map(async (o) => {
      const items = o.spends.map(itemOf);
      const snap = await snapshot(db, chain, o.owner, items, clock);
      return { spends: o, items, fees: o.spends.map((s) => s.fee), snap: consume(snap, o) };
    }),
  );
  for (const p of prepared) checkFunds(chain, p.items, p.snap.balances, p.snap.allowances, p.fees, p.snap.floor);
  return { chain, owners: prepared };
}

/**
 * In the transaction that will record the moves (their PENDING rows then hold them for
 * later requests): takes every paying address's withdrawal lock, then reads the wallet's
 * standing under its lock, shared and held to the COMMIT, before the caller's policies
 * (standing.ts requireMoveStanding: WALLET_INACTIVE once a deactivation was answered by any
 * process, NOT_WHITELISTED once the entry's removal was), then throws INSUFFICIENT_BALANCE
 * unless the moves fit beside everything already held.
 */
export async function reserveMoves(
  deps: WithdrawalServiceDeps,
  tx: DbConn,
  walletId: string,
  p: PreparedMoves,
  screenings: readonly ScreeningSeen[] = [],
): Promise<void> {
  const owners = [...p.owners].sort((a, b) => cmp(addressKey(a.spends.owner), addressKey(b.spends.owner)));
  for (const o of owners) await store.lockSender(tx, p.chain.id, o.spends.owner);
  await requireMoveStanding(deps, tx, { walletId, beneficiaries: { items: beneficiariesOf(owners) }, screenings });
  await checkMoves(tx, walletId, p, owners, false);
}

/**
 * The same checks without a lock, for sign-only requests: they reserve nothing (the service
 * never learns whether the transaction is broadcast) but must not spend what is held.
 * `whitelist` false: the caller read it already (reserveMoves, under its lock).
 */
export async function checkMoves(db: DbConn, walletId: string, p: PreparedMoves, owners = p.owners, whitelist = true): Promise<void> {
  if (whitelist) {
    const refused = notWhitelisted(await store.whitelist(db, walletId), beneficiariesOf(owners));
    if (refused) throw refused;
  }
  const locked = lockedReads();
  for (const o of owners) {
    const held = await store.heldBack(db, p.chain.id, o.spends.owner, o.snap.at);
    await checkHeld(p.chain, o.spends.owner, o.items, o.fees, o.snap, held, [], locked);
  }
}

/** The items whose destination must be a whitelisted beneficiary. */
export function beneficiariesOf(owners: PreparedMoves['owners']): Item[] {
  return owners.flatMap((o) => o.items.filter((_item, i) => o.spends.spends[i]!.beneficiary));
}

/** The snapshot with the allowances the request uses lowered by what it takes from them. */
function consume(snap: Snapshot, o: OwnerSpends): Snapshot {
  if (!o.consumes?.length) return snap;
  const allowances = snap.allowances.map((a) => {
    const used = o
      .consumes!.filter((c) => c.spender === addressKey(a.spender) && c.assetId === a.assetId)
      .reduce((sum, c) => sum + c.amount, 0n);
    return { ...a, amount: a.amount > used ? a.amount - used : 0n };
  });
  return { ...snap, allowances };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
