/**
 * Recording one transfer to a watched address as deposits, shared by the indexer and the
 * deposit finder: one record per wallet credited with it (the key holder of one of the
 * service's addresses; every wallet watching an outside address). A transfer already on
 * record for that wallet (same chain transaction, recipient, token and amount) is matched,
 * and relocated when a reorg moved it to another block or position; only a new one is
 * inserted. A record of a transaction read whole that no transfer matched any more is gone:
 * the transaction was executed again, differently, after a reorg (failGone).
 */
import type { DbTx } from '../../db/pool.js';
import type { TransferEvent } from '../../chains/types.js';
import type { Logger } from '../../lib/logger.js';
import { shortReference, uuidv7 } from '../../lib/ids.js';
import type { ChainHandle } from '../catalogue/service.js';
import type { EventStage, WebhookService } from '../webhooks/service.js';
import type { TransactionRow, TransactionWrites } from '../transactions/service.js';
import * as store from './store.js';
import type { Owner, Watcher } from './watch.js';
import { rateText, usdValue, type UsdQuote } from '../rates/service.js';
import { addressKey } from '../../chains/address-key.js';
import type { DepositScreener } from '../aml/service.js';

export interface RecordContext {
  chain: ChainHandle;
  webhooks: WebhookService;
  transactions: TransactionWrites;
  logger: Logger;
  /** The wallets credited with a transfer to `address` (see watch.ts `credited`), and whether the service holds its key. */
  owners(address: string): readonly Watcher[];
  isEnabled(walletId: string, assetId: string): boolean;
  /**
   * The asset's USD quote at recording time (rates/service.ts `cached`, read before the
   * transaction): `amountUSD` and `rateUSD` are what the deposit was worth when it was found.
   */
  usd?(assetId: string): UsdQuote | null;
  /** AML screening of the sender (aml/service.ts depositScreener, run before the transaction); absent: none. */
  aml?: DepositScreener;
  /** Filled here: new deposits whose sender went unscreened (a provider did not answer), to screen again by a job. */
  rescreen?: string[];
  /**
   * The wallets' own swaps among the chain transactions read (store.ownSwaps: `walletId:hash`):
   * what such a swap pays an address of its wallet is the wallet's own movement, not a deposit.
   */
  ownSwaps?: ReadonlySet<string>;
}

/** A deposit on record whose transfer was found at another position (or revived): applyMoves writes it. */
export interface Move {
  id: string;
  t: TransferEvent;
  /** It had failed (reorged away) and is back: PENDING again, `deposit.processing` once more. */
  revived: boolean;
}

/**
 * The transfers that pay something; the others are dropped before anything is screened,
 * matched or written (the indexer's ranges, the deposit finder). A payment of 0 moves nothing
 * and is never a deposit: anyone can make one to any address (a token's `transfer(to, 0)`, or
 * `transferFrom(anyone, to, 0)`, which needs no allowance, so its log may name any sender:
 * address-poisoning spam), and recorded it was a deposit record, webhooks and event feed
 * entries, a sender screened and confirmation jobs, for nothing.
 */
export function payments(transfers: readonly TransferEvent[]): TransferEvent[] {
  return transfers.filter((t) => t.amount > 0n);
}

/**
 * Matches a transfer against what is on record, for each wallet credited with it. A new
 * deposit is appended to `inserts` (the caller inserts them in bulk with `insertNew`), a
 * record to move to `moves` (applyMoves, before the inserts); the planned ids are returned,
 * as are the ids of deposits already on record.
 */
