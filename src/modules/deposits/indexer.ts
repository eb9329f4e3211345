/**
 * One chain's deposit indexer. `step()` moves the chain's cursor forward by one range:
 * it checks the cursor block is still canonical (else rewinds to the common ancestor),
 * scans the range, and records everything the range implies in ONE database transaction
 * with the new cursor: new deposits, deposits that moved or vanished in a reorg,
 * confirmations and the events. A crash, a replay or a second indexer therefore never
 * records anything twice or skips a block.
 */
import type { Db, DbTx } from '../../db/pool.js';
import type { BlockRef, ScanResult } from '../../chains/types.js';
import type { Logger } from '../../lib/logger.js';
import type { ChainHandle } from '../catalogue/service.js';
import type { WebhookService } from '../webhooks/service.js';
import * as store from './store.js';
import { WatchSet } from './watch.js';
import { insertNew, recordTransfer, type RecordContext } from './record.js';

export interface IndexerOptions {
  /** Blocks per scanned range. */
  batchBlocks: number;
  /** Block hashes kept beyond the confirmation depth, to find the ancestor of a reorg. */
  extraWindow: number;
}

/** Called in the transaction that confirms deposits (sweeps hook in here). */
export type ConfirmedHook = (tx: DbTx, depositIds: string[]) => Promise<void>;

class CursorMovedError extends Error {}

/**
 * The next range's scan, started while the current range is being recorded (RPC and
 * decoding overlap the database transaction). It is used only when the next step asks for
 * exactly this range with the same tokens and an unchanged watch set, and its first block
 * still follows the cursor; otherwise it is dropped and the range read again. It never
 * moves the cursor: that happens only in the recording transaction, in order.
 */
interface Prefetch {
  from: bigint;
  to: bigint;
  tokens: string;
  watchGeneration: number;
  result: Promise<ScanResult | null>;
}

export class ChainIndexer {
  readonly watch: WatchSet;
  #prefetch: Prefetch | null = null;

  constructor(
    private readonly db: Db,
    readonly chain: ChainHandle,
    private readonly webhooks: WebhookService,
    private readonly onConfirmed: ConfirmedHook[],
    private readonly logger: Logger,
    private readonly opts: IndexerOptions = { batchBlocks: 100, extraWindow: 64 },
  ) {
    this.watch = new WatchSet(db, chain.id);
  }

  private get required(): number {
    return Math.max(1, this.chain.config.confirmations);
  }

  /** One step; 'idle' when the cursor is at the head. */
  async step(): Promise<'idle' | 'progress'> {
    await this.watch.refresh();
    const adapter = this.chain.adapter;
    const head = await adapter.getBlockNumber();
    const cursor = (await store.readCursor(this.db, this.chain.id)) ?? (await this.initialCursor(head));
    if (cursor.blockNumber >= head) {
      this.#prefetch = null; // the node may report a lower head for a while: never use an old read later
      return 'idle';
    }

    if (cursor.blockHash !== null) {
      const current = await adapter.getBlock(cursor.blockNumber);
      if (!current || current.hash !== cursor.blockHash) {
        this.#prefetch = null;
        await this.rewind(cursor);
        return 'progress';
      }
    }
    const from = cursor.blockNumber + 1n;
    const to = head < from + BigInt(this.opts.batchBlocks) - 1n ? head : from + BigInt(this.opts.batchBlocks) - 1n;
    const tokens = this.tokenAddresses();
    const scan = (await this.takePrefetch(from, to, tokens, cursor.blockHash)) ?? (await adapter.scan(from, to, tokens, this.watch.has));
    if (cursor.blockHash !== null && scan.blocks[0]?.parentHash !== cursor.blockHash) {
      await this.rewind(cursor);
      return 'progress';
    }
    const vanished = await this.vanishedDeposits(from, to, scan);
    // Catching up: read the next range while this one is written.
    if (to < head) this.startPrefetch(to + 1n, head, tokens);
    try {
      await this.db.transaction().execute((tx) => this.record(tx, cursor, head, to, scan, vanished));
    } catch (err) {
      if (err instanceof CursorMovedError) return 'progress'; // another indexer got there first
      throw err;
    }
    return 'progress';
  }

  private startPrefetch(from: bigint, head: bigint, tokens: string[]): void {
    const to = head < from + BigInt(this.opts.batchBlocks) - 1n ? head : from + BigInt(this.opts.batchBlocks) - 1n;
    const result = this.chain.adapter.scan(from, to, tokens, this.watch.has).catch((err: unknown) => {
      // Not fatal: the next step reads the range itself (and reports a lasting failure).
      this.logger.debug({ chain: this.chain.key, err: (err as Error).message }, 'prefetch of the next range failed');
      return null;
    });
    this.#prefetch = { from, to, tokens: tokens.join(), watchGeneration: this.watch.generation, result };
  }

  /** The prefetched scan of exactly [from, to], if still valid (see Prefetch). */
  private async takePrefetch(from: bigint, to: bigint, tokens: string[], parentHash: string | null): Promise<ScanResult | null> {
    const p = this.#prefetch;
    this.#prefetch = null;
    if (!p || p.from !== from || p.to !== to || p.tokens !== tokens.join()) return null;
    const scan = await p.result;
    // The watch set changed since the prefetch began: a transfer to a new address may have been left out.
    if (!scan || p.watchGeneration !== this.watch.generation) return null;
    if (parentHash !== null && scan.blocks[0]?.parentHash !== parentHash) return null;
    // The range was read before this step's head: a reorg since then may have replaced
    // blocks inside it, and depths are counted from the newer head. The range links block
    // to block, so its last block still being canonical proves all of it still is.
    const last = scan.blocks.at(-1);
    if (!last || (await this.chain.adapter.getBlock(last.number))?.hash !== last.hash) return null;
    return scan;
  }

