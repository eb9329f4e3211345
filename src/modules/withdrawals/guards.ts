/**
 * The withdrawal rules other spends of a wallet's funds go through (swaps, recoveries,
 * stakes, auto-settlements, sweeps), and the screening withdrawals themselves run: the
 * sender's lock and what its spends in flight hold, the beneficiary whitelist, AML screening
 * of a destination. WithdrawalService answers them (service.ts); the rules are here.
 */
import { addressKey } from '../../chains/address-key.js';
import type { DbConn } from '../../db/pool.js';
import { BusinessRuleError } from '../../lib/errors.js';
import type { AuthContext } from '../apikeys/service.js';
import type { AmlScreening } from '../aml/service.js';
import type { EnabledAsset } from '../assets/service.js';
import type { AssetHandle, ChainHandle } from '../catalogue/service.js';
import type { WalletRow } from '../wallets/service.js';
import { notWhitelisted, requireMoveStanding, type MoveStanding } from './standing.js';
import { checkAgainstPending, snapshot, standingAllowances, type Snapshot } from './funds.js';
import * as store from './store.js';
import type { Sender, WithdrawalServiceDeps } from './types.js';
import type { Item } from './validate.js';

/** A move of the sender's funds made outside withdrawals, to be judged as a withdrawal would be. */
export interface MoveReservation {
  chain: ChainHandle;
  sender: string;
  asset: AssetHandle;
  amount: bigint;
  to: string;
  /**
   * The family's quote of the move's fee, in the native coin: what the sender must hold for
   * it itself (a child's swap or settlement less what the master sends or pays for it).
   */
  fee: bigint;
  /**
   * Native coin another address of the wallet sends the sender ahead of the move (the
   * master's top-up of a child's fee): `value`, and the most sending it costs that address
   * (`fee`). It is that address's spend as much as any payout of its own, so it is judged
   * against that address's pending spends as one (readForMove must have read its balance).
   */
  funder?: { address: string; value: bigint; fee: bigint };
  /**
   * A move a client asked for (a swap, a recovery, a stake): the wallet's standing it needs,
   * read again under the senders' locks, before the policies (standing.ts requireMoveStanding),
   * and held to the COMMIT. A system move (an auto-settlement) leaves it out: a deactivation
   * does not stop the service's own work.
   */
  standing?: MoveStanding;
}

/** What a move's reservation read of the chain before its transaction opened (readForMove). */
export interface MoveRead {
  snap: Snapshot;
  /** The balance of the address that funds the move (readForMove's `funder`). */
  funder?: { address: string; snap: Snapshot };
}

const itemOf = (m: Pick<MoveReservation, 'asset' | 'to' | 'amount'>): Item => ({
  // checkFunds reads only the asset's row and the field name of an item.
  asset: { asset: m.asset } as EnabledAsset,
  to: m.to,
  amount: m.amount,
  reference: null,
  note: null,
  metadata: null,
  field: 'amount',
});

/** An amount of the chain's native coin, as an item the funds check reads (its asset row only). */
function nativeItem(chain: ChainHandle, to: string, amount: bigint): Item {
  const row = chain.assets.find((a) => a.is_native);
  if (!row) throw new Error(`chain ${chain.id} lists no native coin`);
  return itemOf({ asset: { row } as AssetHandle, to, amount });
}

/**
 * The chain's part of a move's reservation, read before the transaction that records the
 * move opens (so no connection or lock waits on the node): the sender's balances and
 * standing allowances (funds.ts says why a read before the lock is safe), and what its
 * first send needs (outbound `ready`). `also`: other senders of the move's transactions (a
 * child's top-up from the master). `funder`: the address that may fund the move
 * (MoveReservation.funder), whose native balance is read too.
 */
