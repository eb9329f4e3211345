/**
 * Whether a sender can pay: the family's fee quote per item, on-chain balances, and the amounts and
 * gas already reserved by the sender's PENDING withdrawals.
 *
 * Race-freedom without a chain call under the sender's lock (store.lockSender): balances
 * are read before the lock, after noting the database time T. Under the lock, what is held
 * back is every PENDING withdrawal of the sender plus every one settled at or after T. A
 * withdrawal settled before T was mined before T (settling starts after its receipt is
 * read), so the balance read after T already shows it; everything else is held back. A
 * request that commits between our read and our lock is PENDING, so it is held back too.
 *
 * This can hold back twice what was mined but not yet recorded (spent in the balance, and
 * still PENDING): safe, but it could refuse a request that fits. So when the quick check
 * fails, the pending withdrawals' receipts are looked up, the balances read again, and
 * those mined are no longer held back (reservations first, receipts second, balances last).
 * Those reads are made under the lock, so they are bounded (LOCKED_READS_MS).
 *
 * Allowances. An allowance granted by a contract write (approve, increaseAllowance) lets
 * its spender pull that much at any time, so it is held back for as long as it stands: the
 * sender's spenders are listed (store.spenders, at time P) and their allowances read on
 * chain before the balances. T is taken at or before P, so an approve committed after P is
 * PENDING or settled since T under the lock, and held by its row; one committed before P
 * is in the list. Allowances are read before balances: a spender pulling in between
 * lowers the allowance read before the balance, which only holds back more, never less.
 * An approve settled since T is held by its row and, when the allowance read comes after
 * it was mined, by the allowance too: twice, never less (T is at most DbClock's 250 ms
 * old, so that lasts a moment after it settles). When that refuses a request, the slow
 * path reads the allowance of each such approve again: the rows were read settled, so it
 * was mined before that read, which then replaces both its row and the snapshot's read of
 * the same spender (docs/signing-and-contracts.md).
 */
import type { FeeQuote, IntentBody, NetworkData, TxIntent } from '../../chains/types.js';
import { intentOf as withParties } from '../../chains/intents.js';
import type { DbConn } from '../../db/pool.js';
import { ChainRejectedError } from '../../chains/errors.js';
import { BusinessRuleError, UpstreamError } from '../../lib/errors.js';
import { formatAmount } from '../../lib/money.js';
import { withDeadline } from '../../lib/deadline.js';
import type { ChainHandle } from '../catalogue/service.js';
import { checkGasLimit, type GasOptions } from './gas-options.js';

import * as store from './store.js';
import type { Item } from './validate.js';
import type { DbClock } from './db-clock.js';
import { capability, offers } from '../../chains/registry.js';
import { addressKey } from '../../chains/address-key.js';

export interface GasPlan {
  /**
   * The family's quote of each item, in item order (chains/types.ts, FeeQuote): its fee, and
   * in `fixed` what the client chose (gas-options.ts), signed as it is.
   */
  quotes: FeeQuote[];
  /**
   * Who pays the fees when it is not the sender: the wallet's master, for a child address on
   * a family whose fees another account may pay (the feeSponsorship capability: Solana). The quotes
   * are then the transactions as the payer signs them, and the sender pays no fee at all.
   */
  payer?: string;
  /**
   * The fields the client fixed (its gasLimit / gasPrice, as the family translates them), and
   * only those: what a payout held for approval is sent with. A quote's `fixed` may hold more
   * than that (a fee bound the family estimated at acceptance), which a payout
   * approved later must estimate again.
   */
  clientFixed: NetworkData;
}

/** The most item `i`'s transaction can cost its sender in the native coin, beside its value. */
export const feeOf = (plan: GasPlan, i: number): bigint => plan.quotes[i]!.fee;
export const feesOf = (plan: GasPlan): bigint[] => plan.quotes.map((q) => q.fee);
/** The fee the sender itself pays for item `i`: 0 when another account (plan.payer) pays it. */
export const chargedFee = (plan: GasPlan, i: number): bigint => (plan.payer ? 0n : plan.quotes[i]!.fee);
export const chargedFees = (plan: GasPlan): bigint[] => plan.quotes.map((_q, i) => chargedFee(plan, i));