  private context(): RecordContext {
    return {
      chain: this.chain,
      webhooks: this.webhooks,
      logger: this.logger,
      owner: (address) => this.watch.get(address),
      isEnabled: (walletId, assetId) => this.watch.isEnabled(walletId, assetId),
    };
  }

  private tokenAddresses(): string[] {
    return this.chain.assets.filter((a) => !a.is_native).map((a) => a.address);
  }

  private async initialCursor(head: bigint): Promise<store.Cursor> {
    const start = this.chain.config.startBlock === null ? head : BigInt(this.chain.config.startBlock);
    if (start === 0n) return { blockNumber: -1n, blockHash: null };
    const before = await this.chain.adapter.getBlock(start - 1n);
    return { blockNumber: start - 1n, blockHash: before?.hash ?? null };
  }

  /** Rewinds the cursor to the newest stored block that is still canonical. */
  private async rewind(cursor: store.Cursor): Promise<void> {
    let ancestor: store.Cursor | null = null;
    let lowest: bigint | null = null;
    for (const stored of await store.storedBlocksDescending(this.db, this.chain.id, cursor.blockNumber)) {
      lowest = stored.number;
      const current = await this.chain.adapter.getBlock(stored.number);
      if (current?.hash === stored.hash) {
        ancestor = { blockNumber: stored.number, blockHash: stored.hash };
        break;
      }
    }
    if (!ancestor) {
      // Deeper than the kept window: confirmed deposits are final by then; rescan from below it.
      const below = (lowest ?? cursor.blockNumber) - 1n;
      this.logger.error({ chain: this.chain.key, from: cursor.blockNumber.toString() }, 'reorg deeper than the kept block window');
      ancestor = { blockNumber: below, blockHash: (await this.chain.adapter.getBlock(below))?.hash ?? null };
    }
    this.logger.warn(
      { chain: this.chain.key, from: cursor.blockNumber.toString(), to: ancestor.blockNumber.toString() },
      'reorg: rewinding',
    );
    await this.db.transaction().execute(async (tx) => {
      const locked = await store.lockCursor(tx, this.chain.id, cursor);
      if (locked.blockNumber !== cursor.blockNumber || locked.blockHash !== cursor.blockHash) return;
      await store.saveCursor(tx, this.chain.id, ancestor!);
      await store.deleteBlocksAbove(tx, this.chain.id, ancestor!.blockNumber);
    });
  }

  /**
   * Pending deposits of the range that the scan did not find: reorged away, unless the
   * node knows their transaction in a later block (then the later range records it).
   */
  private async vanishedDeposits(from: bigint, to: bigint, scan: ScanResult): Promise<store.DepositRow[]> {
    const pending = await store.pendingDepositsBetween(this.db, this.chain.id, from, to);
    const seen = new Set(scan.transfers.map((t) => t.txHash.toLowerCase()));
    const missing = pending.filter((p) => !seen.has(p.hash.toLowerCase()));
    const out: store.DepositRow[] = [];
    for (const p of missing) {
      const receipt = await this.chain.adapter.getReceipt(p.hash);
      if (!receipt || receipt.blockNumber <= to) out.push(p);
    }
    return out;
  }

  private async record(
    tx: DbTx,
    cursor: store.Cursor,
    head: bigint,
    to: bigint,
    scan: ScanResult,
    vanished: store.DepositRow[],
  ): Promise<void> {
    const locked = await store.lockCursor(tx, this.chain.id, cursor);
    if (locked.blockNumber !== cursor.blockNumber || locked.blockHash !== cursor.blockHash) throw new CursorMovedError();

    const existing = await store.depositsOfHashes(tx, this.chain.id, [...new Set(scan.transfers.map((t) => t.txHash))]);
    const matched = new Set<string>();
    const inserts: store.NewDeposit[] = [];
    const ctx = this.context();
    for (const t of scan.transfers) await recordTransfer(tx, ctx, t, existing, matched, inserts);
    const { settled } = await insertNew(tx, ctx, inserts, { head, required: this.required });
    for (const v of vanished) {
      if (matched.has(v.id)) continue;
      await store.failDeposit(tx, v.id, 'The block holding this deposit was replaced (chain reorganisation)');
      await this.webhooks.emitForTransaction(tx, v.id, 'deposit.failed');
    }

    const window = BigInt(this.required + this.opts.extraWindow);
    await store.saveBlocks(
      tx,
      this.chain.id,
      scan.blocks.filter((b: BlockRef) => b.number > head - window),
    );
    await store.deleteBlocksBelow(tx, this.chain.id, head - window);
    const last = scan.blocks.at(-1)!;
    await store.saveCursor(tx, this.chain.id, { blockNumber: to, blockHash: last.hash });

    // Deposits found already at depth were confirmed as they were inserted (`settled`).
    const confirmed = await store.confirmDeposits(tx, this.chain.id, head, to, this.required);
    await this.webhooks.emitForTransactions(tx, confirmed, 'deposit.success');
    const all = [...settled, ...confirmed];
    if (all.length) for (const hook of this.onConfirmed) await hook(tx, all);
  }
}
