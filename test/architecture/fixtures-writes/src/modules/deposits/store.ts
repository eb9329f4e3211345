// Each statement below writes the transactions table from outside its owner: all are found.
export const rawInsert = 'INSERT INTO transactions (id) VALUES ($1)';
export const rawUpdate = `
  UPDATE  transactions t SET status = 'FAILED' WHERE t.id = $1`;
export const rawDelete = 'delete from public.transactions WHERE id = $1';
export const quoted = 'UPDATE "transactions" SET stage = $1';
export const kyselyInsert = "db.insertInto('transactions').values(row)";
export const kyselyUpdate = 'db.updateTable("transactions").set(row)';
export const kyselyDelete = 'db.deleteFrom(`transactions`)';
// Reads and other tables are not writes of it.
export const read = 'SELECT id FROM transactions WHERE id = $1 FOR NO KEY UPDATE';
export const other = 'UPDATE transactions_archive SET x = 1; INSERT INTO sweep_transactions (id) VALUES ($1)';
