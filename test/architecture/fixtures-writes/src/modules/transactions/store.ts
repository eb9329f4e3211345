// The owner: its writes are allowed.
export const insert = 'INSERT INTO transactions (id) VALUES ($1)';
export const kysely = "db.updateTable('transactions')";