export function recordTransfer(
  ctx: RecordContext,
  t: TransferEvent,
  existing: store.DepositRow[],
  matched: Set<string>,
  inserts: store.NewDeposit[],
  moves: Move[],
): string[] {
  const owners = ctx.owners(t.to);
  if (owners.length === 0) return [];
  const senders = ctx.owners(t.from);
  const asset = ctx.chain.assets.find((a) => (t.token === null ? a.is_native : addressKey(a.address) === addressKey(t.token)));
  if (!asset) return [];
  const ids: string[] = [];
  for (const owner of owners) {
    // A record of this transfer follows it (a reorg moved it), whatever the wallet watches or
    // enables now: a record left unmatched is one whose transfer is gone (indexer.ts fails it).
    const found = onRecord(t, owner, existing, matched);
    if (found) {
      ids.push(follow(ctx, t, found, moves));
      continue;
    }
    // Our own movements (gas top-ups, sweeps to the master: from an address of the wallet
    // whose key the service holds) are not deposits; a transfer from an outside address the
    // wallet watches is one.
    if (senders.some((s) => s.walletId === owner.walletId && s.internal)) continue;
    // Nor is the output of the wallet's own swap (an API swap's, an auto-settlement's), which
    // the pool pays in: its owner already accounts for it (the swap's toAmount, the transfer of
    // it a settlement sends on). Taken for a deposit, a rule taking the output asset settled
    // it a second time, out of the address's other funds, and sweeps and webhooks reported
    // money that nobody sent.
    if (ctx.ownSwaps?.has(store.ownSwapKey(owner.walletId, t.txHash))) continue;
    if (!ctx.isEnabled(owner.walletId, asset.id)) continue;
    ids.push(plan(ctx, t, owner, asset, inserts));
  }
  return ids;
}

/**
 * This wallet's record of the transfer, if any: the same chain transaction, recipient, token
 * and amount, at the same log index if one is (a transaction re-mined in another block keeps
 * its logs' order but not their indexes, which count the block's logs: matching by index
 * alone would pair a record with another transfer of the same transaction). Another wallet
 * watching the same address has its own records.
 */
function onRecord(t: TransferEvent, owner: Owner, existing: store.DepositRow[], matched: Set<string>): store.DepositRow | undefined {
  const same = existing.filter(
    (e) =>
      e.wallet_id === owner.walletId &&
      e.hash.toLowerCase() === t.txHash.toLowerCase() &&
      !matched.has(e.id) &&
      (e.recipient_address ? addressKey(e.recipient_address) : null) === addressKey(t.to) &&
      addressKey(e.token_address ?? '') === addressKey(t.token ?? '') &&
      BigInt(e.amount) === t.amount,
  );
  const found = same.find((e) => e.log_index === t.logIndex) ?? same[0];
  if (found) matched.add(found.id);
  return found;
}

/** A transfer on record: to be relocated when a reorg moved it, revived when one had failed it. */
function follow(ctx: RecordContext, t: TransferEvent, found: store.DepositRow, moves: Move[]): string {
  const moved = found.block_hash !== t.block.hash || found.log_index !== t.logIndex;
  if (found.status === 'SUCCESS') {
    if (moved)
      ctx.logger.error({ chain: ctx.chain.key, deposit: found.id }, 'a confirmed deposit moved: reorg deeper than the confirmation depth');
    return found.id;
  }
  if (moved || found.status === 'FAILED') moves.push({ id: found.id, t, revived: found.status === 'FAILED' });
  return found.id;
}

/**
 * Records no transfer matched that must fail, still PENDING (failGone, before the moves and
 * inserts):
 * - gone: their wallet is credited with their recipient now, and a transfer of the same
 *   transaction to that recipient in that token was read, but none matched them: the
 *   transaction was executed again, differently, in the block it was re-mined in;
 * - displaced: a transfer of the same transaction moves or is inserted at their position for
 *   their wallet, so they are not there any more (one live record per position; left, they
 *   would stop the range, or the insert would be skipped).
 * A record whose wallet no longer watches its recipient is neither: nothing was read for it.
 */