export async function readForMove(
  deps: WithdrawalServiceDeps,
  m: Pick<MoveReservation, 'chain' | 'sender' | 'asset'> & { funder?: string },
  also: string[] = [],
  /** A caller already inside a transaction (an auto-settlement planned under its lock) reads on it: one connection, not two. */
  db: DbConn = deps.db,
): Promise<MoveRead> {
  const funder = m.funder;
  const [snap, funded] = await Promise.all([
    snapshot(db, m.chain, m.sender, [itemOf({ asset: m.asset, to: m.sender, amount: 0n })]),
    funder === undefined ? null : readFunder(db, m.chain, funder),
    deps.outbound.ready(m.chain, [m.sender, ...also, ...(funder === undefined ? [] : [funder])], db),
  ]);
  return funded ? { snap, funder: { address: funder!, snap: funded } } : { snap };
}

/**
 * Before a move of the sender's funds made outside withdrawals (a swap, an auto-settlement
 * from the master or a child, a recovery, a stake) is written in `tx`: takes the sender's
 * withdrawal lock (withdrawals and the move are judged in turn) and throws
 * INSUFFICIENT_BALANCE unless the sender holds `amount` plus `fee` after its pending
 * withdrawals, swaps and settlements, judged on `read` (readForMove, before `tx` opened).
 * The move's PENDING Transactions, written next in `tx`, are then held back for later
 * withdrawals. A move with a `funder` (a child's, whose fee the master tops up) takes the
 * funder's withdrawal lock too and throws INSUFFICIENT_BALANCE unless the funder holds the
 * top-up and its fee after its own pending spends; the top-up's outbound row (a TOPUPS
 * purpose, withdrawals/store.ts) then holds its value there.
 *
 * `m.standing`, when given (a client's move), is read next under the wallet's standing lock,
 * shared and held to the COMMIT (standing.ts): WALLET_INACTIVE, ASSET_NOT_ENABLED or
 * NOT_WHITELISTED once a change was answered by any process, and a change asked meanwhile
 * waits for this COMMIT. `policies`, when given, decides the move's transaction policies
 * under those locks, before the funds check (a refusal reserves nothing). One lock order for
 * every spend of a sender: its withdrawal lock (and its funder's, in address order) first,
 * then the wallet's standing (shared), then the velocity windows' locks the policies take,
 * as a withdrawal takes them (create.ts). A move that decided its policies first would hold the
 * wallet's window while waiting for the sender's lock, behind a withdrawal of the sender
 * that holds the lock and waits for the window: a deadlock, which PostgreSQL breaks by
 * failing one of them (503 CONCURRENT_UPDATE; test/policies/lock-order.test.ts).
 */
export async function reserveForMove(
  deps: WithdrawalServiceDeps,
  tx: DbConn,
  m: MoveReservation,
  read: MoveRead,
  policies?: () => Promise<void>,
): Promise<void> {
  const funder = m.funder && m.funder.value + m.funder.fee > 0n ? m.funder : undefined;
  if (funder && read.funder?.address !== funder.address) throw new Error(`move from ${m.sender}: reserved without the read of its funder`);
  // The funder's lock too, before the policies' windows: withdrawal locks in address order, as
  // contract writes paying from several addresses take them (moves.ts), so that a child's move
  // funded by the master and a contract write of the same two addresses cannot deadlock.
  await lockSenders(tx, m.chain, funder ? [m.sender, funder.address] : [m.sender]);
  if (m.standing) await requireMoveStanding(deps, tx, m.standing);
  await policies?.();
  await checkAgainstPending(tx, m.chain, m.sender, [itemOf(m)], [m.fee], read.snap);
  if (funder) await checkTopup(tx, m.chain, m.sender, funder, read.funder!.snap);
}

/**
 * Throws INSUFFICIENT_BALANCE unless `funder` can send `to` its top-up (`value`, plus `fee`
 * for sending it) beside its own pending spends, judged on `snap` (readFunder, before `tx`
 * opened) under the funder's withdrawal lock, which the caller holds.
 */
