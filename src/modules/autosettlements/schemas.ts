import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../../lib/schema.js';
import { ORDERS } from './rules.js';

/** A plain non-negative decimal ("0", "12.5"); the asset's decimals are checked by the service. */
const DecimalString = (description: string) => Type.String({ pattern: '^(0|[1-9]\\d{0,59})(\\.\\d{1,36})?$', description });
const Slippage = Type.String({
  pattern: '^(0|[1-9]\\d{0,2})(\\.\\d{1,4})?$',
  description: 'percentage of the expected output the swap may fall short by, e.g. "0.5" for 0.5%; below 100; ignored by NO_SLIPPAGE',
});
const Symbol = Type.String({ minLength: 1, maxLength: 16, pattern: '^[A-Za-z0-9.]+$' });
const Slug = Type.String({ minLength: 1, maxLength: 64, description: 'blockchain slug; the wallet’s own chain' });
const OrderSchema = Type.Union(
  ORDERS.map((o) => Type.Literal(o)),
  {
    description:
      'route choice: FASTEST = fewest hops, CHEAPEST = best output net of gas, RECOMMENDED = best output, NO_SLIPPAGE = best output and the swap reverts unless it gives the exact quote',
  },
);

const strict = { additionalProperties: false } as const;

const SourceFields = {
  assets: Type.Array(Symbol, { minItems: 1, maxItems: 20, uniqueItems: true, description: 'symbols of the assets the rule takes' }),
  blockchain: Slug,
  minAmount: DecimalString('smallest deposit the rule takes, in asset units (default "0")'),
  maxAmount: Nullable(DecimalString('largest deposit the rule takes, in asset units; null = no upper bound')),
};
const DestinationFields = {
  asset: Symbol,
  address: Type.String({ minLength: 1, maxLength: 128 }),
  blockchain: Slug,
};

export const CreateRuleBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    isActive: Type.Optional(Type.Boolean({ default: true })),
    order: Type.Optional(OrderSchema),
    slippageTolerance: Type.Optional(Slippage),
    source: Type.Object(
      {
        assets: SourceFields.assets,
        blockchain: SourceFields.blockchain,
        minAmount: Type.Optional(SourceFields.minAmount),
        maxAmount: Type.Optional(SourceFields.maxAmount),
      },
      strict,
    ),
    destination: Type.Object(DestinationFields, strict),
  },
  strict,
);

export const UpdateRuleBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    isActive: Type.Optional(Type.Boolean()),
    order: Type.Optional(OrderSchema),
    slippageTolerance: Type.Optional(Slippage),
    source: Type.Optional(
      Type.Object(
        {
          assets: Type.Optional(SourceFields.assets),
          blockchain: Type.Optional(SourceFields.blockchain),
          minAmount: Type.Optional(SourceFields.minAmount),
          maxAmount: Type.Optional(SourceFields.maxAmount),
        },
        strict,
      ),
    ),
    destination: Type.Optional(
      Type.Object(
        {
          asset: Type.Optional(DestinationFields.asset),
          address: Type.Optional(DestinationFields.address),
          blockchain: Type.Optional(DestinationFields.blockchain),
        },
        strict,
      ),
    ),
  },
  strict,
);

export const UpdateConfigBody = Type.Object(
  { isActive: Type.Optional(Type.Boolean()), name: Type.Optional(Type.String({ maxLength: 200 })) },
  strict,
);

const RuleSourceSchema = Type.Object({
  assets: Type.Array(Type.String()),
  blockchain: Type.String(),
  minAmount: Type.String(),
  maxAmount: Nullable(Type.String()),
});
const RuleDestinationSchema = Type.Object({ asset: Type.String(), address: Type.String(), blockchain: Type.String() });

export const RuleSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    isActive: Type.Boolean(),
    order: Type.String(),
    slippageTolerance: Type.String(),
    source: RuleSourceSchema,
    destination: RuleDestinationSchema,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  // No $id: a schema added inside a route plugin would give that plugin Fastify's default
  // (coercing) validator instead of the strict one of http/validation.ts.
);

/** The master-wallet list form (spec): rules without id and timestamps. */
export const WalletRuleSummarySchema = Type.Object({
  name: Type.String(),
  isActive: Type.Boolean(),
  order: Type.String(),
  slippageTolerance: Type.String(),
  source: RuleSourceSchema,
  destination: RuleDestinationSchema,
});

export const WalletConfigSchema = Type.Object({
  isActive: Type.Boolean(),
  name: Type.String(),
  rules: Type.Array(WalletRuleSummarySchema),
});

export const AddressConfigSchema = Type.Object({ isActive: Type.Boolean(), rules: Type.Array(RuleSchema) });

export const RuleParams = Type.Object({ walletId: Uuid('master wallet id'), id: Uuid('rule id') });
export const AddressRuleParams = Type.Object({ walletId: Uuid('master wallet id'), addressId: Uuid('address id'), id: Uuid('rule id') });