/**
 * The fee payer of a sender's transactions when another account pays (TxIntent.feePayer):
 * the wallet's master for a child address on a family with sponsored fees (Solana: a child
 * never needs SOL); undefined when the sender pays its own fees (EVM, Tron, the master itself).
 */
export function sponsorOf(chain: ChainHandle, sender: string, master: string): string | undefined {
  return offers(chain.adapter, 'feeSponsorship') && sender !== master ? master : undefined;
}

/** What the outbound row of an item sends: a payment of the native coin, or of the token. */
export function paymentOf(item: Item): IntentBody {
  const asset = item.asset.asset.row;
  return asset.is_native
    ? { kind: 'native', to: item.to, amount: item.amount }
    : { kind: 'token', token: asset.address, to: item.to, amount: item.amount };
}

/** The item's transaction as the family sees it; `feePayer`: another account that pays its fee (sponsorOf). */
export function intentOf(sender: string, item: Item, feePayer?: string): TxIntent {
  return withParties(paymentOf(item), sender, feePayer);
}

/**
 * The family's quote of every item (in parallel, one shared fee quote), under the client's
 * gas options; `retryOf`: the network data of an earlier attempt's rows (their fees are bumped).
 */
export async function planGas(
  chain: ChainHandle,
  sender: string,
  items: Item[],
  opts: GasOptions = {},
  retryOf?: NetworkData[],
  payer?: string,
): Promise<GasPlan> {
  const family = chain.adapter.sender;
  // The client's gasPrice is a fee cap the family completes against its quote (a 400 under the current fee).
  const given = opts.gasPrice !== undefined ? family.fixedNetwork({ feeCap: opts.gasPrice }) : {};
  const quotes = await Promise.all(
    items.map(async (item) => {
      try {
        return await family.quote(intentOf(sender, item, payer), given, retryOf ? { above: retryOf } : {});
      } catch (err) {
        throw refusal(err, item) ?? err;
      }
    }),
  );
  const paid = payer ? { payer } : {};
  if (opts.gasLimit === undefined) return { quotes, ...paid, clientFixed: given };
  // The client's gasLimit, once each estimate fits under it: the same fees, another limit.
  const limit = opts.gasLimit;
  for (const [i, q] of quotes.entries()) checkGasLimit(limit, q.limit!.estimate, items[i]!);
  const fixed = family.fixedNetwork({ limit });
  return { quotes: quotes.map((q) => family.requote(q, fixed)), ...paid, clientFixed: { ...given, ...fixed } };
}

/** A node's "no" to an estimate, as a business rule on the item; null for transport errors. */
function refusal(err: unknown, item: Item): BusinessRuleError | null {
  if (!(err instanceof ChainRejectedError)) return null;
  const field = item.field ? `${item.field}.amount` : 'amount';
  if (err.reason === 'insufficient-funds') {
    return new BusinessRuleError('INSUFFICIENT_BALANCE', 'The sender cannot pay this amount and its network fee', [
      { field, message: 'insufficient balance' },
    ]);
  }
  return new BusinessRuleError('TRANSFER_WOULD_FAIL', `The chain refuses this transfer: ${err.message}`, [
    { field, message: 'the transfer would fail on chain' },
  ]);
}

/**
 * The balances (read outside any lock, see the header), a cheap first check of the amounts
 * against them, then the family's quote of every item.
 */
