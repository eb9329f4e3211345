import { Type } from '@sinclair/typebox';
import { Uuid } from '../../lib/schema.js';

export const LookupQuery = Type.Object(
  {
    address: Type.String({ minLength: 1, maxLength: 128, description: "the address to screen, in its chain's form" }),
    blockchain: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "the blockchain's slug (GET /v1/blockchains); required unless the key is a wallet key or the route names a wallet",
      }),
    ),
    network: Type.Optional(
      Type.Union([Type.Literal('mainnet'), Type.Literal('testnet')], {
        description: 'extension: which network of the blockchain, when both are configured (default mainnet)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AmlScreeningSchema = Type.Object(
  {
    address: Type.String(),
    blockchain: Type.String(),
    network: Type.String(),
    isBlacklisted: Type.Boolean({ description: 'true when at least one list names the address' }),
    status: Type.Union([Type.Literal('CLEAR'), Type.Literal('FLAGGED'), Type.Literal('NOT_SCREENED')], {
      description:
        'CLEAR: every provider answered, none lists it; FLAGGED: listed; NOT_SCREENED: a provider did not answer (or none is in force)',
    }),
    provider: Type.String({ description: 'the providers consulted, comma-separated ("ofac, tether, circle, sanctions-oracle")' }),
    message: Type.String(),
    checkedAt: Type.String({ format: 'date-time' }),
    lists: Type.Array(Type.String(), { description: 'the providers that list the address' }),
    failed: Type.Array(Type.String(), { description: 'the providers that did not answer' }),
  },
  { $id: 'AmlScreening' },
);

export const ReleaseParams = Type.Object({ walletId: Uuid('master wallet id'), transactionId: Uuid('deposit transaction id') });
