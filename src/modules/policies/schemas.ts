import { Type, type Static, type TLiteral, type TSchema } from '@sinclair/typebox';
import { Nullable, PageQuery, Timestamp, Uuid } from '../../lib/schema.js';
import { TransactionSchema } from '../transactions/schemas.js';
import { ACTIONS, DESTINATIONS, POLICY_TYPES, ROLES } from './rules.js';

const literals = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Union(values.map((v) => Type.Literal(v)) as TLiteral<T[number]>[], description ? { description } : {});

const Decimal = (description: string) => Type.String({ pattern: '^(0|[1-9][0-9]{0,77})(\\.[0-9]{1,80})?$', description });
const Currency = literals(
  ['ASSET', 'USD'] as const,
  "ASSET: in the transaction's asset; USD: at the asset's USD rate (no rate: the condition does not match)",
);
const strict = <T extends Record<string, TSchema>>(props: T, description?: string) =>
  Type.Object(props, { additionalProperties: false, ...(description ? { description } : {}) });

export const ConditionsSchema = strict(
  {
    types: Type.Optional(
      Type.Array(literals(POLICY_TYPES), {
        minItems: 1,
        uniqueItems: true,
        description: 'transaction types the rule applies to (absent: all); BATCH_ITEM is an item of a batch withdrawal',
      }),
    ),
    assets: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Za-z0-9._-]{1,20}$' }), {
        minItems: 1,
        maxItems: 50,
        uniqueItems: true,
        description: 'asset symbols (any chain), e.g. ["USDC", "USDT"]',
      }),
    ),
    amount: Type.Optional(
      strict(
        {
          min: Type.Optional(Decimal('inclusive lower bound')),
          max: Type.Optional(Decimal('inclusive upper bound')),
          currency: Currency,
        },
        'the amount, in the asset or in USD; at least one bound',
      ),
    ),
    velocity: Type.Optional(
      strict(
        {
          measure: literals(['SUM', 'COUNT'] as const),
          scope: literals(
            ['WALLET', 'DESTINATION'] as const,
            "WALLET: the wallet's payouts; DESTINATION: what the business's wallets sent to this address",
          ),
          windowSeconds: Type.Integer({ minimum: 60, maximum: 31 * 86_400, description: 'the rolling window, e.g. 86400 for 24 hours' }),
          limit: Decimal('matches when the window with this transaction exceeds it: an amount (SUM) or a whole number (COUNT)'),
          currency: Type.Optional(Currency),
        },
        'matches when the payouts in the rolling window, this one included, exceed `limit`',
      ),
    ),
    destination: Type.Optional(
      literals(DESTINATIONS, "WHITELISTED, BENEFICIARY (whitelisted or not), NON_BENEFICIARY (none of the wallet's beneficiaries), ANY"),
    ),
    initiators: Type.Optional(
      strict(
        {
          apiKeys: Type.Optional(Type.Array(Uuid(), { maxItems: 100, uniqueItems: true })),
          users: Type.Optional(Type.Array(Uuid(), { maxItems: 100, uniqueItems: true, description: 'dashboard user ids' })),
          system: Type.Optional(Type.Boolean({ description: 'the service itself (auto-settlements)' })),
        },
        'who asked for the transaction: any of these',
      ),
    ),
  },
  'all optional; a rule matches when every condition it has matches',
);

export const ApprovalSpecSchema = strict({
  approvers: strict(
    {
      roles: Type.Optional(
        Type.Array(literals(ROLES), { uniqueItems: true, description: 'dashboard roles; only owner, admin and approver can approve' }),
      ),
      users: Type.Optional(Type.Array(Uuid(), { maxItems: 100, uniqueItems: true, description: 'dashboard user ids' })),
      apiKeys: Type.Optional(
        Type.Array(Uuid(), { maxItems: 100, uniqueItems: true, description: 'business API keys with the APPROVE scope' }),
      ),
    },
    'who may approve: anyone matching one of these',
  ),
  quorum: Type.Integer({ minimum: 1, maximum: 20, description: 'distinct approvals needed' }),
  ttlSeconds: Type.Integer({ minimum: 60, maximum: 30 * 86_400, description: 'unapproved after this long: CANCELLED' }),
});

