/** SQL of key custody: the master_keys table and the sealed columns of keys/sealed-columns.ts. */
import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import { SEALED_COLUMNS, type SealedColumn } from '../../keys/sealed-columns.js';

export type MasterKeyRow = Awaited<ReturnType<typeof listMasterKeys>>[number];

export function listMasterKeys(db: DbConn) {
  return db.selectFrom('master_keys').selectAll().orderBy('created_at').execute();
}

export async function activeKeyId(db: DbConn): Promise<string | undefined> {
  const row = await db.selectFrom('master_keys').select('id').where('state', '=', 'active').executeTakeFirst();
  return row?.id;
}

/**
 * The active key, read by a writer about to seal a value in `tx`, and held (FOR SHARE) to its
 * COMMIT: a rotation's activation (an UPDATE of this row) waits for every transaction that
 * sealed under the old key, so none commits such a value after the rotation has re-sealed
 * and counted what is there (it would stay under a key the rotation then retires). A writer
 * that came to the row while an activation held it finds it no longer active once that
 * commits: it reads again, now seeing the new key.
 */
export async function activeKeyIdForSealing(tx: DbConn): Promise<string | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const { rows } = await sql<{ id: string }>`SELECT id FROM master_keys WHERE state = 'active' FOR SHARE`.execute(tx);
    if (rows[0]) return rows[0].id;
  }
  return undefined;
}

/** Serialises the writers of master_keys (first starts, rotations) without blocking readers. */
export async function lockMasterKeys(tx: DbConn): Promise<void> {
  await sql`LOCK TABLE master_keys IN SHARE ROW EXCLUSIVE MODE`.execute(tx);
}

/** Makes `id` the active key; the previous active key, if any, becomes retiring. */
export async function activate(tx: DbConn, id: string, kind: 'local' | 'pkcs11'): Promise<void> {
  await tx.updateTable('master_keys').set({ state: 'retiring' }).where('state', '=', 'active').where('id', '<>', id).execute();
  await tx
    .insertInto('master_keys')
    .values({ id, kind, state: 'active', activated_at: sql<Date>`now()` })
    .onConflict((oc) => oc.column('id').doUpdateSet({ state: 'active', activated_at: sql<Date>`now()`, retired_at: null }))
    .execute();
}

/** Every retiring key but `keep` becomes retired (nothing is sealed under them any more). */
export async function retireAllBut(tx: DbConn, keep: string): Promise<string[]> {
  const rows = await tx
    .updateTable('master_keys')
    .set({ state: 'retired', retired_at: sql<Date>`now()` })
    .where('state', '=', 'retiring')
    .where('id', '<>', keep)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Whether any sealed column holds a value (a database that a new key would orphan). */
export async function holdsSealedValues(db: DbConn): Promise<boolean> {
  for (const c of SEALED_COLUMNS) {
    const { rows } = await sql<{
      one: number;
    }>`SELECT 1 AS one FROM ${sql.table(c.table)} WHERE ${sql.ref(c.column)} IS NOT NULL LIMIT 1`.execute(db);
    if (rows.length) return true;
  }
  return false;
}

export interface SealedValue {
  id: string;
  sealed: Buffer;
}

/** The newest `limit` values of a column (uuid v7 ids sort by time). */
export async function newestSealed(db: DbConn, c: SealedColumn, limit: number): Promise<SealedValue[]> {
  const { rows } = await sql<SealedValue>`
    SELECT ${sql.ref(c.idColumn)}::text AS id, ${sql.ref(c.column)} AS sealed FROM ${sql.table(c.table)}
    WHERE ${sql.ref(c.column)} IS NOT NULL ORDER BY ${sql.ref(c.idColumn)} DESC LIMIT ${limit}`.execute(db);
  return rows;
}

/**
 * The next values after `after` that are not sealed under the key whose header is given,
 * locked for this transaction. Rows other transactions hold are skipped (SKIP LOCKED), not
 * waited for: the rotation comes back for them in its next pass.
 */
export async function nextNotUnder(
  tx: DbConn,
  c: SealedColumn,
  header: Buffer,
  after: string | null,
  limit: number,
): Promise<SealedValue[]> {
  const { rows } = await sql<SealedValue>`
    SELECT ${sql.ref(c.idColumn)}::text AS id, ${sql.ref(c.column)} AS sealed FROM ${sql.table(c.table)}
    WHERE ${sql.ref(c.column)} IS NOT NULL
      AND substring(${sql.ref(c.column)} FROM 1 FOR ${header.length}) <> ${header}
      ${after === null ? sql`` : sql`AND ${sql.ref(c.idColumn)} > ${after}::uuid`}
    ORDER BY ${sql.ref(c.idColumn)} LIMIT ${limit}
    FOR NO KEY UPDATE SKIP LOCKED`.execute(tx);
  return rows;
}

export async function countNotUnder(db: DbConn, c: SealedColumn, header: Buffer): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    SELECT count(*) AS n FROM ${sql.table(c.table)}
    WHERE ${sql.ref(c.column)} IS NOT NULL AND substring(${sql.ref(c.column)} FROM 1 FOR ${header.length}) <> ${header}`.execute(db);
  return Number(rows[0]!.n);
}

/** Values per sealing key: the 9-byte header's hex ('01…' marks values sealed before key ids). */
export async function countByHeader(db: DbConn, c: SealedColumn): Promise<{ header: string; n: number }[]> {
  const { rows } = await sql<{ header: string; n: string }>`
    SELECT CASE WHEN get_byte(${sql.ref(c.column)}, 0) = 2 THEN encode(substring(${sql.ref(c.column)} FROM 2 FOR 8), 'hex') ELSE 'legacy' END AS header,
           count(*) AS n
    FROM ${sql.table(c.table)} WHERE ${sql.ref(c.column)} IS NOT NULL GROUP BY 1 ORDER BY 1`.execute(db);
  return rows.map((r) => ({ header: r.header, n: Number(r.n) }));
}

export async function replaceSealed(tx: DbConn, c: SealedColumn, id: string, sealed: Buffer): Promise<void> {
  await sql`UPDATE ${sql.table(c.table)} SET ${sql.ref(c.column)} = ${sealed} WHERE ${sql.ref(c.idColumn)} = ${id}::uuid`.execute(tx);
}

/** Wallets whose account xpub is still in clear (rows written before 016_key_custody.sql). */
export function clearXpubs(tx: DbConn, limit: number) {
  return tx
    .selectFrom('wallets')
    .select(['id', 'account_xpub'])
    .where('account_xpub', 'is not', null)
    .orderBy('id')
    .limit(limit)
    .forNoKeyUpdate()
    .skipLocked()
    .execute();
}

export async function sealXpub(tx: DbConn, id: string, sealed: Buffer): Promise<void> {
  await tx.updateTable('wallets').set({ account_xpub_sealed: sealed, account_xpub: null }).where('id', '=', id).execute();
}
