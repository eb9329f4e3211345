import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../../lib/schema.js';
import { BlockchainSchema } from '../catalogue/schemas.js';
import { ApiKeyScopeSchema } from '../apikeys/schemas.js';
import { WalletConfigurationsPatch, WalletConfigurationsSchema } from './configurations.js';

export const walletProps = {
  id: Uuid(),
  name: Type.String(),
  description: Type.String(),
  address: Type.String({ description: 'master address (derivation index 0)' }),
  derivationPath: Type.String(),
  network: Type.String(),
  isActive: Type.Boolean(),
  status: Type.String(),
  business: Type.Object({ id: Uuid(), name: Type.String(), createdAt: Timestamp, updatedAt: Timestamp }),
  configurations: Type.Ref(WalletConfigurationsSchema),
  blockchain: Type.Ref(BlockchainSchema),
  addressLimit: Type.Integer({ description: 'extension: maximum number of child addresses' }),
  webhookUrl: Nullable(Type.String({ description: 'extension: where events are delivered' })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const WalletSchema = Type.Object(walletProps, { $id: 'Wallet' });

export const WalletParams = Type.Object({ walletId: Uuid('master wallet id') });

export const CreateWalletBody = Type.Object(
  {
    blockchain: Type.String({ minLength: 1, maxLength: 64, description: 'blockchain slug, e.g. ethereum' }),
    network: Type.Union([Type.Literal('mainnet'), Type.Literal('testnet')]),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

export const UpdateWalletBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    isActive: Type.Optional(Type.Boolean()),
    configurations: Type.Optional(WalletConfigurationsPatch),
    webhookUrl: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 2048,
          description: 'where events are delivered; null removes it. Mainnet: HTTPS to a public address only.',
        }),
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** A wallet with its API key in clear: only in the response that creates the key. */
export const WalletWithKeySchema = Type.Object({
  ...walletProps,
  apiKey: Type.String({ description: 'shown once; store it now' }),
  apiKeyScopes: Type.Array(ApiKeyScopeSchema, {
    description: "the wallet key's restrictions: those of the key that created the wallet (empty: none)",
  }),
});

export const RegeneratedKeySchema = Type.Object({
  walletId: Uuid(),
  apiKey: Type.String({ description: 'shown once; the previous key stopped working' }),
  prefix: Type.String(),
  scopes: Type.Array(ApiKeyScopeSchema, {
    description: "the new key's restrictions: those of the key that regenerated it (empty: none)",
  }),
});