export async function affordable(
  db: DbConn,
  chain: ChainHandle,
  sender: string,
  items: Item[],
  clock?: DbClock,
  opts: GasOptions = {},
  payer?: string,
): Promise<{ plan: GasPlan; snap: Snapshot }> {
  const snap = await snapshot(db, chain, sender, items, clock);
  checkFunds(chain, items, snap.balances, snap.allowances, null);
  try {
    const plan = await planGas(chain, sender, items, opts, undefined, payer);
    if (payer) await checkPayer(chain, payer, plan, items);
    return { plan, snap };
  } catch (err) {
    // A fee payer without any native coin fails the quote's simulation ("account not
    // found"): say that the master must hold the fees, not that the transfer would fail.
    if (payer && err instanceof BusinessRuleError && err.code !== 'INSUFFICIENT_BALANCE') {
      const [held] = await chain.adapter.getBalances([{ owner: payer, token: null }]).catch(() => [null]);
      if (held === 0n) throw payerShort(chain, 0n, null, items);
    }
    // A token transfer's estimate reverts when the balance is short: funds spent (another
    // withdrawal mined) between the balance read and the estimate. Say so, not "would fail";
    // a failed second read leaves the refusal as it was.
    if ((err as { code?: string }).code === 'TRANSFER_WOULD_FAIL') {
      const again = await snapshot(db, chain, sender, items).catch(() => null);
      if (again) checkFunds(chain, items, again.balances, again.allowances, null);
    }
    throw err;
  }
}

/**
 * The fees a sponsoring payer (the master) covers for another sender: its native balance must
 * hold them now. Not reserved against the master's own withdrawals: a payer that runs short
 * by the time of signing makes the transaction fail before it is sent (nothing is paid), and
 * the pipeline keeps it to retry. A payout held for approval may wait for hours: its quoted
 * fee is held back from the master's payouts while it waits (store.ts heldBack, quoted_fee).
 */
async function checkPayer(chain: ChainHandle, payer: string, plan: GasPlan, items: Item[]): Promise<void> {
  const need = feesOf(plan).reduce((a, b) => a + b, 0n);
  const [[held = 0n], floor] = await Promise.all([
    chain.adapter.getBalances([{ owner: payer, token: null }]),
    chain.adapter.sender.accountFloor(),
  ]);
  // The payer pays fees only: it is never emptied, so it keeps its floor too.
  if (held >= need + floor) return;
  throw payerShort(chain, held, need + floor, items);
}

function payerShort(chain: ChainHandle, held: bigint, need: bigint | null, items: Item[]): BusinessRuleError {
  const decimals = chain.config.blockchain.nativeDecimals;
  const symbol = chain.config.blockchain.symbol;
  const item = items[0]!;
  const needed = need === null ? 'its network fee needed' : `${formatAmount(need, decimals)} needed`;
  return new BusinessRuleError(
    'INSUFFICIENT_BALANCE',
    `The master address pays the network fees of its addresses: ${formatAmount(held, decimals)} ${symbol} available, ${needed}`,
    [{ field: item.field ? `${item.field}.amount` : 'amount', message: 'insufficient balance of the master (fee payer)' }],
  );
}

/**
 * Balances by token address (null: the native coin), read after the database time `at`,
 * and the standing allowances the sender granted through contract writes (as holds).
 */
export interface Snapshot {
  at: Date;
  balances: Map<string | null, bigint>;
  allowances: Allowance[];
  /** The least native balance the sender may be left with unless emptied (Sender.accountFloor). */
  floor: bigint;
}

/** A standing allowance as a hold on its token. */
export interface Allowance extends Reserved {
  spender: string;
}

export async function snapshot(db: DbConn, chain: ChainHandle, sender: string, items: Item[], clock?: DbClock): Promise<Snapshot> {
  // Allowances first, balances second (see the header).
  const { at, allowances } = await standingAllowances(db, chain, sender, items, clock);
  const [balances, floor] = await Promise.all([readBalances(chain, sender, items), chain.adapter.sender.accountFloor()]);
  return { at, balances, allowances, floor };
}

/**
 * The standing allowances the sender granted through contract writes on the items' tokens (as
 * holds), read after the database time `at` (snapshot; alone, for a spend that must fit the
 * withdrawal rules without reading the balances here).
 */
