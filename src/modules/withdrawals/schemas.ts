import { Type, type Static } from '@sinclair/typebox';
import { JsonObject, Nullable, Uuid } from '../../lib/schema.js';

// A uint256 has 78 digits and an asset at most 77 decimals; anything longer is refused by
// the amount rules anyway, this only keeps absurd inputs out of the parser.
const Amount = Type.String({ maxLength: 160, description: 'decimal string in the asset, greater than 0, e.g. "12.5"' });
const Destination = Type.String({ maxLength: 128, description: 'destination address (EIP-55 checksum when mixed case)' });
const Reference = Type.String({ minLength: 1, maxLength: 100, description: 'client reference, unique per wallet' });
const Note = Type.String({ maxLength: 1000, description: 'internal remark, not visible on chain' });

/** A positive whole number, as a decimal string or a JSON integer (clients send both). */
const Whole = (description: string, example: string) =>
  Type.Union([Type.String({ pattern: '^[0-9]{1,30}$' }), Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })], {
    description,
    examples: [example],
  });

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
    gasLimit: Type.Optional(
      Whole(
        "gas limit of each transaction, as sent by the described service's clients: used as given when the network's estimate fits under it (below it: 400); at most 30000000",
        '100000',
      ),
    ),
    gasPrice: Type.Optional(
      Whole(
        'fee cap in wei per gas (maxFeePerGas; the tip is the estimate, at most the cap); below the current network fee: 400',
        '30000000000',
      ),
    ),
    nonce: Type.Optional(Type.Unknown({ description: 'refused (400): the service manages nonces' })),
    nounce: Type.Optional(
      Type.Unknown({ description: "the described service's spelling of nonce; refused (400): the service manages nonces" }),
    ),
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
  networkFee: Type.String({ description: 'estimated network fee (gas limit x fee cap) of the whole request, in the native coin' }),
  nativeBalance: Type.String({ description: "the sender's native balance, in the native coin" }),
  nativeBalanceInUSD: Nullable(
    Type.String({ description: 'the native balance in USD; null while no configured rate source prices the native coin' }),
  ),
  estimatedArrivalTime: Type.Optional(Type.Integer({ description: 'seconds until confirmed, when the chain has a known block time' })),
  fees: Type.Optional(Type.Array(Type.String(), { description: 'batch only: the fee of each item, in request order' })),
  totalNetworkFee: Type.Optional(Type.String({ description: 'batch only: the sum of fees (same as networkFee)' })),
  fee: Type.String({ deprecated: true, description: 'deprecated alias of networkFee, kept for one version' }),
  balance: Type.String({ deprecated: true, description: 'deprecated alias of nativeBalance, kept for one version' }),
});

export const TransactionIdBody = Type.Object({ id: Uuid('transaction id') }, { additionalProperties: false });

/** What the withdraw routes do with the body's fee fields. */
export const GAS_HELP =
  '`gasLimit` (gas) and `gasPrice` (wei per gas, the fee cap) are honoured within safety: a gas limit below the network estimate, or a fee cap below the current network fee, is a 400; `nonce`/`nounce` are refused (400): the service manages nonces.';
