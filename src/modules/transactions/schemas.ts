import { Type, type Static } from '@sinclair/typebox';
import { formatAmount } from '../../lib/money.js';
import type { TransactionRow } from './store.js';
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

export type TransactionView = Static<typeof TransactionSchema>;

/** What a row's view needs beyond the row: its chain's figures and the objects it embeds, resolved by the service. */
export interface TransactionViewParts {
  nativeDecimals: number;
  /** The amount's asset (a salvaged token the catalogue does not list: the decimals read on chain). */
  assetDecimals: number;
  /** A swap's output asset (toAmount). */
  toDecimals: number;
  chainId: number | null;
  asset: TransactionView['asset'];
  toAsset: TransactionView['toAsset'];
  blockchain: TransactionView['blockchain'];
  toBlockchain: TransactionView['toBlockchain'];
  address: TransactionView['address'];
  wallet: TransactionView['wallet'];
}

/**
 * A transaction row in the spec's Transaction shape: beside the schema, so that a field is
 * declared and written in one file. Amounts go from base units to the asset's units; fee
 * figures are as the family mapped them (ChainAdapter.fees).
 */
export function transactionView(row: TransactionRow, parts: TransactionViewParts): TransactionView {
  const units = (v: string | null, decimals: number) => (v === null ? null : formatAmount(BigInt(v), decimals));
  const { nativeDecimals: native, assetDecimals } = parts;
  return {
    id: row.id,
    reference: row.reference,
    type: row.type,
    status: row.status,
    confirmed: row.confirmed,
    confirmations: row.confirmations,
    amount: units(row.amount, assetDecimals),
    amountPaid: units(row.amount_paid, assetDecimals),
    amountUSD: row.amount_usd,
    currency: row.currency,
    rate: row.rate,
    rateUSD: row.rate_usd,
    toAmount: units(row.to_amount, parts.toDecimals),
    toCurrency: row.to_currency,
    toAsset: parts.toAsset,
    toBlockchain: parts.toBlockchain,
    fee: units(row.fee, native),
    feeHash: row.fee_hash,
    feeMetadata: row.fee_metadata ?? null,
    gasFee: units(row.gas_fee, native),
    gasPrice: row.gas_price,
    gasUsed: row.gas_used,
    hash: row.hash,
    blockHash: row.block_hash,
    blockNumber: row.block_number === null ? null : Number(row.block_number),
    chainId: parts.chainId,
    senderAddress: row.sender_address,
    recipientAddress: row.recipient_address,
    tokenAddress: row.token_address,
    note: row.note,
    reason: row.reason,
    metadata: (row.metadata as Record<string, unknown> | null) ?? null,
    network: row.network,
    createdChannel: row.created_channel,
    signedTransaction: row.signed_transaction ?? null,
    amlScreening: row.aml_screening ?? null,
    assetSwept: row.asset_swept,
    assetSweptAmount: units(row.asset_swept_amount, assetDecimals),
    assetSweptAt: row.asset_swept_at ? row.asset_swept_at.toISOString() : null,
    assetSweptGasFee: units(row.asset_swept_gas_fee, native),
    assetSweptHash: row.asset_swept_hash,
    assetSweptRecipientAddress: row.asset_swept_recipient_address,
    assetSweptSenderAddress: row.asset_swept_sender_address,
    assetSweptResponse: row.asset_swept_response ?? null,
    asset: parts.asset,
    blockchain: parts.blockchain,
    address: parts.address,
    wallet: parts.wallet,
    response: row.response ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export const TransactionListQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
    id: Type.Optional(Uuid('transaction id')),
    hash: Type.Optional(
      Type.String({
        // Every family's spelling: hex with 0x (EVM), a txID with or without it (Tron), a signature in base58 (Solana).
        pattern: '^(0x)?[0-9a-fA-F]{64}$|^[1-9A-HJ-NP-Za-km-z]{64,88}$',
        description: 'the transaction hash: 64 hex digits, with or without 0x; on Solana the signature (base58)',
      }),
    ),
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
