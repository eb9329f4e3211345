/**
 * A business's transactions across its wallets: the dashboard's search (hash, address,
 * reference, amount range, status, type) and its daily figures (money in and out per asset,
 * network fees per native coin), in exact decimal arithmetic (bigint, never a float).
 */
import type { DbConn } from '../../db/pool.js';
import { formatAmount } from '../../lib/money.js';
import type { CatalogueService } from '../catalogue/service.js';
import * as store from './report-store.js';

export type SearchFilter = Omit<store.SearchFilter, 'businessId'>;

export interface DailyReport {
  /** The days covered, oldest first (YYYY-MM-DD, UTC). */
  days: string[];
  /** Per asset symbol (the same symbol on several chains counted together): money in and out per day. */
  volumes: { symbol: string; inflow: string[]; outflow: string[] }[];
  /** Per native coin: network fees paid per day. */
  fees: { symbol: string; values: string[] }[];
}

/** Enough fraction digits for any asset (77 at most): sums across chains stay exact. */
const SCALE = 80;

export async function dailyReport(
  db: DbConn,
  catalogue: CatalogueService,
  businessId: string,
  days: number,
  now: Date,
): Promise<DailyReport> {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)));
  const labels = Array.from({ length: days }, (_, i) => new Date(start.getTime() + i * 86_400_000).toISOString().slice(0, 10));
  const index = new Map(labels.map((d, i) => [d, i]));
  const [volumes, fees] = await Promise.all([store.dailyVolumes(db, businessId, start), store.dailyFees(db, businessId, start)]);
  const scaled = (units: string | null, decimals: number) => (units === null ? 0n : BigInt(units) * 10n ** BigInt(SCALE - decimals));
  const series = new Map<string, { inflow: bigint[]; outflow: bigint[] }>();
  for (const v of volumes) {
    const asset = catalogue.asset(v.asset_id);
    const i = index.get(v.day);
    if (!asset || i === undefined) continue;
    const s = series.get(asset.row.symbol) ?? { inflow: labels.map(() => 0n), outflow: labels.map(() => 0n) };
    s.inflow[i]! += scaled(v.inflow, asset.row.decimals);
    s.outflow[i]! += scaled(v.outflow, asset.row.decimals);
    series.set(asset.row.symbol, s);
  }
  const feeSeries = new Map<string, bigint[]>();
  for (const f of fees) {
    const chain = catalogue.chain(f.chain_id);
    const i = index.get(f.day);
    if (i === undefined) continue;
    const symbol = chain.config.blockchain.symbol;
    const values = feeSeries.get(symbol) ?? labels.map(() => 0n);
    values[i]! += scaled(f.fees, chain.config.blockchain.nativeDecimals);
    feeSeries.set(symbol, values);
  }
  const text = (v: bigint) => formatAmount(v, SCALE);
  return {
    days: labels,
    volumes: [...series]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([symbol, s]) => ({ symbol, inflow: s.inflow.map(text), outflow: s.outflow.map(text) })),
    fees: [...feeSeries].sort(([a], [b]) => a.localeCompare(b)).map(([symbol, values]) => ({ symbol, values: values.map(text) })),
  };
}