export async function standingAllowances(
  db: DbConn,
  chain: ChainHandle,
  sender: string,
  items: Item[],
  clock?: DbClock,
): Promise<{ at: Date; allowances: Allowance[] }> {
  const [now, listed] = await Promise.all([
    clock ? clock.now(db) : null,
    clock ? clock.spenders(db, chain.id, sender) : store.spenders(db, chain.id, sender),
  ]);
  const at = now && now < listed.at ? now : listed.at;
  const tokens = new Map(
    items.filter((i) => !i.asset.asset.row.is_native).map((i) => [addressKey(i.asset.asset.row.address), i.asset.asset.row.id]),
  );
  const pairs = listed.pairs.filter((p) => tokens.has(addressKey(p.token)));
  const amounts =
    pairs.length > 0 ? await capability(chain.adapter, 'contracts').getAllowances(pairs.map((p) => ({ owner: sender, ...p }))) : [];
  const allowances = pairs.map((p, i) => ({
    assetId: tokens.get(addressKey(p.token))!,
    amount: amounts[i]!,
    fees: 0n,
    spender: p.spender,
  }));
  return { at, allowances: allowances.filter((a) => a.amount > 0n) };
}

async function readBalances(chain: ChainHandle, sender: string, items: Item[]): Promise<Map<string | null, bigint>> {
  const tokens = [...new Set(items.filter((i) => !i.asset.asset.row.is_native).map((i) => i.asset.asset.row.address))];
  const queries = [...tokens.map((token) => ({ owner: sender, token })), { owner: sender, token: null }];
  const amounts = await chain.adapter.getBalances(queries);
  return new Map(queries.map((q, i) => [q.token, amounts[i] ?? 0n]));
}

/** The full check against the snapshot and the sender's pending withdrawals (see the header). */
export async function checkAgainstPending(
  db: DbConn,
  chain: ChainHandle,
  sender: string,
  items: Item[],
  fees: bigint[],
  snap: Snapshot,
): Promise<void> {
  const held = await store.heldBack(db, chain.id, sender, snap.at);
  await checkHeld(chain, sender, items, fees, snap, held, []);
}

/**
 * checkAgainstPending with the reservations already read under the sender's lock (read
 * since a time at or before `snap.at`), plus `extra`: what requests accepted earlier in the
 * same locked transaction reserve (not written yet). `mined` memoises receipt look-ups
 * across the requests of one transaction.
 */
export async function checkHeld(
  chain: ChainHandle,
  sender: string,
  items: Item[],
  fees: bigint[],
  snap: Snapshot,
  held: store.Held[],
  extra: Reserved[],
  locked: LockedReads = lockedReads(),
): Promise<void> {
  const mine = held.filter((h) => h.pending || h.settledAt! >= snap.at);
  // Approves settled since T whose token is asked for: their allowance can be read again (the slow path).
  const tokens = new Map(items.filter((i) => !i.asset.asset.row.is_native).map((i) => [i.asset.asset.row.id, i.asset.asset.row.address]));
  const settledApproves = mine.filter((h) => h.standing && !h.pending && h.spender !== null && h.assetId !== null && tokens.has(h.assetId));
  try {
    checkFunds(chain, items, snap.balances, [...mine, ...extra, ...snap.allowances], fees, snap.floor);
    return;
  } catch (err) {
    if ((err as { code?: string }).code !== 'INSUFFICIENT_BALANCE') throw err;
    if (!mine.some((h) => h.hash && !h.standing) && settledApproves.length === 0) throw err;
  }
  // Allowances granted by contract writes stay held: a balance read does not show them.
  const pending = mine.filter((h) => h.pending && !h.standing);
  const isMined = (hash: string) => {
    let found = locked.mined.get(hash);
    if (!found) locked.mined.set(hash, (found = chain.adapter.getReceipt(hash).then((r) => r !== null)));
    return found;
  };
  const { done, reread, balances } = await boundedUnderLock(chain, locked, async (late) => {
    const done = await Promise.all(pending.map((p) => (p.hash ? isMined(p.hash) : false)));
    // Receipts first, allowances second, balances last (see the header).
    late(); // given up on meanwhile: no more reads for nobody
    const reread = await allowancesNow(chain, sender, settledApproves, tokens);
    late();
    return { done, reread, balances: await readBalances(chain, sender, items) };
  });
  const standing = mine.filter((h) => h.standing && !settledApproves.includes(h));
  const allowances = [...snap.allowances.filter((a) => !reread.has(pairKey(a.assetId!, a.spender))), ...reread.values()];
  checkFunds(chain, items, balances, [...pending.filter((_p, i) => !done[i]), ...standing, ...extra, ...allowances], fees, snap.floor);
}

