/**
 * What `GET` and `PATCH /v1/wallets/{walletId}` answer beside the Wallet, as the described
 * service does: `assets` (the wallet asset list, as `GET .../assets`) and `analytics` (the
 * address counts of the address list, and the wallet's transactions counted by type and
 * status, every known type and status present, zero when none). The list of wallets stays
 * the plain Wallet.
 */
import { Type } from '@sinclair/typebox';
import type { AuthContext } from '../apikeys/service.js';
import type { AddressService } from '../addresses/service.js';
import { AnalyticsSchema } from '../addresses/schemas.js';
import type { WalletAssetService } from '../assets/service.js';
import { WalletAssetSchema } from '../assets/schemas.js';
import type { TransactionService } from '../transactions/service.js';
import { walletProps } from './schemas.js';

export const TRANSACTION_TYPES = ['DEPOSIT', 'WITHDRAW', 'SALVAGE', 'SIGNED', 'CUSTOM_SMART_CONTRACT', 'SWAP', 'AUTO_SETTLEMENT'];
export const TRANSACTION_STATUSES = ['PENDING', 'SUCCESS', 'FAILED', 'CANCELLED'];

const Counts = (keys: string[], description: string) =>
  Type.Object(Object.fromEntries(keys.map((k) => [k, Type.Integer({ minimum: 0 })])), {
    additionalProperties: Type.Integer(),
    description,
  });

export const WalletAnalyticsSchema = Type.Object({
  ...AnalyticsSchema.properties,
  transactions: Type.Object({
    total: Type.Integer({ minimum: 0 }),
    byType: Counts(TRANSACTION_TYPES, 'transactions per type'),
    byStatus: Counts(TRANSACTION_STATUSES, 'transactions per status'),
    byTypeAndStatus: Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer()), {
      description: 'type -> status -> count, only the pairs that occur',
    }),
  }),
});

/** The Wallet of GET and PATCH: the Wallet's fields, its assets and its analytics. */
export const WalletDetailSchema = Type.Object({
  ...walletProps,
  assets: Type.Optional(Type.Array(Type.Ref(WalletAssetSchema), { description: 'the wallet assets, as GET .../assets' })),
  analytics: Type.Optional(WalletAnalyticsSchema),
});

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