const policyProps = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  priority: Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'lower first; ties: the older first' }),
  walletId: Nullable(Uuid('only transactions of this wallet; null: every wallet of the business')),
  addressId: Nullable(Uuid('only transactions sent from this child address (needs walletId)')),
  isActive: Type.Boolean(),
  conditions: ConditionsSchema,
  action: literals(ACTIONS),
  approval: Nullable(ApprovalSpecSchema),
};

export const PolicySchema = Type.Object(
  { id: Uuid(), ...policyProps, createdAt: Timestamp, updatedAt: Timestamp },
  { $id: 'Policy', description: 'A transaction policy rule (docs/policies.md)' },
);
export type PolicyView = Static<typeof PolicySchema>;

export const CreatePolicyBody = strict({
  name: policyProps.name,
  priority: policyProps.priority,
  walletId: Type.Optional(policyProps.walletId),
  addressId: Type.Optional(policyProps.addressId),
  isActive: Type.Optional(policyProps.isActive),
  conditions: Type.Optional(ConditionsSchema),
  action: policyProps.action,
  approval: Type.Optional(policyProps.approval),
});
export type CreatePolicyBody = Static<typeof CreatePolicyBody>;

export const UpdatePolicyBody = Type.Partial(CreatePolicyBody, { additionalProperties: false });
export type UpdatePolicyBody = Static<typeof UpdatePolicyBody>;

export const PolicyParams = Type.Object({ id: Uuid('policy id') });

export const EvaluateBody = strict({
  walletId: Uuid(),
  addressId: Type.Optional(Uuid('the sending child address (absent: the master address)')),
  type: literals(POLICY_TYPES),
  assetId: Type.Optional(Uuid('wallet asset id or catalogue asset id')),
  amount: Type.Optional(Type.String({ maxLength: 160, description: 'decimal string in the asset' })),
  address: Type.Optional(Type.String({ maxLength: 128, description: 'destination address' })),
  initiator: Type.Optional(
    strict(
      {
        apiKey: Type.Optional(Uuid()),
        user: Type.Optional(Uuid()),
        system: Type.Optional(Type.Boolean()),
      },
      'who would ask (absent: the key calling)',
    ),
  ),
});
export type EvaluateBody = Static<typeof EvaluateBody>;

export const EvaluationSchema = Type.Object({
  action: literals(ACTIONS),
  policy: Nullable(Type.Ref(PolicySchema)),
  reason: Type.String({ description: 'why the deciding rule matched, or that none did' }),
  steps: Type.Array(
    Type.Object({
      policyId: Uuid(),
      name: Type.String(),
      priority: Type.Integer(),
      matched: Type.Boolean(),
      reason: Type.String(),
    }),
    { description: 'the rules looked at, in order, up to the one that decided' },
  ),
});

// ---- approvals -------------------------------------------------------------------------

const Actor = Type.Object({
  type: literals(['API_KEY', 'USER', 'SYSTEM'] as const),
  id: Nullable(Uuid()),
  label: Type.String(),
});

export const ApprovalSchema = Type.Object(
  {
    id: Uuid(),
    status: literals(['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED', 'CANCELLED'] as const),
    walletId: Uuid(),
    transaction: Type.Ref(TransactionSchema),
    policy: Type.Object({ id: Uuid(), name: Type.String() }),
    approvers: ApprovalSpecSchema.properties.approvers,
    quorum: Type.Integer(),
    approvals: Type.Integer({ description: 'distinct approvals so far' }),
    initiator: Actor,
    votes: Type.Array(
      Type.Object({
        voter: Actor,
        decision: literals(['APPROVE', 'REJECT', 'OVERRIDE'] as const),
        comment: Nullable(Type.String()),
        at: Timestamp,
      }),
    ),
    reason: Nullable(Type.String()),
    expiresAt: Timestamp,
    createdAt: Timestamp,
    decidedAt: Nullable(Timestamp),
  },
  { $id: 'Approval' },
);
export type ApprovalView = Static<typeof ApprovalSchema>;

export const ApprovalParams = Type.Object({ id: Uuid('approval id') });
export const VoteBody = strict({ comment: Type.Optional(Type.String({ maxLength: 1000 })) });
export const ListApprovalsQuery = Type.Object(
  {
    status: Type.Optional(literals(['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED', 'CANCELLED'] as const)),
    walletId: Type.Optional(Uuid()),
    ...PageQuery,
  },
  { additionalProperties: false },
);
export type ListApprovalsQuery = Static<typeof ListApprovalsQuery>;
