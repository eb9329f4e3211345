/**
 * The values of a wallet's `assets` and `analytics` (wallets/details.ts has the schema):
 * put together here, above the modules they come from (wallets, addresses, assets,
 * transactions), so none of those depends on another through it.
 */
import { formatAmount, parseAmount } from '../../lib/money.js';
import type { AuthContext } from '../apikeys/service.js';
import type { AddressService } from '../addresses/service.js';
import type { WalletAssetService } from '../assets/service.js';
import type { BalanceService } from '../balances/service.js';
import type { CatalogueService } from '../catalogue/service.js';
import type { RateService } from '../rates/service.js';
import { usdValue } from '../rates/service.js';
import type { TransactionService } from '../transactions/service.js';
import { ANALYTICS_STATUSES } from '../wallets/service.js';
import { TRANSACTION_TYPES } from '../../transaction-types.js';

export interface WalletDetailsDeps {
  walletAssets: WalletAssetService;
  addresses: AddressService;
  transactions: TransactionService;
  balances: BalanceService;
  catalogue: CatalogueService;
  rates?: RateService;
}

/** USD amounts are summed exactly in units of 10^-USD_DECIMALS (an asset's value has at most its decimals). */
const USD_DECIMALS = 36;

/** Sum of USD values (decimal strings), or null when one of them is (an amount held that no rate prices). */
function usdSum(values: (string | null)[]): string | null {
  if (values.some((v) => v === null)) return null;
  const sum = values.reduce((s, v) => s + parseAmount(v!, USD_DECIMALS, 'usd'), 0n);
  return formatAmount(sum, USD_DECIMALS);
}

export function walletDetails(deps: WalletDetailsDeps) {
  return async (auth: AuthContext, walletId: string, opts: { created?: boolean } = {}) => {
    const [assets, addressCounts, rows, currentBalance, unsweptBalance] = await Promise.all([
      deps.walletAssets.list(auth, walletId),
      deps.addresses.analytics(auth, walletId),
      deps.transactions.countsOf(walletId),
      // A wallet made just now holds nothing (its keys are new, nothing was deposited): its
      // creation neither waits on the chain nor fills the rate cache. Otherwise a chain that
      // does not answer leaves the figure null, not the wallet unreadable.
      opts.created
        ? '0'
        : deps.balances
            .ofWallet(auth, walletId, {})
            .then((entries) => usdSum(entries.filter((e) => e.balance !== '0').map((e) => e.convertedBalance)))
            .catch(() => null),
      opts.created ? '0' : unswept(deps, walletId).catch(() => null),
    ]);
    const byType: Record<string, number> = Object.fromEntries(TRANSACTION_TYPES.map((t) => [t, 0]));
    const byStatus: Record<string, number> = Object.fromEntries(ANALYTICS_STATUSES.map((s) => [s, 0]));
    const byTypeAndStatus: Record<string, Record<string, number>> = {};
    let total = 0;
    for (const r of rows) {
      total += r.n;
      byType[r.type] = (byType[r.type] ?? 0) + r.n;
      byStatus[r.status] = (byStatus[r.status] ?? 0) + r.n;
      (byTypeAndStatus[r.type] ??= {})[r.status] = r.n;
    }
    const numberOfAssets = assets.filter((a) => a.isActive).length;
    return {
      assets,
      analytics: {
        ...addressCounts,
        currentBalance,
        numberOfAssets,
        unsweptBalance,
        transactions: { total, byType, byStatus, byTypeAndStatus },
      },
    };
  };
}

/** The USD value of confirmed deposits still at child addresses; null when an asset of them has no rate. */
async function unswept(deps: WalletDetailsDeps, walletId: string): Promise<string | null> {
  const held = (await deps.transactions.unsweptOf(walletId)).filter((u) => u.amount > 0n);
  const values = await Promise.all(
    held.map(async (u) => {
      const asset = deps.catalogue.asset(u.assetId);
      const quote = asset ? await deps.rates?.usd(asset) : null;
      return asset && quote ? usdValue(u.amount, asset.row.decimals, quote) : null;
    }),
  );
  return usdSum(values);
}
