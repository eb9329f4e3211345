/**
 * One chain's deposit indexer. `step()` moves the chain's cursor forward by one range:
 * it checks the cursor block is still canonical (else rewinds to the common ancestor),
 * scans the range, and records everything the range implies in ONE database transaction
 * with the new cursor: new deposits, deposits that moved or vanished in a reorg,
 * confirmations and the events. A crash, a replay or a second indexer therefore never
 * records anything twice or skips a block. Catching up, consecutive ranges are recorded
 * by two overlapping transactions that still commit in order (see `step`).
 */
import type { Db, DbTx } from '../../db/pool.js';
import type { BlockPointer, BlockRef, ScanResult } from '../../chains/types.js';
import type { Logger } from '../../lib/logger.js';
import type { Events } from '../../events.js';
import type { ChainHandle } from '../catalogue/service.js';
import { TransactionWrites } from '../transactions/service.js';
import type { WebhookService } from '../webhooks/service.js';
import type { RateService } from '../rates/service.js';
import * as store from './store.js';
import { WatchSet } from './watch.js';
import { applyMoves, failGone, goneFrom, insertNew, payments, recordTransfer, type Move, type RecordContext } from './record.js';
import type { AmlService, DepositScreener } from '../aml/service.js';
import { addressKey } from '../../chains/address-key.js';

export interface IndexerOptions {
  /** Blocks per scanned range. */
  batchBlocks: number;
  /** Block hashes kept beyond the confirmation depth, to find the ancestor of a reorg. */
  extraWindow: number;
}

/** The range is not recorded, and is read again: the cursor moved, or a record of its transactions appeared (see `record`). */
class CursorMovedError extends Error {}

/** Ranges read in a row at a narrowed span before it doubles again (see `ChainIndexer.read`). */
const GROW_AFTER = 32;
/** Failures in a row of a range shorter than the span before it is taken for too long too (see `ChainIndexer.read`). */
const SHORT_FAILURES = 3;

/** The head a range was read against, and the newest final block then (ChainAdapter.finalizedHead). */
interface Depth {
  head: bigint;
  final: bigint;
}

/** A range's recording transaction (see `step`). */
interface Recording {
  /** The cursor once it commits. */
  end: store.Cursor;
  state: 'running' | 'committed' | 'failed';
  /** True once committed; false when the cursor was not where it expected; rejects with any other failure. */
  done: Promise<boolean>;
}

/** Waits for a recording; true when it committed. */
async function settle(r: Recording | null): Promise<boolean> {
  return r ? r.done : false;
}

/** Pending deposits of a range whose transaction its scan did not find (vanishedDeposits). */
interface Vanished {
  gone: store.DepositRow[];
  ahead: { row: store.DepositRow; block: BlockPointer }[];
}

export class ChainIndexer {
  readonly watch: WatchSet;
  #tail: Recording | null = null;
  /** When the queued repairs are to be tried (see `repairs`); never again once they ran. */
  #repairsDue = 0;
  /** Blocks per range now: `batchBlocks`, or fewer after a range could not be read (see `read`). */
  #span: number;
  /** Ranges read since the span last changed. */
  #readsAtSpan = 0;
  /** Reads that failed in a row. */
  #failures = 0;

  constructor(
    private readonly db: Db,
    readonly chain: ChainHandle,
    private readonly webhooks: WebhookService,
    /** deposit.confirmed is emitted in the range's transaction; its subscribers only queue jobs (src/subscriptions.ts). */
    private readonly events: Events,
    private readonly logger: Logger,
    private readonly opts: IndexerOptions = { batchBlocks: 100, extraWindow: 64 },
    /** Work queued for the chain's indexer once (deposit repairs of migration 012). */
    private readonly repairs?: () => Promise<void>,
    /** USD quotes of new deposits (amountUSD, rateUSD), read before the range's transaction. */
    private readonly rates?: RateService,
    /** The writes of the transactions table (stateless: any instance, the TransactionService's included, is the same). */
    private readonly transactions: TransactionWrites = new TransactionWrites(),
    /** AML screening of new deposits' senders, before the range's transaction (absent: none). */
    private readonly aml?: AmlService,
  ) {
    this.watch = new WatchSet(db, chain.id);
    this.#span = Math.max(1, this.opts.batchBlocks);
  }

  /** Blocks per range now (`batchBlocks` unless a node refused longer ranges: see `read`). */
  get span(): number {
    return this.#span;
  }

