import { Type } from '@sinclair/typebox';
import { Timestamp, Uuid } from '../../lib/schema.js';
import { AssetSchema } from '../catalogue/schemas.js';

export const WalletAssetSchema = Type.Object(
  {
    id: Uuid(),
    asset: Type.Ref(AssetSchema),
    isActive: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'WalletAsset' },
);

export const WalletAssetParams = Type.Object({
  walletId: Uuid('master wallet id'),
  assetId: Uuid("the wallet asset's id or the catalogue asset's id"),
});

export const UpdateWalletAssetBody = Type.Object({ isActive: Type.Boolean() }, { additionalProperties: false });

/** `POST /v1/wallets/{walletId}/assets`, as the described service has it. */
export const AddWalletAssetBody = Type.Object(
  { assetId: Uuid("a catalogue asset's id (GET /v1/assets), or the wallet asset's id") },
  { additionalProperties: false, examples: [{ assetId: '0190a8f0-5d2c-7b3e-9a41-2f6c8e1d4b70' }] },
);
