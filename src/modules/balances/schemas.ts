import { Type } from '@sinclair/typebox';
import { Nullable, Uuid } from '../../lib/schema.js';
import { WalletAssetSchema } from '../assets/schemas.js';

export const BalanceSchema = Type.Object(
  {
    asset: Type.Ref(WalletAssetSchema),
    balance: Type.String({ description: 'decimal string in the asset unit' }),
    convertedBalance: Nullable(
      Type.String({
        description:
          "value in USD at the asset's rate (its price feed; the peg only where RATES_PEG_FALLBACK allows), rounded down to the asset's decimals; null where no usable rate exists",
      }),
    ),
  },
  { $id: 'Balance' },
);

/** Filters accepted both as JSON body (spec) and as query string. */
export const BalanceFilter = Type.Object(
  {
    address: Type.Optional(
      Type.String({ minLength: 1, maxLength: 128, description: "one of the wallet's addresses (default: the master address)" }),
    ),
    asset_id: Type.Optional(Uuid('wallet asset id or catalogue asset id (default: every enabled asset)')),
  },
  { additionalProperties: false },
);

export const AssetIdQuery = Type.Object({ assetId: Uuid('wallet asset id or catalogue asset id') }, { additionalProperties: false });
