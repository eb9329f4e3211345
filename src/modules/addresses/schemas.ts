import { Type } from '@sinclair/typebox';
import { JsonObject, Nullable, PageQuery, Timestamp, Uuid } from '../../lib/schema.js';
import { BlockchainSchema } from '../catalogue/schemas.js';

export const AddressConfigurationsSchema = Type.Object({
  aml: Type.Object({ message: Type.String(), provider: Type.String(), status: Type.String() }),
  disableAutoSweep: Type.Boolean(),
  enableGaslessWithdraw: Type.Boolean(),
  showPrivateKey: Type.Boolean({ description: 'whether this installation allows exporting the key' }),
  isActive: Type.Boolean(),
});

export const AddressSchema = Type.Object(
  {
    id: Uuid(),
    address: Type.String(),
    name: Nullable(Type.String()),
    metadata: Nullable(JsonObject),
    type: Type.Union([Type.Literal('INTERNAL'), Type.Literal('EXTERNAL')]),
    network: Type.String(),
    derivationPath: Nullable(Type.String()),
    isActive: Type.Boolean(),
    blockchain: Type.Ref(BlockchainSchema),
    configurations: AddressConfigurationsSchema,
    privateKey: Type.Optional(Type.String({ description: 'only with showPrivateKey=true; hex, 0x-prefixed' })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Address' },
);

export const AnalyticsSchema = Type.Object({
  activeAddressesCount: Type.Integer(),
  addressLimit: Type.Integer(),
  addressesCount: Type.Integer(),
  externalAddressesCount: Type.Integer(),
  inactiveAddressesCount: Type.Integer(),
  internalAddressesCount: Type.Integer(),
});

export const AddressParams = Type.Object({ walletId: Uuid('master wallet id'), addressId: Uuid('address id') });

export const ListAddressesQuery = Type.Object(
  {
    ...PageQuery,
    type: Type.Optional(Type.Union([Type.Literal('INTERNAL'), Type.Literal('EXTERNAL')])),
    isActive: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const Metadata = Type.Object(
  {},
  { additionalProperties: true, maxProperties: 50, description: 'key/value data attached to the address and its transactions' },
);

const ShowPrivateKey = Type.Boolean({
  description:
    'answer the private key too (`privateKey`): only where export is allowed (ALLOW_KEY_EXPORT_*) and the API key may export keys; audited',
});

export const CreateAddressBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 200 })),
    metadata: Type.Optional(Metadata),
    disableAutoSweep: Type.Optional(Type.Boolean()),
    enableGaslessWithdraw: Type.Optional(Type.Boolean()),
    showPrivateKey: Type.Optional(ShowPrivateKey),
  },
  { additionalProperties: false },
);

export const UpdateAddressBody = Type.Object(
  {
    name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    metadata: Type.Optional(Nullable(Metadata)),
    isActive: Type.Optional(Type.Boolean()),
    disableAutoSweep: Type.Optional(Type.Boolean({ description: 'same as configurations.disableAutoSweep (compatibility)' })),
    enableGaslessWithdraw: Type.Optional(Type.Boolean({ description: 'same as configurations.enableGaslessWithdraw (compatibility)' })),
    showPrivateKey: Type.Optional(ShowPrivateKey),
    configurations: Type.Optional(
      Type.Object(
        { disableAutoSweep: Type.Optional(Type.Boolean()), enableGaslessWithdraw: Type.Optional(Type.Boolean()) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const GetAddressQuery = Type.Object(
  { showPrivateKey: Type.Optional(Type.Boolean({ default: false })) },
  { additionalProperties: false },
);

export const WhitelistBody = Type.Object(
  {
    address: Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'an address the service holds no key for (EIP-55 checksum checked when mixed case)',
    }),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    metadata: Type.Optional(Metadata),
    disableAutoSweep: Type.Optional(
      Type.Boolean({ description: 'default: true without privateKey (nothing to sweep with), false with it' }),
    ),
    enableGaslessWithdraw: Type.Optional(Type.Boolean()),
    privateKey: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 130,
        description:
          "the address's private key: secp256k1 in hex, 0x optional (EVM, Tron); on Solana base58 of the 64-byte secret key (seed and public key, as solana-keygen and Phantom export it) or the 32-byte seed in base58 or hex. The service holds it from then on (sealed, audited) and can sweep the address. Refused on mainnet unless ALLOW_KEY_IMPORT_MAINNET",
      }),
    ),
    showPrivateKey: Type.Optional(ShowPrivateKey),
  },
  { additionalProperties: false },
);