export function goneFrom(
  ctx: Pick<RecordContext, 'owners'>,
  existing: store.DepositRow[],
  matched: Set<string>,
  transfers: readonly TransferEvent[],
  claimed: { moves: readonly Move[]; inserts: readonly store.NewDeposit[] },
): store.DepositRow[] {
  // Nothing on record (a backfill's ranges): no key built for the range's transfers.
  if (existing.length === 0) return [];
  const key = (hash: string, to: string | null, token: string | null) =>
    `${hash.toLowerCase()} ${to ? addressKey(to) : ''} ${addressKey(token ?? '')}`;
  const read = new Set(transfers.map((t) => key(t.txHash, t.to, t.token)));
  const wallets = new Map(existing.map((e) => [e.id, e.wallet_id]));
  const position = (hash: string, wallet: string, logIndex: number) => `${hash.toLowerCase()} ${wallet} ${logIndex}`;
  const taken = new Set([
    ...claimed.moves.map((m) => position(m.t.txHash, wallets.get(m.id)!, m.t.logIndex)),
    ...claimed.inserts.map((d) => position(d.hash, d.walletId, d.logIndex)),
  ]);
  return existing.filter((e) => {
    if (e.status !== 'PENDING' || matched.has(e.id)) return false;
    if (taken.has(position(e.hash, e.wallet_id, e.log_index))) return true;
    const credited = e.recipient_address !== null && ctx.owners(e.recipient_address).some((o) => o.walletId === e.wallet_id);
    return credited && read.has(key(e.hash, e.recipient_address, e.token_address));
  });
}

/**
 * Fails the deposits goneFrom found (each only if still PENDING where it was read), with the
 * `deposit.failed` webhook; answers those it failed (the caller emits the domain event).
 */
export async function failGone(tx: DbTx, ctx: RecordContext, gone: store.DepositRow[]): Promise<string[]> {
  const failed: string[] = [];
  for (const g of gone) {
    if (
      await ctx.transactions.failDeposit(
        tx,
        g,
        'Its transfer is no longer in the transaction, executed again in another block (chain reorganisation)',
      )
    ) {
      await ctx.webhooks.emitForTransaction(tx, g.id, 'deposit.failed');
      failed.push(g.id);
    }
  }
  return failed;
}

/**
 * Writes the moves recordTransfer found, in the recording transaction, after failGone and
 * before the inserts: parked off their positions first (a re-mined transaction's records
 * shift together, and one moved onto a position another still holds would clash), then each
 * at its new position. Answers the failed records revived (PENDING again), which the caller
 * tells as recorded anew.
 */
export async function applyMoves(tx: DbTx, ctx: RecordContext, moves: Move[]): Promise<string[]> {
  if (moves.length === 0) return [];
  await ctx.transactions.parkDeposits(
    tx,
    moves.map((m) => m.id),
  );
  for (const m of moves) {
    await ctx.transactions.relocateDeposit(tx, m.id, m.t);
    if (m.revived) await ctx.webhooks.emitForTransaction(tx, m.id, 'deposit.processing');
  }
  return moves.filter((m) => m.revived).map((m) => m.id);
}

/** A new deposit of the transfer for `owner`, appended to `inserts`; its planned id. */
function plan(
  ctx: RecordContext,
  t: TransferEvent,
  owner: Owner,
  asset: ChainHandle['assets'][number],
  inserts: store.NewDeposit[],
): string {
  const id = uuidv7();
  const quote = ctx.usd?.(asset.id) ?? null;
  const screened = ctx.aml?.([t.from, ...(t.payers ?? [])], owner.walletId);
  if (screened?.rescreen) ctx.rescreen?.push(id);
  inserts.push({
    id,
    walletId: owner.walletId,
    addressId: owner.addressId,
    assetId: asset.id,
    chainId: ctx.chain.id,
    reference: shortReference(),
    amount: t.amount,
    amountUsd: quote ? usdValue(t.amount, asset.decimals, quote) : null,
    rateUsd: quote ? rateText(quote) : null,
    currency: asset.symbol,
    hash: t.txHash,
    logIndex: t.logIndex,
    block: t.block,
    from: t.from,
    to: t.to,
    token: t.token,
    network: ctx.chain.row.network,
    ...(screened ? { amlScreening: { ...screened.screening }, amlHeld: screened.held } : {}),
  });
  return id;
}

