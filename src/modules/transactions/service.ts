/**
 * Transactions: the owner of the table (the writes, lifecycle.ts's moves, are inherited from
 * writes.ts), presentation of the spec's Transaction (the asset, blockchain, wallet and
 * address it embeds are resolved here; schemas.ts's transactionView writes the fields) and
 * lookups. Amounts are stored in base units and shown in the asset's units; fee figures as
 * the family maps them (ChainAdapter.fees): `gasUsed` in its units, `gasPrice` in the native
 * coin's base units per unit, `gasFee` and `fee` in the native coin.
 */
import type { Static } from '@sinclair/typebox';
import type { Db, DbConn } from '../../db/pool.js';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import { pageMeta, type PageMeta } from '../../lib/schema.js';
import type { AuthContext } from '../apikeys/service.js';
import type { AddressRow, AddressService } from '../addresses/service.js';
import type { CatalogueService, ChainHandle } from '../catalogue/service.js';
import type { WalletService } from '../wallets/service.js';
import { transactionView, type TransactionListQuery, type TransactionView } from './schemas.js';
import * as store from './store.js';
import { TransactionWrites } from './writes.js';
import { dailyReport, type DailyReport, type SearchFilter } from './reports.js';
import { searchTransactions } from './report-store.js';

export type { TransactionView } from './schemas.js';
export type TransactionRow = store.TransactionRow;
export { TransactionWrites, referenceInUse, type NewTransaction, type TransactionFields } from './writes.js';
export type { DailyReport, SearchFilter } from './reports.js';
export type * from './types.js';
export { sendEnd, stateIn, type FailedStage, type SendEnd, type TransactionState, type TransactionStatus } from './lifecycle.js';
export { signedFees } from './store.js';

/**
 * Reads and presentation here; the writes (the transition API, every move a row makes, in
 * the caller's database transaction) are inherited from TransactionWrites (writes.ts).
 */
export class TransactionService extends TransactionWrites {
  constructor(
    private readonly db: Db,
    private readonly catalogue: CatalogueService,
    private readonly wallets: WalletService,
    private readonly addresses: AddressService,
  ) {
    super();
  }

  /** The caller's transaction; a foreign one looks exactly like a missing one. */
  async require(auth: AuthContext, walletId: string, id: string): Promise<TransactionRow> {
    await this.wallets.require(auth, walletId);
    const row = await store.findTransaction(this.db, walletId, id);
    if (!row) throw new NotFoundError('Transaction');
    return row;
  }

  /** The wallet's transactions counted by type and status (wallet analytics); the caller has checked access. */
  countsOf(walletId: string): Promise<{ type: string; status: string; n: number }[]> {
    return store.countByTypeAndStatus(this.db, walletId);
  }

  /** Confirmed deposits still at child addresses (not swept), per asset, in base units (wallet analytics). */
  async unsweptOf(walletId: string): Promise<{ assetId: string; amount: bigint }[]> {
    return (await store.unsweptByAsset(this.db, walletId)).map((r) => ({ assetId: r.asset_id, amount: BigInt(r.amount) }));
  }

  async get(auth: AuthContext, walletId: string, id: string): Promise<TransactionView> {
    return this.present(await this.require(auth, walletId, id));
  }

  async list(
    auth: AuthContext,
    walletId: string,
    q: Static<typeof TransactionListQuery>,
    addressId?: string,
  ): Promise<{ items: TransactionView[]; meta: PageMeta }> {
    const wallet = await this.wallets.require(auth, walletId);
    if (addressId) await this.addresses.require(auth, walletId, addressId);
    const page = q.page ?? 1;
    const limit = q.limit ?? 100;
    // As instants, not as text: "12:00+05:00" is before "11:00Z", and "10:00Z" after "14:00+05:00".
    if (q.startDate && q.endDate && Date.parse(q.startDate) > Date.parse(q.endDate)) {
      throw new ValidationError('startDate must not be after endDate', [{ field: 'startDate', message: 'after endDate' }]);
    }
    const chain = this.wallets.chainOf(wallet);
    const symbols = q.assets?.split(',').map((s) => s.toUpperCase());
    const filter: store.TransactionFilter = {
      walletId,
      ...(addressId ? { addressId } : {}),
      ...(q.id ? { id: q.id } : {}),
      ...(q.hash ? { hash: q.hash } : {}),
      ...(q.status ? { status: q.status } : {}),
      ...(q.type ? { type: q.type } : {}),
      ...(q.reference ? { reference: q.reference } : {}),
      ...(symbols ? { assetIds: chain.assets.filter((a) => symbols.includes(a.symbol.toUpperCase())).map((a) => a.id) } : {}),
      ...(q.startDate ? { startDate: new Date(q.startDate) } : {}),
      // Inclusive at the precision createdAt is shown with: PostgreSQL keeps microseconds, so
      // a row shown at 10:00:00.123Z was stored at 10:00:00.123456 and `<= endDate` left it
      // out of a range ending at its own createdAt. Everything before the next millisecond.
      ...(q.endDate ? { endBefore: new Date(Date.parse(q.endDate) + 1) } : {}),
    };
    const [rows, total] = await Promise.all([
      store.listTransactions(this.db, filter, q.order ?? 'DESC', (page - 1) * limit, limit),
      store.countTransactions(this.db, filter),
    ]);
    const items = await Promise.all(rows.map((r) => this.present(r)));
    return { items, meta: pageMeta(page, limit, items.length, total) };
  }

