/**
 * Deposits: the per-chain indexers and the deposit finder (rescan by transaction hash).
 */
import type { Db } from '../../db/pool.js';
import type { Logger } from '../../lib/logger.js';
import type { Events } from '../../events.js';
import { BusinessRuleError, UpstreamError, ValidationError } from '../../lib/errors.js';
import type { AuthContext } from '../apikeys/service.js';
import type { AddressService } from '../addresses/service.js';
import type { ChainHandle } from '../catalogue/service.js';
import type { TransactionService, TransactionView } from '../transactions/service.js';
import type { WalletService } from '../wallets/service.js';
import type { WebhookService } from '../webhooks/service.js';
import type { RateService } from '../rates/service.js';
import type { AmlService } from '../aml/service.js';
import { ChainIndexer, type IndexerOptions } from './indexer.js';
import { applyMoves, failGone, goneFrom, insertNew, payments, recordTransfer, type Move } from './record.js';
import { runRepairs } from './repair.js';
import * as store from './store.js';
import { credited, type Watcher } from './watch.js';
import { addressKey } from '../../chains/address-key.js';

export class DepositService {
  /** USD quotes for new deposits' amountUSD and rateUSD (services.ts); none: left null. */
  #rates: RateService | undefined;
  #aml: AmlService | undefined;

  constructor(
    private readonly db: Db,
    private readonly wallets: WalletService,
    private readonly addresses: AddressService,
    private readonly transactions: TransactionService,
    private readonly webhooks: WebhookService,
    /** deposit.confirmed is emitted in the transaction that confirms deposits (src/subscriptions.ts). */
    private readonly events: Events,
    private readonly logger: Logger,
    private readonly indexerOptions?: IndexerOptions,
  ) {}

  useRates(rates: RateService): void {
    this.#rates = rates;
  }

  /** AML screening of new deposits' senders (services.ts); none: not screened. */
  useAml(aml: AmlService): void {
    this.#aml = aml;
  }

  indexer(chain: ChainHandle): ChainIndexer {
    // The indexer works through the chain's queued repairs (migration 012) before its first range.
    const repairs = () => runRepairs(this.db, chain.id, this.webhooks, this.logger, (walletId, hash) => this.findFor(walletId, hash));
    return new ChainIndexer(
      this.db,
      chain,
      this.webhooks,
      this.events,
      this.logger,
      this.indexerOptions,
      repairs,
      this.#rates,
      undefined,
      this.#aml,
    );
  }

  /**
   * The deposit finder: records the deposits to this wallet that a mined transaction made,
   * if the indexer has not already. Idempotent: asking twice returns the same records.
   */
  async rescan(auth: AuthContext, walletId: string, hash: string): Promise<TransactionView[]> {
    await this.wallets.require(auth, walletId);
    const ids = await this.findFor(walletId, hash);
    if (ids.length === 0)
      throw new BusinessRuleError('NO_DEPOSIT_FOUND', 'This transaction made no deposit of an enabled asset to this wallet');
    return Promise.all(ids.map((id) => this.transactions.get(auth, walletId, id)));
  }