/**
 * How long the slow path's chain reads may take, in all, in one transaction. They are made
 * under the sender's lock, in the transaction that holds a pool connection (the quick check
 * refused, perhaps only because a spend in flight is mined but not yet recorded); a slow node
 * holds both this long at most, however many requests of a batch take the slow path, not for
 * the client's timeout and retries. Past it an item is refused, 503 CHAIN_UNAVAILABLE (safe to
 * retry: the item writes nothing), and reads under way stop at their next step.
 */
export const LOCKED_READS_MS = 3_000;

/** The slow path's state in one transaction: receipts looked up once, and when its time is up. */
export interface LockedReads {
  mined: Map<string, Promise<boolean>>;
  /** Date.now() past which no slow path of the transaction reads the chain; set by the first. */
  until?: number;
}

export const lockedReads = (): LockedReads => ({ mined: new Map() });

function boundedUnderLock<T>(chain: ChainHandle, locked: LockedReads, reads: (late: () => void) => Promise<T>): Promise<T> {
  const late = () =>
    new UpstreamError(
      'CHAIN_UNAVAILABLE',
      `${chain.config.blockchain.name}'s node did not answer within ${LOCKED_READS_MS / 1000} s while the balance was checked again; try again`,
    );
  locked.until ??= Date.now() + LOCKED_READS_MS;
  const left = locked.until - Date.now();
  if (left <= 0) return Promise.reject(late());
  const until = locked.until;
  return withDeadline(
    reads(() => {
      if (Date.now() >= until) throw late();
    }),
    left,
    late,
  );
}

const pairKey = (assetId: string, spender: string) => `${assetId} ${addressKey(spender)}`;

/**
 * The allowances of the given settled approves' (token, spender) pairs, read now; one per
 * pair, and never below what the pair's approves granted: a read lower than that is either
 * the spender's pull (which left the balance too: holding it a moment longer only holds
 * more) or a node behind the one that gave the receipt (which must not free the hold).
 * A transferFrom by the spender itself is not taken off the read (moves.ts consumes it
 * from the snapshot only): more is held, never less.
 */
async function allowancesNow(
  chain: ChainHandle,
  owner: string,
  approves: store.Held[],
  tokens: Map<string, string>,
): Promise<Map<string, Allowance>> {
  const pairs = new Map(approves.map((h) => [pairKey(h.assetId!, h.spender!), { assetId: h.assetId!, spender: h.spender! }]));
  if (pairs.size === 0) return new Map();
  const list = [...pairs.values()];
  const amounts = await capability(chain.adapter, 'contracts').getAllowances(
    list.map((p) => ({ owner, token: tokens.get(p.assetId)!, spender: p.spender })),
  );
  const granted = new Map<string, bigint>();
  for (const h of approves) {
    const key = pairKey(h.assetId!, h.spender!);
    if (h.amount > (granted.get(key) ?? 0n)) granted.set(key, h.amount);
  }
  return new Map(
    list.map((p, i) => {
      const key = pairKey(p.assetId, p.spender);
      const amount = amounts[i]! > granted.get(key)! ? amounts[i]! : granted.get(key)!;
      return [key, { assetId: p.assetId, amount, fees: 0n, spender: p.spender }];
    }),
  );
}

export interface Reserved {
  assetId: string | null;
  amount: bigint;
  fees: bigint;
}

