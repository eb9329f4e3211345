import { Type, type Static } from '@sinclair/typebox';
import { JsonObject, Uuid } from '../../lib/schema.js';

// A uint256 has 78 digits and an asset at most 77 decimals; anything longer is refused by
// the amount rules anyway, this only keeps absurd inputs out of the parser.
const Amount = Type.String({ maxLength: 160, description: 'decimal string in the asset, greater than 0, e.g. "12.5"' });
const Destination = Type.String({ maxLength: 128, description: 'destination address (EIP-55 checksum when mixed case)' });
const Reference = Type.String({ minLength: 1, maxLength: 100, description: 'client reference, unique per wallet' });
const Note = Type.String({ maxLength: 1000, description: 'internal remark, not visible on chain' });

export const WithdrawItem = Type.Object(
  {
    id: Uuid('asset to withdraw (wallet asset id or catalogue asset id)'),
    amount: Amount,
    address: Destination,
    reference: Type.Optional(Reference),
    note: Type.Optional(Note),
    metadata: Type.Optional(JsonObject),
  },
  { additionalProperties: false },
);

/** One shape for single (top-level assetId, address, amount) and batch (`assets`) requests. */
export const WithdrawBody = Type.Object(
  {
    assetId: Type.Optional(Uuid('asset to withdraw (single withdrawal)')),
    address: Type.Optional(Destination),
    amount: Type.Optional(Amount),
    reference: Type.Optional(Reference),
    note: Type.Optional(Note),
    metadata: Type.Optional(JsonObject),
    assets: Type.Optional(Type.Array(WithdrawItem, { minItems: 1, maxItems: 100, description: 'batch withdrawal' })),
  },
  { additionalProperties: false },
);
export type WithdrawBody = Static<typeof WithdrawBody>;

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7E]+$',
      description: 'Optional. Same key and body: the stored response; same key, other body: 422. Scoped per wallet.',
    }),
  ),
});

export const NetworkFeeSchema = Type.Object({
  balance: Type.String({ description: "the sender's native balance, in the native coin" }),
  fee: Type.String({ description: 'estimated network fee (gas limit x fee cap), in the native coin' }),
});

export const TransactionIdBody = Type.Object({ id: Uuid('transaction id') }, { additionalProperties: false });
