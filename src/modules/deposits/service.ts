/**
 * Deposits: the per-chain indexers and the deposit finder (rescan by transaction hash).
 */
import type { Db } from '../../db/pool.js';
import type { Logger } from '../../lib/logger.js';
import { BusinessRuleError } from '../../lib/errors.js';
import type { AuthContext } from '../apikeys/service.js';
import type { AddressService } from '../addresses/service.js';
import type { ChainHandle } from '../catalogue/service.js';
import type { TransactionService, TransactionView } from '../transactions/service.js';
import type { WalletService } from '../wallets/service.js';
import type { WebhookService } from '../webhooks/service.js';
import { ChainIndexer, type ConfirmedHook, type IndexerOptions } from './indexer.js';
import { insertNew, recordTransfer } from './record.js';
import * as store from './store.js';
import type { Owner } from './watch.js';

export class DepositService {
  /** Run in the transaction that confirms a deposit (auto-sweep registers here). */
  readonly confirmedHooks: ConfirmedHook[] = [];

  constructor(
    private readonly db: Db,
    private readonly wallets: WalletService,
    private readonly addresses: AddressService,
    private readonly transactions: TransactionService,
    private readonly webhooks: WebhookService,
    private readonly logger: Logger,
    private readonly indexerOptions?: IndexerOptions,
  ) {}

  indexer(chain: ChainHandle): ChainIndexer {
    return new ChainIndexer(this.db, chain, this.webhooks, this.confirmedHooks, this.logger, this.indexerOptions);
  }

  /**
   * The deposit finder: records the deposits to this wallet that a mined transaction made,
   * if the indexer has not already. Idempotent: asking twice returns the same records.
   */
  async rescan(auth: AuthContext, walletId: string, hash: string): Promise<TransactionView[]> {
    const wallet = await this.wallets.require(auth, walletId);
    const chain = this.wallets.chainOf(wallet);
    const tokens = chain.assets.filter((a) => !a.is_native).map((a) => a.address);
    const transfers = await chain.adapter.transfersOfTransaction(hash, tokens, () => true);
    if (transfers.length === 0) {
      throw new BusinessRuleError('TRANSACTION_NOT_FOUND', 'No successful transaction with this hash is known to the chain');
    }
    const owners = new Map<string, Owner>();
    for (const t of [...transfers.map((x) => x.to), ...transfers.map((x) => x.from)]) {
      const key = t.toLowerCase();
      if (owners.has(key)) continue;
      if (key === wallet.address.toLowerCase()) owners.set(key, { walletId, addressId: null });
      else {
        const row = await this.addresses.findByAddress(walletId, t);
        if (row && row.deleted_at === null) owners.set(key, { walletId, addressId: row.id });
      }
    }
    const enabled = new Set(
      (await store.enabledAssetsOfChain(this.db, chain.id)).filter((e) => e.wallet_id === walletId).map((e) => e.asset_id),
    );
    const head = await chain.adapter.getBlockNumber();
    const ids = await this.db.transaction().execute(async (tx) => {
      const existing = await store.depositsOfHashes(tx, chain.id, [hash]);
      const matched = new Set<string>();
      const found: string[] = [];
      const ctx = {
        chain,
        webhooks: this.webhooks,
        logger: this.logger,
        owner: (a: string) => owners.get(a.toLowerCase()),
        isEnabled: (_w: string, asset: string) => enabled.has(asset),
      };
      const inserts: store.NewDeposit[] = [];
      for (const t of transfers) {
        const id = await recordTransfer(tx, ctx, t, existing, matched, inserts);
        if (id && !inserts.some((d) => d.id === id)) found.push(id);
      }
      found.push(...(await insertNew(tx, ctx, inserts)).ids);
      // Only blocks the indexer has verified may confirm; later ones it confirms itself.
      const cursor = await store.readCursor(tx, chain.id);
      if (cursor && found.length) {
        const verified = cursor.blockNumber < head ? cursor.blockNumber : head;
        const confirmed = await store.confirmDeposits(tx, chain.id, head, verified, Math.max(1, chain.config.confirmations), found);
        await this.webhooks.emitForTransactions(tx, confirmed, 'deposit.success');
        if (confirmed.length) for (const hook of this.confirmedHooks) await hook(tx, confirmed);
      }
      return found;
    });
    if (ids.length === 0)
      throw new BusinessRuleError('NO_DEPOSIT_FOUND', 'This transaction made no deposit of an enabled asset to this wallet');
    return Promise.all(ids.map((id) => this.transactions.get(auth, walletId, id)));
  }
}