/**
 * Throws INSUFFICIENT_BALANCE unless, for every asset, balance minus reservations covers the
 * items' amounts, and the native balance minus native reservations (amounts and gas) covers
 * native amounts plus every item's fee (`fees`, in item order). `fees` null: amounts only (a cheap early check).
 * With the fees, what the native coin is left with must be none or at least `floor`
 * (Sender.accountFloor): the items may each pass the chain's simulation alone and still
 * leave the sender, together or beside its pending spends, where the chain refuses the last.
 */
export function checkFunds(
  chain: ChainHandle,
  items: Item[],
  balances: Map<string | null, bigint>,
  reserved: Reserved[],
  fees: bigint[] | null,
  floor = 0n,
): void {
  const native = chain.assets.find((a) => a.is_native);
  const reservedOf = (assetId: string) => reserved.filter((r) => r.assetId === assetId).reduce((s, r) => s + r.amount, 0n);
  const reservedFees = reserved.reduce((s, r) => s + r.fees, 0n);

  let nativeNeed = fees ? fees.reduce((s, f) => s + f, 0n) : 0n;
  const tokenNeed = new Map<string, { need: bigint; item: Item }>();
  for (const item of items) {
    if (item.asset.asset.row.is_native) nativeNeed += item.amount;
    else {
      const id = item.asset.asset.row.id;
      tokenNeed.set(id, { need: (tokenNeed.get(id)?.need ?? 0n) + item.amount, item: tokenNeed.get(id)?.item ?? item });
    }
  }
  for (const [assetId, { need, item }] of tokenNeed) {
    const row = item.asset.asset.row;
    const held = reservedOf(assetId);
    const available = (balances.get(row.address) ?? 0n) - held;
    if (available < need) throw insufficient(row.symbol, row.decimals, available, held, need, item);
  }
  const held = (native ? reservedOf(native.id) : 0n) + reservedFees;
  const available = (balances.get(null) ?? 0n) - held;
  if (available < nativeNeed) {
    const symbol = chain.config.blockchain.symbol;
    const what = fees ? `${symbol} (amounts plus network fees)` : symbol;
    const item = items.find((i) => i.asset.asset.row.is_native) ?? items[0]!;
    throw insufficient(what, chain.config.blockchain.nativeDecimals, available, held, nativeNeed, item);
  }
  const left = available - nativeNeed;
  if (fees && left > 0n && left < floor) throw underFloor(chain, left, floor, items);
}

function underFloor(chain: ChainHandle, left: bigint, floor: bigint, items: Item[]): BusinessRuleError {
  const { symbol, nativeDecimals: decimals } = chain.config.blockchain;
  const item = items.find((i) => i.asset.asset.row.is_native) ?? items[0]!;
  return new BusinessRuleError(
    'INSUFFICIENT_BALANCE',
    `This would leave the sender ${formatAmount(left, decimals)} ${symbol}, and an account on this chain must keep at least ${formatAmount(floor, decimals)} ${symbol} unless it is emptied: send all of it, or at least ${formatAmount(floor - left, decimals)} ${symbol} less`,
    [
      {
        field: item.field ? `${item.field}.amount` : 'amount',
        message: `would leave less than ${formatAmount(floor, decimals)} ${symbol}`,
      },
    ],
  );
}

function insufficient(what: string, decimals: number, available: bigint, held: bigint, need: bigint, item: Item): BusinessRuleError {
  const fmt = (v: bigint) => formatAmount(v < 0n ? 0n : v, decimals);
  const heldText =
    held > 0n ? ` after ${fmt(held)} held for pending withdrawals, contract writes, allowances and deposits held by AML screening` : '';
  return new BusinessRuleError(
    'INSUFFICIENT_BALANCE',
    `Insufficient ${what}: ${fmt(available)} available${heldText}, ${fmt(need)} needed`,
    [{ field: item.field ? `${item.field}.amount` : 'amount', message: 'insufficient balance' }],
  );
}