  /** Every wallet of the caller's business (the dashboard's search): newest first. */
  async search(auth: AuthContext, f: SearchFilter, page: number, limit: number): Promise<{ items: TransactionView[]; meta: PageMeta }> {
    if (f.walletId) await this.wallets.require(auth, f.walletId);
    const walletId = auth.walletId ?? f.walletId;
    const { rows, total } = await searchTransactions(
      this.db,
      { ...f, businessId: auth.businessId, ...(walletId ? { walletId } : {}) },
      (page - 1) * limit,
      limit,
    );
    const items = await this.presentMany(rows);
    return { items, meta: pageMeta(page, limit, items.length, total) };
  }

  /** Money in and out per day and asset, and fees per day, over the last `days` days (UTC). */
  report(auth: AuthContext, days: number, now: Date): Promise<DailyReport> {
    return dailyReport(this.db, this.catalogue, auth.businessId, days, now);
  }

  /** The row itself, read inside `db` (a module following its own transaction); undefined when none. */
  findRow(db: DbConn, id: string): Promise<TransactionRow | undefined> {
    return store.findTransactionById(db, id);
  }

  /** The full Transaction as of now, read inside `db` (so an event sees its own change). */
  async load(id: string, db: DbConn = this.db): Promise<TransactionView> {
    const row = await store.findTransactionById(db, id);
    if (!row) throw new NotFoundError('Transaction');
    return this.present(row, db);
  }

  /** Many Transactions in the order of `ids`, with a constant number of queries. */
  async loadMany(ids: string[], db: DbConn = this.db): Promise<TransactionView[]> {
    const rows = await store.findTransactionsByIds(db, ids);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return this.presentMany(
      ids.flatMap((id) => byId.get(id) ?? []),
      db,
    );
  }

  /**
   * Many rows the caller already holds (e.g. RETURNING of the statement that wrote them), in
   * their order, with a constant number of queries: no re-read and re-parse of the rows.
   */
  async presentMany(rows: TransactionRow[], db: DbConn = this.db): Promise<TransactionView[]> {
    return rows.map(await this.presenterFor(rows, db));
  }

  /**
   * Reads, in two queries on `db`, the wallets and addresses of rows to be presented (the
   * rows themselves may not exist yet), and returns a function that presents such rows
   * without a query. A row of another wallet or address is refused.
   */
  async presenterFor(
    refs: Pick<TransactionRow, 'wallet_id' | 'address_id'>[],
    db: DbConn = this.db,
  ): Promise<(row: TransactionRow) => TransactionView> {
    const [wallets, addresses] = await Promise.all([
      this.wallets.rowsByIds([...new Set(refs.map((r) => r.wallet_id))], db),
      this.addresses.rowsByIds([...new Set(refs.flatMap((r) => (r.address_id ? [r.address_id] : [])))], db),
    ]);
    // One wallet view per wallet, shared by its rows: the same object, presented once (a
    // backfill range is thousands of rows of a few wallets).
    const walletViewById = new Map(wallets.map((w) => [w.id, this.wallets.present(w)]));
    const addressById = new Map(addresses.map((a) => [a.id, a]));
    return (row) => {
      const wallet = walletViewById.get(row.wallet_id);
      const address = row.address_id ? addressById.get(row.address_id) : undefined;
      if (!wallet || (row.address_id && !address)) throw new Error(`transaction ${row.id}: its wallet or address was not read`);
      return this.presentWith(row, wallet, address);
    };
  }

  async present(row: TransactionRow, db: DbConn = this.db): Promise<TransactionView> {
    const wallet = await this.wallets.requireRow(row.wallet_id, db);
    const address = row.address_id ? await this.addresses.findRow(row.address_id, db) : undefined;
    return this.presentWith(row, this.wallets.present(wallet), address);
  }

  private presentWith(row: TransactionRow, walletView: TransactionView['wallet'], address: AddressRow | undefined): TransactionView {
    const chain = this.catalogue.chain(row.chain_id);
    const asset = row.asset_id ? this.catalogue.asset(row.asset_id) : undefined;
    const nativeDecimals = chain.config.blockchain.nativeDecimals;
    // A token the catalogue does not list (salvaged) carries its own decimals, read on chain.
    const assetDecimals = row.amount_decimals ?? asset?.row.decimals ?? nativeDecimals;
    const toAsset = toAssetOf(chain, row.to_currency);
    const blockchain = this.catalogue.blockchainView(chain);
    return transactionView(row, {
      nativeDecimals,
      assetDecimals,
      // to_amount is in base units of the asset named by to_currency (a swap's output).
      toDecimals: toAsset?.decimals ?? assetDecimals,
      chainId: chain.config.chainId,
      asset: asset ? asset.view : null,
      toAsset: toAsset ? (this.catalogue.asset(toAsset.id)?.view ?? null) : null,
      blockchain,
      toBlockchain: toAsset ? blockchain : null,
      address: address ? this.addresses.present(address) : null,
      wallet: walletView,
    });
  }
}

/** The chain's asset with this symbol: the currency a swap paid out in (swaps stay on one chain). */
function toAssetOf(chain: ChainHandle, symbol: string | null): ChainHandle['assets'][number] | undefined {
  if (symbol === null) return undefined;
  return chain.assets.find((a) => a.symbol.toUpperCase() === symbol.toUpperCase());
}