  /**
   * One step; 'idle' when the cursor is at the head. While catching up, a step returns with
   * its range's transaction still running (`#tail`): the next step reads the next range
   * meanwhile and writes its new deposits in a second transaction, which then waits for the
   * first to end and takes the cursor only if it committed (see `record`), so ranges still
   * commit in order and one that fails is read again. Not to be called concurrently on one
   * ChainIndexer (two indexers, each with its own, are safe).
   */
  async step(): Promise<'idle' | 'progress'> {
    const tail = this.#tail;
    this.#tail = null;
    try {
      return await this.#step(tail);
    } catch (err) {
      // Never leave a range running unseen; its own failure is the one to report.
      const failure = await settle(tail).then(
        () => null,
        (e: unknown) => e,
      );
      throw failure ?? err;
    }
  }

  async #step(tail: Recording | null): Promise<'idle' | 'progress'> {
    if (!tail && this.repairs && Date.now() >= this.#repairsDue) await this.runRepairs(this.repairs);
    const adapter = this.chain.adapter;
    // The head first, then the watch set: an address paid in a block at or below the head was
    // issued (committed) before its payer saw it, so before this read of the head, and the
    // refresh sees it. Refreshed first, an address issued and paid while the head was read (a
    // slow or retried RPC) was missing from the range that scanned its block, for good.
    const head = await adapter.getBlockNumber();
    await this.watch.refresh();
    const stored = async () => (await store.readCursor(this.db, this.chain.id)) ?? (await this.initialCursor(head));
    // The range follows the one still being written, unless that one is known to have failed.
    const cursor = tail && tail.state !== 'failed' ? tail.end : await stored();
    if (cursor.number >= head) {
      if (!tail) return 'idle';
      await this.settleOne(tail);
      return 'progress'; // the next step reads where it got to
    }

    const from = cursor.number + 1n;
    const to = head < from + BigInt(this.#span) - 1n ? head : from + BigInt(this.#span) - 1n;
    const tokens = this.tokenAddresses();
    let scan: ScanResult | null = null;
    if (cursor.hash !== null) {
      const current = await adapter.getBlock(cursor.number);
      if (current && current.hash === cursor.hash) {
        scan = await this.read(from, to, tokens);
        if (scan.blocks[0]?.parentHash !== cursor.hash) scan = null;
      }
      if (!scan) {
        await this.settleOne(tail);
        await this.rewind(await stored());
        return 'progress';
      }
    } else scan = await this.read(from, to, tokens);
    const vanished = await this.vanishedDeposits(from, to, scan);
    // The newest final block (depth counting, or the node's own final block: ChainAdapter.finalizedHead): deposits
    // at or below it are confirmed by this range's transaction.
    const final = await adapter.finalizedHead(head);
    // Never fails: a feed that cannot be read leaves amountUSD null, it does not hold up deposits.
    await this.rates?.prefetch(this.assetIdsOf(scan));
    // Never fails either: a provider that does not answer leaves the deposits NOT_SCREENED
    // (and held where the wallet fails closed), screened again by a job.
    const screener = await this.screener(scan);
    const recording = this.startRecording(
      cursor,
      { head, final },
      to,
      scan,
      vanished,
      tail && tail.state !== 'failed' ? tail : null,
      screener,
    );
    try {
      await this.settleOne(tail);
    } catch (err) {
      await recording.done.catch(() => undefined); // it follows the failed one: it cannot commit
      throw err;
    }
    if (to < head) this.#tail = recording;
    else await this.settleOne(recording);
    return 'progress';
  }

  /**
   * Reads [from, to]. A node may refuse a range as too large: providers cap eth_getLogs by
   * results or by blocks (10,000 logs is common), and a busy chain's listed tokens log more
   * than that in 100 blocks. Asked again for the same range, such a node refuses it forever, and
   * no deposit after it would be credited: a full range (as long as the span) that cannot be
   * read makes the next ones half as long, down to one block, and the span doubles back towards
   * `batchBlocks` after every GROW_AFTER ranges read. A range cut short by the head that fails
   * once (a timeout, a reorg seen mid-read) leaves the span alone: halving it there, to one
   * block, made a later backlog crawl. Failing SHORT_FAILURES times in a row, it is too long as
   * well (a backlog shorter than the span that the node refuses): half of it is the span.
   */
  private async read(from: bigint, to: bigint, tokens: string[]): Promise<ScanResult> {
    let scan: ScanResult;
    try {
      scan = await this.chain.adapter.scan(from, to, tokens, this.watch.has);
    } catch (err) {
      const blocks = Number(to - from) + 1;
      this.#failures++;
      if (blocks > 1 && (blocks >= this.#span || this.#failures >= SHORT_FAILURES)) {
        this.#span = Math.floor(blocks / 2);
        this.#readsAtSpan = 0;
        this.#failures = 0;
        this.logger.warn(
          { chain: this.chain.key, from: from.toString(), to: to.toString(), span: this.#span, err: (err as Error).message },
          'a range could not be read; reading fewer blocks at a time',
        );
      }
      throw err;
    }
    this.#failures = 0;
    if (this.#span < this.opts.batchBlocks && ++this.#readsAtSpan >= GROW_AFTER) {
      this.#span = Math.min(this.opts.batchBlocks, this.#span * 2);
      this.#readsAtSpan = 0;
    }
    // A transfer of 0 is no deposit (record.ts payments): nothing of the range sees it.
    return { ...scan, transfers: payments(scan.transfers) };
  }

  /** Queued repairs run once; one that fails is logged and tried again a minute later, never holding up the ranges. */
  private async runRepairs(repairs: () => Promise<void>): Promise<void> {
    this.#repairsDue = Infinity;
    try {
      await repairs();
    } catch (err) {
      this.#repairsDue = Date.now() + 60_000;
      this.logger.error({ chain: this.chain.key, err }, 'deposit repairs failed; trying again in a minute');
    }
  }

  /** Waits for the range still being written, if any (before standing down or stopping). */
  async settle(): Promise<void> {
    const tail = this.#tail;
    this.#tail = null;
    await this.settleOne(tail);
  }

  /** Waits for a recording; one that found the cursor moved is noted (its range is read again). */
  private async settleOne(r: Recording | null): Promise<void> {
    if (r && !(await settle(r)))
      this.logger.info(
        { chain: this.chain.key, to: r.end.number.toString() },
        'range not recorded: the cursor had moved (another indexer, or the range before failed), or a record of its transactions was written meanwhile; reading it again',
      );
  }

  /**
   * Starts the transaction that records [cursor + 1, to]; it commits only if the cursor is
   * still `cursor` then. `after`: the previous range's recording, still running.
   */
  private startRecording(
    cursor: store.Cursor,
    depth: Depth,
    to: bigint,
    scan: ScanResult,
    vanished: Vanished,
    after: Recording | null,
    screener?: DepositScreener,
  ): Recording {
    const recording: Recording = {
      end: { number: to, hash: scan.blocks.at(-1)!.hash },
      state: 'running',
      done: this.db
        .transaction()
        .execute((tx) => this.record(tx, cursor, depth, to, scan, vanished, after, screener))
        .then(
          () => {
            recording.state = 'committed';
            return true;
          },
          (err: unknown) => {
            recording.state = 'failed';
            if (err instanceof CursorMovedError) return false; // another indexer, or the range before failed
            throw err;
          },
        ),
    };
    recording.done.catch(() => undefined); // awaited by the next step; until then not "unhandled"
    return recording;
  }

  /** The AML verdicts of the range's deposits' senders (aml/service.ts), read before its transaction. */
  private async screener(scan: ScanResult): Promise<DepositScreener | undefined> {
    if (!this.aml) return undefined;
    const deposits = scan.transfers.flatMap((t) => {
      const owners = this.watch.owners(t.to);
      const walletIds = owners.map((o) => o.walletId);
      return owners.length ? [t.from, ...(t.payers ?? [])].map((from) => ({ from, walletIds })) : [];
    });
    return deposits.length ? this.aml.depositScreener(this.chain, deposits) : undefined;
  }

  private context(aml?: DepositScreener): RecordContext {
    return {
      ...(aml ? { aml, rescreen: [] } : {}),
      chain: this.chain,
      webhooks: this.webhooks,
      transactions: this.transactions,
      logger: this.logger,
      owners: (address) => this.watch.owners(address),
      isEnabled: (walletId, assetId) => this.watch.isEnabled(walletId, assetId),
      usd: (assetId) => this.rates?.cached(assetId) ?? null,
    };
  }

  private assetIdsOf(scan: ScanResult): string[] {
    const ids = new Set<string>();
    for (const t of scan.transfers) {
      const asset = this.chain.assets.find((a) => (t.token === null ? a.is_native : addressKey(a.address) === addressKey(t.token)));
      if (asset) ids.add(asset.id);
    }
    return [...ids];
  }

  private tokenAddresses(): string[] {
    return this.chain.assets.filter((a) => !a.is_native).map((a) => a.address);
  }

  private async initialCursor(head: bigint): Promise<store.Cursor> {
    const start = this.chain.config.startBlock === null ? head : BigInt(this.chain.config.startBlock);
    if (start === 0n) return { number: -1n, hash: null };
    const before = await this.chain.adapter.getBlock(start - 1n);
    return { number: start - 1n, hash: before?.hash ?? null };
  }

  /** Rewinds the cursor to the newest stored block that is still canonical. */
  private async rewind(cursor: store.Cursor): Promise<void> {
    let ancestor: store.Cursor | null = null;
    let lowest: bigint | null = null;
    for (const stored of await store.storedBlocksDescending(this.db, this.chain.id, cursor.number)) {
      lowest = stored.number;
      const current = await this.chain.adapter.getBlock(stored.number);
      if (current?.hash === stored.hash) {
        ancestor = { number: stored.number, hash: stored.hash };
        break;
      }
    }
    if (!ancestor) {
      // Deeper than the kept window: confirmed deposits are final by then; rescan from below it.
      const below = (lowest ?? cursor.number) - 1n;
      this.logger.error({ chain: this.chain.key, from: cursor.number.toString() }, 'reorg deeper than the kept block window');
      ancestor = { number: below, hash: (await this.chain.adapter.getBlock(below))?.hash ?? null };
    }
    this.logger.warn({ chain: this.chain.key, from: cursor.number.toString(), to: ancestor.number.toString() }, 'reorg: rewinding');
    await this.db.transaction().execute(async (tx) => {
      const locked = await store.lockCursor(tx, this.chain.id, cursor);
      if (locked.number !== cursor.number || locked.hash !== cursor.hash) return;
      await store.saveCursor(tx, this.chain.id, ancestor!);
      await store.deleteBlocksAbove(tx, this.chain.id, ancestor!.number);
    });
  }

  /**
   * Pending deposits of the range whose transaction the scan did not find: reorged away
   * (`gone`), unless the node knows the transaction in a later block (`ahead`: moved there, so
   * the range that scans that block finds it, or fails it if that block goes too; left in a
   * block no range will scan again, it would be confirmed by its number on a replaced block).
   * The scan reads transfers to watched addresses only: a deposit whose wallet has stopped
   * watching its recipient is missing from it whatever became of it, so it is failed only when
   * its transaction is gone or reverted; mined again in the range, it moves to that block
   * (nothing was read for it, as goneFrom leaves such records: record.ts).
   */
  private async vanishedDeposits(from: bigint, to: bigint, scan: ScanResult): Promise<Vanished> {
    const pending = await store.pendingDepositsBetween(this.db, this.chain.id, from, to);
    const seen = new Set(scan.transfers.map((t) => t.txHash.toLowerCase()));
    const missing = pending.filter((p) => !seen.has(p.hash.toLowerCase()));
    const out: Vanished = { gone: [], ahead: [] };
    for (const p of missing) {
      const receipt = await this.chain.adapter.getReceipt(p.hash);
      if (receipt && receipt.block.number > to) out.ahead.push({ row: p, block: receipt.block });
      else if (receipt?.status === 'success' && !this.#watchedFor(p)) out.ahead.push({ row: p, block: receipt.block });
      else out.gone.push(p);
    }
    return out;
  }

  /** Whether the deposit's wallet still watches its recipient (so a scan would have read the transfer). */
  #watchedFor(d: store.DepositRow): boolean {
    return d.recipient_address !== null && this.watch.owners(d.recipient_address).some((o) => o.walletId === d.wallet_id);
  }

  private async record(
    tx: DbTx,
    cursor: store.Cursor,
    { head, final }: Depth,
    to: bigint,
    scan: ScanResult,
    vanished: Vanished,
    after: Recording | null,
    screener?: DepositScreener,
  ): Promise<void> {
    // The cursor row is locked only once the new deposits are written, so this transaction
    // writes them while the previous range's is still running; it then waits for that one
    // to end and takes the cursor only if it committed. Deposits already on record may be
    // updated, which must see the previous range's changes: then it waits and locks first,
    // and reads them after the lock.
    const lock = async () => {
      if (after) await after.done.catch(() => false);
      const locked = await store.lockCursor(tx, this.chain.id, cursor);
      if (locked.number !== cursor.number || locked.hash !== cursor.hash) throw new CursorMovedError();
    };
    const hashes = [...new Set(scan.transfers.map((t) => t.txHash))];
    let existing = await store.depositsOfHashes(tx, this.chain.id, hashes);
    const lockedFirst = existing.length > 0;
    if (lockedFirst) {
      await lock();
      existing = await store.depositsOfHashes(tx, this.chain.id, hashes);
    }
    const matched = new Set<string>();
    const inserts: store.NewDeposit[] = [];
    const moves: Move[] = [];
    const ctx = { ...this.context(screener), ownSwaps: await store.ownSwaps(tx, this.chain.id, hashes) };
    for (const t of scan.transfers) recordTransfer(ctx, t, existing, matched, inserts, moves);
    // Records are only matched, moved or gone when some were read, and then under the lock.
    // The gone fail first and the moved move next: the inserts may take their positions.
    const failed = await failGone(tx, ctx, goneFrom(ctx, existing, matched, scan.transfers, { moves, inserts }));
    const revived = await applyMoves(tx, ctx, moves);
    const { ids: inserted, settled } = await insertNew(tx, ctx, inserts, { head, final });
    if (inserted.length || revived.length) await this.events.emit('deposit.recorded', tx, { depositIds: [...inserted, ...revived] });
    const rescreen = ctx.rescreen?.filter((id) => inserted.includes(id)) ?? [];
    if (rescreen.length) await this.aml!.queueRescreen(tx, rescreen);
    if (!lockedFirst) await lock();
    for (const v of vanished.gone) {
      if (matched.has(v.id)) continue;
      // Read before the lock: failed only if still PENDING in the block it was read in (the
      // previous range may have found it re-mined elsewhere meanwhile).
      if (await this.transactions.failDeposit(tx, v, 'The block holding this deposit was replaced (chain reorganisation)')) {
        await this.webhooks.emitForTransaction(tx, v.id, 'deposit.failed');
        failed.push(v.id);
      }
    }
    for (const { row, block } of vanished.ahead) {
      if (!matched.has(row.id)) await this.transactions.moveDepositAhead(tx, row, block);
    }
    // Read under the cursor lock: pending deposits at a height of the range in another block
    // than the range read there, of a transaction the range did not read (those it read are
    // matched above, or the range is read again). The deposit finder wrote them from a block replaced since, after the
    // range's reads (vanishedDeposits); left, they would be confirmed by their number.
    const read = new Set(hashes.map((x) => x.toLowerCase()));
    const offBlocks = await store.pendingOffBlocks(tx, this.chain.id, scan.blocks);
    // One of a transaction the range read, when the range read no record of its transactions
    // before the lock: the finder committed it since, so nothing here matched it, and the
    // range may have inserted the same transfer at its new position beside it (both would be
    // confirmed). Read again, the range finds it on record and moves it there.
    if (!lockedFirst && offBlocks.some((o) => read.has(o.hash.toLowerCase()))) throw new CursorMovedError();
    for (const d of offBlocks.filter((o) => !read.has(o.hash.toLowerCase()))) {
      if (await this.transactions.failDeposit(tx, d, 'The block holding this deposit was replaced (chain reorganisation)')) {
        await this.webhooks.emitForTransaction(tx, d.id, 'deposit.failed');
        failed.push(d.id);
      }
    }
    if (failed.length) await this.events.emit('deposit.failed', tx, { depositIds: failed });

    // The blocks that can still be replaced (head - final), and `extraWindow` more below them.
    const window = head - final + 1n + BigInt(this.opts.extraWindow);
    await store.saveBlocks(
      tx,
      this.chain.id,
      scan.blocks.filter((b: BlockRef) => b.number > head - window),
    );
    await store.deleteBlocksBelow(tx, this.chain.id, head - window);
    const last = scan.blocks.at(-1)!;
    await store.saveCursor(tx, this.chain.id, { number: to, hash: last.hash });

    // Deposits found already at depth were confirmed as they were inserted (`settled`).
    const confirmed = await this.transactions.confirmDeposits(tx, this.chain.id, head, to, final);
    await this.webhooks.emitForTransactions(tx, confirmed, 'deposit.success');
    const all = [...settled, ...confirmed];
    if (all.length) await this.events.emit('deposit.confirmed', tx, { depositIds: all });
  }
}