export async function checkTopup(
  tx: DbConn,
  chain: ChainHandle,
  to: string,
  funder: { address: string; value: bigint; fee: bigint },
  snap: Snapshot,
): Promise<void> {
  try {
    await checkAgainstPending(tx, chain, funder.address, [nativeItem(chain, to, funder.value)], [funder.fee], snap);
  } catch (err) {
    if (!(err instanceof BusinessRuleError) || err.code !== 'INSUFFICIENT_BALANCE') throw err;
    // The numbers are the funder's: said so, or they read as the sender's. Nothing sent first
    // (value 0): the master pays the fee itself, as fee payer.
    const how = funder.value > 0n ? 'first sends the sending address its network fee' : "pays the sending address's network fee";
    throw new BusinessRuleError(
      'INSUFFICIENT_BALANCE',
      `The master address ${how}: ${err.message}`,
      err.details?.map((d) => ({
        ...d,
        message: `insufficient balance of the master (${funder.value > 0n ? 'fee top-up' : 'fee payer'})`,
      })),
    );
  }
}

/**
 * What the owner's standing allowances hold, per token asset: an allowance granted through a
 * contract write lets its spender pull that much at any time, so the funds check holds it as
 * long as it stands (funds.ts). Read now from the chain, for a spend decided outside the
 * withdrawal rules that must fit them (a settlement run deciding its amounts).
 */
export async function heldByAllowances(db: DbConn, chain: ChainHandle, owner: string, assets: AssetHandle[]): Promise<Map<string, bigint>> {
  const { allowances } = await standingAllowances(
    db,
    chain,
    owner,
    assets.map((asset) => itemOf({ asset, to: owner, amount: 0n })),
  );
  const held = new Map<string, bigint>();
  for (const a of allowances) held.set(a.assetId!, (held.get(a.assetId!) ?? 0n) + a.amount);
  // An approve not mined yet: its allowance is not on chain, but the funds check holds it by
  // its row (checkHeld), on top of the spender's allowance read now.
  const ids = new Set(assets.map((a) => a.row.id));
  for (const h of await store.heldBack(db, chain.id, owner, new Date())) {
    if (h.standing && h.pending && h.assetId !== null && ids.has(h.assetId)) held.set(h.assetId, (held.get(h.assetId) ?? 0n) + h.amount);
  }
  return held;
}

/** What checkTopup judges a funder's top-up on: its native balance, read before the transaction (funds.ts says why that is safe). */
export function readFunder(db: DbConn, chain: ChainHandle, funder: string): Promise<Snapshot> {
  return snapshot(db, chain, funder, [nativeItem(chain, funder, 0n)]);
}

