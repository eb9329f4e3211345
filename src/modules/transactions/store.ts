import { sql, type Insertable } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import type { TransactionsTable } from '../../db/types.js';

export type NewTransaction = Insertable<TransactionsTable>;

export async function insertTransaction(db: DbConn, row: NewTransaction): Promise<void> {
  await db.insertInto('transactions').values(row).execute();
}

export function findTransaction(db: DbConn, walletId: string, id: string) {
  return db.selectFrom('transactions').selectAll().where('wallet_id', '=', walletId).where('id', '=', id).executeTakeFirst();
}

export function findTransactionById(db: DbConn, id: string) {
  return db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * A transaction as the code reads it. sweep_id (sweeps) and reserved_fee (withdrawals,
 * contracts) are read only by their owners' stores, in their own queries, so the row type
 * leaves them out and builders of rows (deposits' depositRow) need not carry them.
 */
export type TransactionRow = Omit<NonNullable<Awaited<ReturnType<typeof findTransaction>>>, 'sweep_id' | 'reserved_fee'>;

export function findTransactionsByIds(db: DbConn, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([] as TransactionRow[]);
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', sql<string>`any(${ids}::uuid[])`)
    .execute();
}

export interface TransactionFilter {
  walletId: string;
  addressId?: string;
  id?: string;
  hash?: string;
  status?: string;
  type?: string;
  reference?: string;
  assetIds?: string[];
  startDate?: Date;
  endDate?: Date;
}

function filtered(db: DbConn, f: TransactionFilter) {
  let q = db.selectFrom('transactions').where('wallet_id', '=', f.walletId);
  if (f.addressId) q = q.where('address_id', '=', f.addressId);
  if (f.id) q = q.where('id', '=', f.id);
  if (f.hash) q = q.where(sql<string>`lower(hash)`, '=', f.hash.toLowerCase());
  if (f.status) q = q.where('status', '=', f.status);
  if (f.type) q = q.where('type', '=', f.type);
  if (f.reference) q = q.where('reference', '=', f.reference);
  if (f.assetIds) q = q.where('asset_id', 'in', f.assetIds.length ? f.assetIds : ['00000000-0000-0000-0000-000000000000']);
  if (f.startDate) q = q.where('created_at', '>=', f.startDate);
  if (f.endDate) q = q.where('created_at', '<=', f.endDate);
  return q;
}

export function listTransactions(db: DbConn, f: TransactionFilter, order: 'ASC' | 'DESC', offset: number, limit: number) {
  const dir = order === 'ASC' ? 'asc' : 'desc';
  return filtered(db, f).selectAll().orderBy('created_at', dir).orderBy('id', dir).offset(offset).limit(limit).execute();
}

export async function countTransactions(db: DbConn, f: TransactionFilter): Promise<number> {
  const row = await filtered(db, f)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The wallet's transactions counted by type and status (wallet analytics; index of migration 019). */
export async function countByTypeAndStatus(db: DbConn, walletId: string): Promise<{ type: string; status: string; n: number }[]> {
  const { rows } = await sql<{ type: string; status: string; n: string }>`
    SELECT type, status, count(*) AS n FROM transactions WHERE wallet_id = ${walletId} GROUP BY type, status`.execute(db);
  return rows.map((r) => ({ type: r.type, status: r.status, n: Number(r.n) }));
}
