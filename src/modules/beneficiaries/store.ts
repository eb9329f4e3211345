import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import { sameAddress } from '../../db/address-sql.js';

export interface BeneficiaryRow {
  id: string;
  wallet_id: string;
  name: string;
  address: string;
  is_active: boolean;
  is_default: boolean;
  is_settlement: boolean;
  is_whitelisted: boolean;
  settlement_frequency: string | null;
  settlement_since: Date | null;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = sql`id, wallet_id, name, address, is_active, is_default, is_settlement, is_whitelisted, settlement_frequency,
                    settlement_since, deleted_at, created_at, updated_at`;

export interface NewBeneficiary {
  id: string;
  walletId: string;
  name: string;
  address: string;
  isDefault: boolean;
  isSettlement: boolean;
  isWhitelisted: boolean;
  frequency: string | null;
  settlementSince: Date | null;
}

export async function insert(db: DbConn, b: NewBeneficiary): Promise<BeneficiaryRow> {
  const { rows } = await sql<BeneficiaryRow>`
    INSERT INTO beneficiaries (id, wallet_id, name, address, is_default, is_settlement, is_whitelisted, settlement_frequency, settlement_since)
    VALUES (${b.id}, ${b.walletId}, ${b.name}, ${b.address}, ${b.isDefault}, ${b.isSettlement}, ${b.isWhitelisted}, ${b.frequency},
            ${b.settlementSince})
    RETURNING ${COLUMNS}`.execute(db);
  return rows[0]!;
}

/** The wallet's beneficiary (deleted ones included), locked when `forUpdate`. */
export async function find(db: DbConn, walletId: string, id: string, forUpdate = false): Promise<BeneficiaryRow | undefined> {
  const { rows } = await sql<BeneficiaryRow>`
    SELECT ${COLUMNS} FROM beneficiaries WHERE wallet_id = ${walletId} AND id = ${id} ${forUpdate ? sql`FOR NO KEY UPDATE` : sql``}`.execute(
    db,
  );
  return rows[0];
}

export interface Patch {
  name?: string;
  isActive?: boolean;
  isDefault?: boolean;
  isSettlement?: boolean;
  isWhitelisted?: boolean;
  frequency?: string;
  /** Set when the settlement schedule (re)starts. */
  settlementSince?: Date;
}

export async function update(db: DbConn, id: string, p: Patch): Promise<BeneficiaryRow> {
  const sets = [
    p.name !== undefined ? sql`name = ${p.name}` : null,
    p.isActive !== undefined ? sql`is_active = ${p.isActive}` : null,
    p.isDefault !== undefined ? sql`is_default = ${p.isDefault}` : null,
    p.isSettlement !== undefined ? sql`is_settlement = ${p.isSettlement}` : null,
    p.isWhitelisted !== undefined ? sql`is_whitelisted = ${p.isWhitelisted}` : null,
    p.frequency !== undefined ? sql`settlement_frequency = ${p.frequency}` : null,
    p.settlementSince !== undefined ? sql`settlement_since = ${p.settlementSince}` : null,
    sql`updated_at = now()`,
  ].filter((s) => s !== null);
  const { rows } = await sql<BeneficiaryRow>`
    UPDATE beneficiaries SET ${sql.join(sets, sql`, `)} WHERE id = ${id} RETURNING ${COLUMNS}`.execute(db);
  return rows[0]!;
}

/** Soft delete: the row stays (history, audit) and stops counting everywhere. It also stops being the default. */
export async function softDelete(db: DbConn, id: string): Promise<BeneficiaryRow> {
  const { rows } = await sql<BeneficiaryRow>`
    UPDATE beneficiaries SET deleted_at = now(), is_default = false, updated_at = now() WHERE id = ${id} RETURNING ${COLUMNS}`.execute(db);
  return rows[0]!;
}

/** Clears the wallet's current default (before another becomes it). */
export async function clearDefault(db: DbConn, walletId: string, except: string): Promise<void> {
  await sql`UPDATE beneficiaries SET is_default = false, updated_at = now()
             WHERE wallet_id = ${walletId} AND is_default AND deleted_at IS NULL AND id <> ${except}`.execute(db);
}

/** Serialises writes to one wallet's beneficiaries (duplicates and the default are per wallet). */
export async function lockWallet(db: DbConn, walletId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`beneficiaries:${walletId}`}, 0))`.execute(db);
}

export async function liveByAddress(db: DbConn, walletId: string, address: string): Promise<BeneficiaryRow | undefined> {
  const { rows } = await sql<BeneficiaryRow>`
    SELECT ${COLUMNS} FROM beneficiaries WHERE wallet_id = ${walletId} AND ${sameAddress('address', address)} AND deleted_at IS NULL`.execute(
    db,
  );
  return rows[0];
}

export interface ListFilter {
  walletId: string;
  isActive?: boolean;
  isWhitelisted?: boolean;
  isSettlement?: boolean;
  includeDeleted: boolean;
}

function where(f: ListFilter) {
  return sql.join(
    [
      sql`wallet_id = ${f.walletId}`,
      f.includeDeleted ? null : sql`deleted_at IS NULL`,
      f.isActive === undefined ? null : sql`is_active = ${f.isActive}`,
      f.isWhitelisted === undefined ? null : sql`is_whitelisted = ${f.isWhitelisted}`,
      f.isSettlement === undefined ? null : sql`is_settlement = ${f.isSettlement}`,
    ].filter((s) => s !== null),
    sql` AND `,
  );
}

export async function list(db: DbConn, f: ListFilter, offset: number, limit: number): Promise<{ rows: BeneficiaryRow[]; total: number }> {
  const [page, count] = await Promise.all([
    sql<BeneficiaryRow>`SELECT ${COLUMNS} FROM beneficiaries WHERE ${where(f)} ORDER BY created_at DESC, id DESC OFFSET ${offset} LIMIT ${limit}`.execute(
      db,
    ),
    sql<{ n: string }>`SELECT count(*) AS n FROM beneficiaries WHERE ${where(f)}`.execute(db),
  ]);
  return { rows: page.rows, total: Number(count.rows[0]!.n) };
}

/**
 * The wallet's settlement beneficiary: among the active, live ones marked for settlement,
 * the default, else the oldest. One per wallet, so funds never go two ways.
 */
export async function settlementBeneficiary(db: DbConn, walletId: string): Promise<BeneficiaryRow | undefined> {
  const { rows } = await sql<BeneficiaryRow>`
    SELECT ${COLUMNS} FROM beneficiaries
     WHERE wallet_id = ${walletId} AND is_settlement AND is_active AND deleted_at IS NULL AND settlement_frequency IS NOT NULL
     ORDER BY is_default DESC, created_at, id LIMIT 1`.execute(db);
  return rows[0];
}

/** The settlement beneficiary of every wallet that has one (see settlementBeneficiary), for the scheduler. */
export async function settlementBeneficiaries(db: DbConn): Promise<BeneficiaryRow[]> {
  const { rows } = await sql<BeneficiaryRow>`
    SELECT DISTINCT ON (wallet_id) ${COLUMNS} FROM beneficiaries
     WHERE is_settlement AND is_active AND deleted_at IS NULL AND settlement_frequency IS NOT NULL
     ORDER BY wallet_id, is_default DESC, created_at, id`.execute(db);
  return rows;
}
