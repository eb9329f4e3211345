import { Type } from '@sinclair/typebox';
import { JsonObject, Nullable, Timestamp, Uuid } from '../../lib/schema.js';
import { AssetSchema, BlockchainSchema } from '../catalogue/schemas.js';
import { AddressSchema } from '../addresses/schemas.js';
import { WalletSchema } from '../wallets/schemas.js';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../../transaction-types.js';

const Str = Nullable(Type.String());

export const TransactionSchema = Type.Object(
  {
    id: Uuid(),
    reference: Type.String(),
    type: Type.String({
      description:
        'DEPOSIT, WITHDRAW, SALVAGE, SIGNED, CUSTOM_SMART_CONTRACT, SWAP, AUTO_SETTLEMENT, STAKING, UNSTAKING, RESTAKING, UNSTAKING_WITHDRAW',
    }),
    status: Type.String({
      description: 'PENDING, SUCCESS, FAILED, CANCELLED; PENDING_APPROVAL while a policy holds a payout for approval (docs/policies.md)',
    }),
    confirmed: Type.Boolean(),
    confirmations: Nullable(Type.Integer()),
    amount: Str,
    amountPaid: Str,
    amountUSD: Str,
    currency: Str,
    rate: Str,
    rateUSD: Str,
    toAmount: Str,
    toCurrency: Str,
    /** A swap's output asset and the chain it is on (swaps stay on one chain); null otherwise. */
    toAsset: Nullable(Type.Ref(AssetSchema)),
    toBlockchain: Nullable(Type.Ref(BlockchainSchema)),
    fee: Str,
    feeHash: Str,
    feeMetadata: Nullable(Type.Unknown()),
    gasFee: Str,
    gasPrice: Str,
    gasUsed: Str,
    hash: Str,
    blockHash: Str,
    blockNumber: Nullable(Type.Integer()),
    chainId: Nullable(Type.Integer()),
    senderAddress: Str,
    recipientAddress: Str,
    tokenAddress: Str,
    note: Str,
    reason: Str,
    metadata: Nullable(JsonObject),
    network: Type.String(),
    createdChannel: Str,
    signedTransaction: Nullable(Type.Unknown()),
    amlScreening: Nullable(Type.Unknown()),
    assetSwept: Type.Boolean(),
    assetSweptAmount: Str,
    assetSweptAt: Nullable(Timestamp),
    assetSweptGasFee: Str,
    assetSweptHash: Str,
    assetSweptRecipientAddress: Str,
    assetSweptSenderAddress: Str,
    assetSweptResponse: Nullable(Type.Unknown()),
    asset: Nullable(Type.Ref(AssetSchema)),
    blockchain: Type.Ref(BlockchainSchema),
    address: Nullable(Type.Ref(AddressSchema)),
    wallet: Type.Ref(WalletSchema),
    response: Nullable(Type.Unknown()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Transaction' },
);

export const TransactionListQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
    id: Type.Optional(Uuid('transaction id')),
    hash: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' })),
    status: Type.Optional(Type.Union(TRANSACTION_STATUSES.map((s) => Type.Literal(s)))),
    type: Type.Optional(Type.Union(TRANSACTION_TYPES.map((s) => Type.Literal(s)))),
    order: Type.Optional(Type.Union([Type.Literal('ASC'), Type.Literal('DESC')], { default: 'DESC' })),
    assets: Type.Optional(
      Type.String({ pattern: '^[A-Za-z0-9.]+(,[A-Za-z0-9.]+)*$', description: 'comma-separated asset symbols, e.g. USDT,USDC' }),
    ),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    startDate: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601, inclusive' })),
    endDate: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601, inclusive' })),
  },
  { additionalProperties: false },
);