  /**
   * The deposit finder by block (`{ blockNumber }`, as the described service's clients send
   * it): records the deposits to this wallet made in that block, as the indexer would have
   * (the same crediting rule), and returns them; [] when there are none. Idempotent.
   */
  async rescanBlock(auth: AuthContext, walletId: string, blockNumber: bigint): Promise<TransactionView[]> {
    await this.wallets.require(auth, walletId);
    const wallet = await this.wallets.requireRow(walletId);
    const chain = this.wallets.chainOf(wallet);
    const head = await chain.adapter.getBlockNumber();
    if (blockNumber > head) throw new BusinessRuleError('BLOCK_NOT_FOUND', `Block ${blockNumber} is beyond the chain's head (${head})`);
    const tokens = chain.assets.filter((a) => !a.is_native).map((a) => a.address);
    // Every transfer of the block, then the wallet's share of them by the watch set's rule
    // (one query for the block's recipients, not the wallet's whole address list).
    const transfers = payments((await chain.adapter.scan(blockNumber, blockNumber, tokens, () => true)).transfers);
    const recipients = [...new Set(transfers.map((t) => addressKey(t.to)))];
    const watchers = new Map<string, Watcher[]>();
    for (const row of await store.watchersOf(this.db, chain.id, recipients)) {
      const key = addressKey(row.address);
      watchers.set(key, [...(watchers.get(key) ?? []), { walletId: row.wallet_id, addressId: row.address_id, internal: row.internal }]);
    }
    const ours = (to: string) => credited(watchers.get(addressKey(to)) ?? []).some((w) => w.walletId === walletId);
    const hashes = [...new Set(transfers.filter((t) => ours(t.to)).map((t) => t.txHash))];
    const ids: string[] = [];
    for (const hash of hashes) for (const id of await this.findFor(walletId, hash)) if (!ids.includes(id)) ids.push(id);
    return Promise.all(ids.map((id) => this.transactions.get(auth, walletId, id)));
  }

