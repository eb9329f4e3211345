import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../../lib/schema.js';

export const BlockchainSchema = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    slug: Type.String(),
    symbol: Type.String(),
    derivationPath: Type.String(),
    isActive: Type.Boolean(),
    isEvmCompatible: Type.Boolean(),
    isL2: Type.Boolean(),
    logoUrl: Type.String(),
    tokenStandard: Nullable(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Blockchain' },
);

export const AssetSchema = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    symbol: Type.String(),
    address: Type.String({ description: 'token contract; the all-zero address is the native coin' }),
    decimals: Type.Integer(),
    standard: Nullable(Type.String()),
    network: Type.String(),
    isActive: Type.Boolean(),
    isNative: Type.Boolean(),
    currency: Nullable(Type.String()),
    logoUrl: Type.String(),
    blockchain: Type.Ref(BlockchainSchema),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Asset' },
);
