/**
 * The values of a wallet's `assets` and `analytics` (wallets/details.ts has the schema):
 * put together here, above the modules they come from (wallets, addresses, assets,
 * transactions), so none of those depends on another through it.
 */
import type { AuthContext } from '../apikeys/service.js';
import type { AddressService } from '../addresses/service.js';
import type { WalletAssetService } from '../assets/service.js';
import type { TransactionService } from '../transactions/service.js';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../wallets/service.js';

export function walletDetails(deps: { walletAssets: WalletAssetService; addresses: AddressService; transactions: TransactionService }) {
  return async (auth: AuthContext, walletId: string) => {
    const [assets, addressCounts, rows] = await Promise.all([
      deps.walletAssets.list(auth, walletId),
      deps.addresses.analytics(auth, walletId),
      deps.transactions.countsOf(walletId),
    ]);
    const byType: Record<string, number> = Object.fromEntries(TRANSACTION_TYPES.map((t) => [t, 0]));
    const byStatus: Record<string, number> = Object.fromEntries(TRANSACTION_STATUSES.map((s) => [s, 0]));
    const byTypeAndStatus: Record<string, Record<string, number>> = {};
    let total = 0;
    for (const r of rows) {
      total += r.n;
      byType[r.type] = (byType[r.type] ?? 0) + r.n;
      byStatus[r.status] = (byStatus[r.status] ?? 0) + r.n;
      (byTypeAndStatus[r.type] ??= {})[r.status] = r.n;
    }
    return { assets, analytics: { ...addressCounts, transactions: { total, byType, byStatus, byTypeAndStatus } } };
  };
}