  /** The deposit finder's work, without access checks: the ids of the wallet's deposits in the transaction. */
  private async findFor(walletId: string, hash: string): Promise<string[]> {
    const wallet = await this.wallets.requireRow(walletId);
    const chain = this.wallets.chainOf(wallet);
    const tokens = chain.assets.filter((a) => !a.is_native).map((a) => a.address);
    const read = await chain.adapter.transfersOfTransaction(hash, tokens, () => true);
    if (read.length === 0) {
      throw new BusinessRuleError('TRANSACTION_NOT_FOUND', 'No successful transaction with this hash is known to the chain');
    }
    // Its transfers of 0 are no deposits (record.ts payments): none left, NO_DEPOSIT_FOUND.
    const transfers = payments(read);
    if (transfers.length === 0) return [];
    // The same rule as the indexer's watch set: a wallet is credited with a transfer to an
    // address it watches only where the watch set would credit it (an address the service
    // holds a key for is its key holder's, whatever another wallet registered).
    const addresses = [...new Set(transfers.flatMap((x) => [addressKey(x.to), addressKey(x.from)]))];
    const watchers = new Map<string, Watcher[]>();
    for (const row of await store.watchersOf(this.db, chain.id, addresses)) {
      const key = addressKey(row.address);
      const list = watchers.get(key) ?? [];
      list.push({ walletId: row.wallet_id, addressId: row.address_id, internal: row.internal });
      watchers.set(key, list);
    }
    const owners = new Map<string, Watcher[]>();
    for (const [key, list] of watchers)
      owners.set(
        key,
        credited(list).filter((w) => w.walletId === walletId),
      );
    const enabled = new Set(
      (await store.enabledAssetsOfChain(this.db, chain.id)).filter((e) => e.wallet_id === walletId).map((e) => e.asset_id),
    );
    const head = await chain.adapter.getBlockNumber();
    const final = await chain.adapter.finalizedHead(head);
    await this.#rates?.prefetch([...enabled]);
    const screener = await this.#aml?.depositScreener(
      chain,
      transfers.flatMap((t) =>
        (owners.get(addressKey(t.to)) ?? []).length ? [t.from, ...(t.payers ?? [])].map((from) => ({ from, walletIds: [walletId] })) : [],
      ),
    );
    return this.db.transaction().execute(async (tx) => {
      // The chain's own spelling of the hash (some families store it without 0x, whatever the client sent).
      const hashes = [...new Set(transfers.map((t) => t.txHash))];
      const existing = await store.depositsOfHashes(tx, chain.id, hashes);
      const matched = new Set<string>();
      const found: string[] = [];
      const ctx = {
        chain,
        webhooks: this.webhooks,
        transactions: this.transactions,
        logger: this.logger,
        owners: (a: string) => owners.get(addressKey(a)) ?? [],
        isEnabled: (_w: string, asset: string) => enabled.has(asset),
        usd: (asset: string) => this.#rates?.cached(asset) ?? null,
        ownSwaps: await store.ownSwaps(tx, chain.id, hashes),
        ...(screener ? { aml: screener, rescreen: [] as string[] } : {}),
      };
      const inserts: store.NewDeposit[] = [];
      const moves: Move[] = [];
      for (const t of transfers) {
        for (const id of recordTransfer(ctx, t, existing, matched, inserts, moves)) if (!inserts.some((d) => d.id === id)) found.push(id);
      }
      // As a range does (indexer.ts): this wallet's records the receipts no longer hold fail,
      // the moved move, before the inserts that may take their positions.
      const failed = await failGone(
        tx,
        ctx,
        goneFrom(
          ctx,
          existing.filter((e) => e.wallet_id === walletId),
          matched,
          transfers,
          { moves, inserts },
        ),
      );
      if (failed.length) await this.events.emit('deposit.failed', tx, { depositIds: failed });
      const revived = await applyMoves(tx, ctx, moves);
      const inserted = (await insertNew(tx, ctx, inserts)).ids;
      if (inserted.length || revived.length) await this.events.emit('deposit.recorded', tx, { depositIds: [...inserted, ...revived] });
      found.push(...inserted);
      // A planned record another writer (an indexer range, a twin request) committed at the
      // same position after `existing` was read: the insert skipped it, and it is this wallet's
      // record of the transfer all the same (not NO_DEPOSIT_FOUND).
      const skipped = inserts.filter((d) => !inserted.includes(d.id));
      if (skipped.length) {
        const now = await store.depositsOfHashes(tx, chain.id, [...new Set(skipped.map((d) => d.hash))]);
        for (const d of skipped) {
          const row = now.find((r) => r.wallet_id === walletId && r.status !== 'FAILED' && r.hash === d.hash && r.log_index === d.logIndex);
          if (row && !found.includes(row.id)) found.push(row.id);
        }
      }
      const rescreen = ctx.rescreen?.filter((id) => inserted.includes(id)) ?? [];
      if (rescreen.length) await this.#aml!.queueRescreen(tx, rescreen);
      // The cursor, share-locked: a range recording meanwhile commits first (and fails what
      // this wrote from a block it read with another hash: indexer.ts), or waits for this one.
      const cursor = await store.shareLockCursor(tx, chain.id);
      // A block the indexer has read already, stored with another hash: the block read here
      // was replaced since (or the indexer has yet to see a reorganisation). Written, no range
      // would read it again, and the indexer would confirm it by its number: nothing is kept.
      const block = transfers[0]!.block;
      if (cursor && found.length && block.number <= cursor.number) {
        const stored = (await store.storedHashes(tx, chain.id, [block.number])).get(block.number);
        if (stored !== undefined && stored !== block.hash)
          throw new UpstreamError(
            'CHAIN_UNAVAILABLE',
            `Block ${block.number} changed while this transaction was read (chain reorganisation); ask again`,
          );
      }
      // Only blocks the indexer has verified may confirm; later ones it confirms itself.
      if (cursor && found.length) {
        const verified = cursor.number < head ? cursor.number : head;
        const confirmed = await this.transactions.confirmDeposits(tx, chain.id, head, verified, final, found);
        await this.webhooks.emitForTransactions(tx, confirmed, 'deposit.success');
        if (confirmed.length) await this.events.emit('deposit.confirmed', tx, { depositIds: confirmed });
      }
      return found;
    });
  }
}

/** `rescan/blocks` takes exactly one of `transactionHash` and `blockNumber` (a 400 naming both otherwise). */
export function rescanTarget(body: { transactionHash?: string; blockNumber?: number | string }): { hash: string } | { block: bigint } {
  const given = (body.transactionHash !== undefined ? 1 : 0) + (body.blockNumber !== undefined ? 1 : 0);
  if (given !== 1) {
    const message = given === 0 ? 'one of transactionHash and blockNumber is required' : 'give transactionHash or blockNumber, not both';
    throw new ValidationError(message, [
      { field: 'transactionHash', message },
      { field: 'blockNumber', message },
    ]);
  }
  return body.transactionHash !== undefined ? { hash: body.transactionHash } : { block: BigInt(body.blockNumber!) };
}
