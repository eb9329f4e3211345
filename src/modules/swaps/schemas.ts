import { Type, type Static } from '@sinclair/typebox';
import { JsonObject, Nullable, Timestamp, Uuid } from '../../lib/schema.js';
import { ORDERS } from './types.js';

const quoteFields = {
  fromAssetId: Uuid('the asset given (catalogue or wallet asset id)'),
  toAssetId: Uuid('the asset received, on the same chain'),
  amount: Type.String({ maxLength: 160, description: 'decimal string in the asset given, greater than 0' }),
  order: Type.Optional(
    Type.Union(
      ORDERS.map((o) => Type.Literal(o)),
      {
        description:
          'how the route is chosen: FASTEST (fewest hops), CHEAPEST (best output net of gas), RECOMMENDED (best output, the default), NO_SLIPPAGE (the minimum is the quote itself)',
      },
    ),
  ),
  recipientAddress: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'where the output goes (default: the address swapping); the wallet whitelist applies',
    }),
  ),
  slippageTolerance: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,2}(\\.[0-9]{1,4})?$',
      description: 'percent the output may fall below the reference (default 0.5; a value of 5 means 5%)',
    }),
  ),
};

export const SwapQuoteBody = Type.Object(quoteFields, { additionalProperties: false });
export type SwapQuoteBody = Static<typeof SwapQuoteBody>;

/** Execute: a quote's id, or the quote's body (quoted now), plus the client's reference and metadata. */
export const SwapExecuteBody = Type.Object(
  {
    quoteId: Type.Optional(Uuid('a quote of this wallet (and address) from .../swaps/quote')),
    fromAssetId: Type.Optional(quoteFields.fromAssetId),
    toAssetId: Type.Optional(quoteFields.toAssetId),
    amount: Type.Optional(quoteFields.amount),
    order: quoteFields.order,
    recipientAddress: quoteFields.recipientAddress,
    slippageTolerance: quoteFields.slippageTolerance,
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'client reference' })),
    metadata: Type.Optional(JsonObject),
  },
  { additionalProperties: false },
);
export type SwapExecuteBody = Static<typeof SwapExecuteBody>;

const Decimal = (description: string) => Type.String({ description });
const Usd = (description: string) => Nullable(Type.String({ description: `${description}; null while no rate source prices it` }));

export const SwapQuoteSchema = Type.Object({
  quoteId: Uuid('execute it by id until expiresAt'),
  expiresAt: Timestamp,
  fromAsset: Type.String({ description: 'symbol of the asset given' }),
  toAsset: Type.String({ description: 'symbol of the asset received' }),
  amountIn: Decimal('the amount given'),
  amount: Decimal('the output the route gives now, in the asset received'),
  minAmount: Decimal("the router's minimum output, signed into the swap with a deadline: below it the swap reverts"),
  rate: Decimal('output per unit given'),
  slippage: Decimal('the tolerance applied, percent'),
  impact: Decimal("price impact, percent: how far the output is below the pools' mid price"),
  impactInUSD: Usd('the price impact valued in USD'),
  networkFee: Decimal('the network fee of the transactions the swap sends (approvals, the swap, a top-up), in the native coin'),
  networkFeeInUSD: Usd('networkFee in USD'),
  nativeBalance: Decimal("the swapping address's native coin"),
  nativeBalanceInUSD: Usd('nativeBalance in USD'),
  transactionFee: Decimal('what this service charges: 0'),
  estimatedArrivalTime: Type.Integer({ description: 'seconds, an estimate: 15 per transaction the swap sends' }),
  path: Type.Array(Type.String(), { description: 'the token route, input to output' }),
  recipientAddress: Type.String(),
});
export type SwapQuoteView = Static<typeof SwapQuoteSchema>;
