/** SQL of the dashboard's reads across a business's wallets: the transaction search and the daily figures. */
import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import { hashMatches } from './store.js';
import type { TransactionRow } from './types.js';

export interface SearchFilter {
  businessId: string;
  walletId?: string;
  hash?: string;
  /** Sender or recipient, case-insensitive. */
  address?: string;
  reference?: string;
  status?: string;
  type?: string;
  /** Decimal strings in the asset's units, inclusive. */
  minAmount?: string;
  maxAmount?: string;
}

function searchWhere(f: SearchFilter) {
  // Amount bounds in the asset's units, compared in base units of each row's asset (numeric: exact).
  const units = (v: string) => sql`(${v}::numeric * power(10::numeric, coalesce(a.decimals, 0)))`;
  return sql.join(
    [
      sql`t.wallet_id IN (SELECT id FROM wallets WHERE business_id = ${f.businessId})`,
      ...(f.walletId ? [sql`t.wallet_id = ${f.walletId}`] : []),
      ...(f.hash ? [hashMatches('t.hash', f.hash)] : []),
      ...(f.address
        ? [sql`(address_key(t.sender_address) = address_key(${f.address}) OR address_key(t.recipient_address) = address_key(${f.address}))`]
        : []),
      ...(f.reference ? [sql`t.reference = ${f.reference}`] : []),
      ...(f.status ? [sql`t.status = ${f.status}`] : []),
      ...(f.type ? [sql`t.type = ${f.type}`] : []),
      ...(f.minAmount ? [sql`t.amount >= ${units(f.minAmount)}`] : []),
      ...(f.maxAmount ? [sql`t.amount <= ${units(f.maxAmount)}`] : []),
    ],
    sql` AND `,
  );
}

export async function searchTransactions(
  db: DbConn,
  f: SearchFilter,
  offset: number,
  limit: number,
): Promise<{ rows: TransactionRow[]; total: number }> {
  const [{ rows }, { rows: count }] = await Promise.all([
    sql<TransactionRow>`SELECT t.* FROM transactions t LEFT JOIN assets a ON a.id = t.asset_id
                         WHERE ${searchWhere(f)} ORDER BY t.created_at DESC, t.id DESC OFFSET ${offset} LIMIT ${limit}`.execute(db),
    sql<{
      n: string;
    }>`SELECT count(*)::text AS n FROM transactions t LEFT JOIN assets a ON a.id = t.asset_id WHERE ${searchWhere(f)}`.execute(db),
  ]);
  return { rows, total: Number(count[0]!.n) };
}

export interface DailyAssetVolume {
  day: string;
  asset_id: string;
  inflow: string | null;
  outflow: string | null;
}

/**
 * Successful money in (deposits) and out (withdrawals, auto-settlement transfers) per UTC day
 * and asset, base units, since `since`.
 */
export async function dailyVolumes(db: DbConn, businessId: string, since: Date): Promise<DailyAssetVolume[]> {
  const { rows } = await sql<DailyAssetVolume>`
    SELECT to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, t.asset_id,
           (sum(t.amount) FILTER (WHERE t.type = 'DEPOSIT'))::text AS inflow,
           (sum(t.amount) FILTER (WHERE t.type IN ('WITHDRAW', 'AUTO_SETTLEMENT')))::text AS outflow
      FROM transactions t
     WHERE t.wallet_id IN (SELECT id FROM wallets WHERE business_id = ${businessId}) AND t.created_at >= ${since}
       AND t.status = 'SUCCESS' AND t.asset_id IS NOT NULL AND t.type IN ('DEPOSIT', 'WITHDRAW', 'AUTO_SETTLEMENT')
     GROUP BY 1, 2`.execute(db);
  return rows;
}

/** Network fees paid per UTC day and chain (native base units), since `since`: what we sent and what sweeps cost. */
export async function dailyFees(db: DbConn, businessId: string, since: Date): Promise<{ day: string; chain_id: string; fees: string }[]> {
  const { rows } = await sql<{ day: string; chain_id: string; fees: string }>`
    SELECT to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, t.chain_id,
           (coalesce(sum(t.gas_fee), 0) + coalesce(sum(t.asset_swept_gas_fee), 0))::text AS fees
      FROM transactions t
     WHERE t.wallet_id IN (SELECT id FROM wallets WHERE business_id = ${businessId}) AND t.created_at >= ${since}
       AND (t.gas_fee IS NOT NULL OR t.asset_swept_gas_fee IS NOT NULL)
     GROUP BY 1, 2`.execute(db);
  return rows;
}
