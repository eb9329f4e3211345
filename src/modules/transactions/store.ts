import type { Insertable } from 'kysely';
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

export type TransactionRow = NonNullable<Awaited<ReturnType<typeof findTransaction>>>;