/** Several senders' withdrawal locks, in address order (the order every spend of two addresses takes them in). */
export async function lockSenders(tx: DbConn, chain: ChainHandle, senders: string[]): Promise<void> {
  const ordered = [...new Set(senders)].sort((a, b) => cmp(addressKey(a), addressKey(b)));
  for (const sender of ordered) await store.lockSender(tx, chain.id, sender);
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Throws NOT_WHITELISTED when the wallet whitelists beneficiaries and a destination is none of them. */
export async function checkWhitelist(db: DbConn, walletId: string, items: Item[]): Promise<void> {
  const refused = notWhitelisted(await store.whitelist(db, walletId), items);
  if (refused) throw refused;
}

/**
 * checkWhitelist for one destination named by `field` (a swap's or a recovery's recipientAddress,
 * an auto-settlement rule's destination). `held`: read under the beneficiaries' lock, shared and
 * held until `db`'s transaction ends (a whitelist change asked meanwhile waits for its COMMIT),
 * for a move recorded in that transaction.
 */
export async function checkWhitelistOf(db: DbConn, walletId: string, address: string, field: string, held = false): Promise<void> {
  const refused = notWhitelisted(await store.whitelist(db, walletId, { held }), [{ to: address, field: '' }], field);
  if (refused) throw refused;
}

/**
 * What the sender's spends in flight (PENDING withdrawals, swaps, settlement legs, contract
 * writes, recoveries, stakes, sweeps, a master's top-ups) hold of `assetId`, the fees they
 * hold in the native coin, and all they hold of the native coin (`native`: fees and native
 * amounts): what a sweep must leave where it is (a balance read at the latest block still
 * counts it). `since` (a database time noted before that balance read): `changed` then says
 * whether a spend settled since, and `pending` names the spends in flight, so that a plan made
 * from the read can be checked under the sender's lock (store.lockSender), where it is final.
 */
export async function inFlight(db: DbConn, chain: ChainHandle, sender: string, assetId: string, since?: Date): Promise<InFlight> {
  const all = await store.heldBack(db, chain.id, sender, since ?? new Date(8.64e15));
  const rows = all.filter((h) => !h.standing);
  const held = rows.filter((h) => h.pending);
  const nativeId = chain.assets.find((a) => a.is_native)?.id;
  const fees = held.reduce((s, h) => s + h.fees, 0n);
  return {
    amount: held.filter((h) => h.assetId === assetId).reduce((s, h) => s + h.amount, 0n),
    least: held
      .filter((h) => h.assetId === assetId && h.amount > 0n)
      .reduce<bigint | null>((m, h) => (m === null || h.amount < m ? h.amount : m), null),
    fees,
    native: held.filter((h) => h.assetId !== null && h.assetId === nativeId).reduce((s, h) => s + h.amount, fees),
    standingNative: all.filter((h) => h.standing && h.assetId !== null && h.assetId === nativeId).reduce((s, h) => s + h.amount, 0n),
    settledSince: rows.length - held.length,
    pending: held
      .map((h) => `${h.assetId} ${h.amount} ${h.fees} ${h.hash}`)
      .sort()
      .join('|'),
  };
}

export interface InFlight {
  amount: bigint;
  /** The smallest of those spends' amounts of `assetId` (null: none): what is left once all the others land. */
  least: bigint | null;
  fees: bigint;
  native: bigint;
  /**
   * What standing holds keep of the native coin (deposits AML screening holds at the sender):
   * no spend in flight, so not in `native` (a sweep reckons them itself), but not there to pay
   * fees either: a child's top-up is reckoned on what `native` and this leave, or the funds
   * check under the child's lock (which counts both) refuses a move a top-up lets through.
   */
  standingNative: bigint;
  /** Spends settled since the `since` given (0 without one). */
  settledSince: number;
  /** The spends in flight, one key each, sorted: equal strings, the same spends. */
  pending: string;
}

/**
 * AML screening of one `recipientAddress` (a swap's output, a recovery's transfer) when it
 * is outside the wallet (modules/aml checkPayout), before anything is reserved or signed:
 * 422 AML_BLOCKED for a listed one. The wallet's own addresses (the master, an address whose
 * key it holds) are not payouts; an outside address merely registered on the wallet
 * (EXTERNAL, watched for deposits) is: it was screened when registered, and may have been
 * listed since. Returns its screening, for the Transaction's amlScreening (NOT_SCREENED when
 * a provider did not answer and the wallet lets payouts through), or null: not screened.
 */
export async function screenRecipient(
  deps: WithdrawalServiceDeps,
  auth: AuthContext,
  wallet: WalletRow,
  chain: ChainHandle,
  recipient: string,
  operation: string,
): Promise<AmlScreening | null> {
  if (!deps.aml || addressKey(recipient) === addressKey(wallet.address)) return null;
  if (await deps.addresses.holdsKeyOf(wallet.id, recipient)) return null;
  const [screening] = await deps.aml.checkPayout({
    wallet,
    chain,
    recipients: [{ address: recipient, field: 'recipientAddress' }],
    operation,
    actor: `api-key:${auth.keyId}`,
  });
  return screening ?? null;
}

/** AML screening of the items' destinations (see modules/aml checkPayout); each item keeps its screening. */
export async function screen(deps: WithdrawalServiceDeps, auth: AuthContext, s: Sender, items: Item[], operation: string): Promise<void> {
  const screenings = await deps.aml?.checkPayout({
    wallet: s.wallet,
    chain: s.chain,
    recipients: items.map((i) => ({ address: i.to, field: i.field ? `${i.field}.address` : 'address' })),
    operation,
    actor: `api-key:${auth.keyId}`,
  });
  screenings?.forEach((screening, i) => (items[i]!.aml = { ...screening }));
}