/**
 * Deposits inserted per statement. A range's statements are queued at once, so the rows
 * they return are held until the range is recorded; the views are built and dropped a
 * hundred at a time.
 */
const INSERT_CHUNK = 500;

/**
 * The events of a new deposit, from one presentation of its row: `deposit.processing`
 * showing it as it was when found (not yet confirmed), then, for one written already
 * confirmed, `deposit.success`.
 */
export const DEPOSIT_FOUND: EventStage[] = [
  {
    name: 'deposit.processing',
    view: (v) => (v.status === 'SUCCESS' ? { ...v, status: 'PENDING', confirmed: false } : v),
    json: (json, v) => (v.status === 'SUCCESS' ? asFound(json) : json),
  },
  { name: 'deposit.success', view: (v) => (v.status === 'SUCCESS' ? v : null), json: (json) => json },
];

const CONFIRMED_KEYS = '"status":"SUCCESS","confirmed":true,';
const FOUND_KEYS = '"status":"PENDING","confirmed":false,';

/**
 * The JSON of `{ ...v, status: 'PENDING', confirmed: false }` from the JSON of a confirmed
 * view `v` (spreading keeps the keys' order, so only those two values differ): the first
 * `"status":` key is the view's own (the keys before it, id, reference and type, hold
 * strings, inside which JSON escapes every quote). Null, and the view is written in full,
 * if the text is not as expected.
 */
function asFound(json: string): string | null {
  const at = json.indexOf('"status":');
  if (at < 1 || json[at - 1] !== ',' || !json.startsWith(CONFIRMED_KEYS, at)) return null;
  return json.slice(0, at) + FOUND_KEYS + json.slice(at + CONFIRMED_KEYS.length);
}

/**
 * Inserts the new deposits in bulk and reports them (`deposit.processing`); returns the
 * inserted ids, and among them those written straight as SUCCESS. With `depth` (the
 * indexer), a deposit already final when found (at or below `depth.final`: a backfill) is written
 * confirmed in the same statement and reported `deposit.processing` then `deposit.success`,
 * as if it had been confirmed a moment later. The events are built from the inserted rows.
 */
export async function insertNew(
  tx: DbTx,
  ctx: RecordContext,
  inserts: store.NewDeposit[],
  depth?: { head: bigint; final: bigint },
): Promise<{ ids: string[]; settled: string[] }> {
  const ids: string[] = [];
  const settled: string[] = [];
  if (inserts.length === 0) return { ids, settled };
  // The views need the deposits' wallets and addresses: read on the transaction's own
  // connection (a second one from the pool, held while this one is, could run the pool dry
  // with several chains' ranges in flight), queued before the inserts, so the views are
  // built while the inserts run.
  const presenter = ctx.webhooks.presenterFor(
    inserts.map((d) => ({ wallet_id: d.walletId, address_id: d.addressId })),
    tx,
  );
  // Every chunk's insert is queued now: PostgreSQL runs the next one while this process
  // builds the events of the previous one. A failure aborts the transaction; the rest fail too.
  const chunks: Promise<TransactionRow[]>[] = [];
  for (let i = 0; i < inserts.length; i += INSERT_CHUNK)
    chunks.push(ctx.transactions.recordDeposits(tx, inserts.slice(i, i + INSERT_CHUNK), depth));
  for (const p of [presenter, ...chunks]) p.catch(() => {}); // awaited below; meanwhile not "unhandled"
  const writer = ctx.webhooks.eventWriter(tx);
  try {
    const present = await presenter;
    for (const pending of chunks) {
      const rows = await pending;
      await writer.writeStages(rows, present, DEPOSIT_FOUND);
      for (const r of rows) {
        ids.push(r.id);
        if (r.status === 'SUCCESS') settled.push(r.id);
      }
    }
  } catch (err) {
    await Promise.allSettled(chunks);
    await writer.finish(); // a failed insert aborted the transaction first: report that
    throw err;
  }
  await writer.finish();
  return { ids, settled };
}
