/**
 * What `GET` and `PATCH /v1/wallets/{walletId}` answer beside the Wallet, as the described
 * service does: `assets` (the wallet asset list, as `GET .../assets`) and `analytics` (the
 * address counts of the address list, and the wallet's transactions counted by type and
 * status, every known type and status present, zero when none). The list of wallets stays
 * the plain Wallet. The schema lives here; the values come from modules/walletdetails.
 */
import { Type } from '@sinclair/typebox';
import { walletProps } from './schemas.js';
import { TRANSACTION_TYPES } from '../../transaction-types.js';

// The counts and the asset shape are other modules' (addresses, assets): named here by
// their fields and by the shared schema's $id, so this module imports neither (no cycle).
// The values are put together by modules/walletdetails.
const Count = Type.Integer({ minimum: 0 });
const AddressCounts = {
  activeAddressesCount: Count,
  addressLimit: Type.Integer(),
  addressesCount: Count,
  externalAddressesCount: Count,
  inactiveAddressesCount: Count,
  internalAddressesCount: Count,
};

/** The statuses analytics counts even at zero (the described service's); PENDING_APPROVAL appears when it occurs. */
export const ANALYTICS_STATUSES = ['PENDING', 'SUCCESS', 'FAILED', 'CANCELLED'];

const Counts = (keys: readonly string[], description: string) =>
  Type.Object(Object.fromEntries(keys.map((k) => [k, Type.Integer({ minimum: 0 })])), {
    additionalProperties: Type.Integer(),
    description,
  });

const Usd = (description: string) =>
  Type.Union([Type.String(), Type.Null()], {
    description: `${description}, in USD; null when a rate source does not price every asset held`,
  });

export const WalletAnalyticsSchema = Type.Object({
  ...AddressCounts,
  currentBalance: Usd("the master address's balances of the enabled assets, read on chain"),
  numberOfAssets: Type.Integer({ minimum: 0, description: 'the enabled assets' }),
  unsweptBalance: Usd('confirmed deposits still at child addresses (not swept to the master)'),
  transactions: Type.Object({
    total: Type.Integer({ minimum: 0 }),
    byType: Counts(TRANSACTION_TYPES, 'transactions per type'),
    byStatus: Counts(ANALYTICS_STATUSES, 'transactions per status'),
    byTypeAndStatus: Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer()), {
      description: 'type -> status -> count, only the pairs that occur',
    }),
  }),
});

/** The Wallet of GET and PATCH: the Wallet's fields, its assets and its analytics. */
export const WalletDetailSchema = Type.Object({
  ...walletProps,
  assets: Type.Optional(
    Type.Array(Type.Unsafe<Record<string, unknown>>({ $ref: 'WalletAsset' }), { description: 'the wallet assets, as GET .../assets' }),
  ),
  analytics: Type.Optional(WalletAnalyticsSchema),
});
