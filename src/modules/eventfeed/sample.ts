/**
 * The Transaction a test event (POST .../webhooks/trigger) carries: a realistic body for
 * the event's kind, presented by the transactions module exactly as a real one would be
 * (so a receiver's parser sees every field it will see in production), with the wallet's
 * own chain, network, master address and first enabled asset. It is never stored as a
 * transaction: its id is fresh, and the body says `"test": true`.
 */
import { randomBytes } from 'node:crypto';
import { shortReference, uuidv7 } from '../../lib/ids.js';
import { parseAmount } from '../../lib/money.js';
import type { EnabledAsset } from '../assets/service.js';
import type { TransactionRow } from '../transactions/service.js';
import type { WalletRow } from '../wallets/service.js';
import type { WebhookEventName } from '../webhooks/types.js';

/** The Transaction type of each event family; the first prefix that matches wins (unstaking.withdraw. before unstaking.). */
const TYPES: [prefix: string, type: string][] = [
  ['deposit.', 'DEPOSIT'],
  ['withdraw.', 'WITHDRAW'],
  ['signed.', 'SIGNED'],
  ['swap.', 'SWAP'],
  ['custom-smart-contract.', 'CUSTOM_SMART_CONTRACT'],
  ['auto-settlement.', 'AUTO_SETTLEMENT'],
  ['salvage.', 'SALVAGE'],
  ['staking.', 'STAKING'],
  ['unstaking.withdraw.', 'UNSTAKING_WITHDRAW'],
  ['unstaking.', 'UNSTAKING'],
  ['restaking.', 'RESTAKING'],
];

/** Events whose Transaction is not (or not yet) on chain with an outcome, by the status it carries. */
const STATUS_OF: Partial<Record<WebhookEventName, 'PENDING' | 'PENDING_APPROVAL' | 'CANCELLED'>> = {
  'deposit.processing': 'PENDING',
  'withdraw.pending_approval': 'PENDING_APPROVAL',
  'withdraw.cancelled': 'CANCELLED',
};

/** The stage a Transaction of each status carries here. */
const STAGE_OF = {
  PENDING: 'mined',
  PENDING_APPROVAL: 'awaiting-approval',
  CANCELLED: 'cancelled',
  SUCCESS: 'confirmed',
  FAILED: 'failed',
} as const;

const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;

export interface SampleInput {
  event: WebhookEventName;
  wallet: WalletRow;
  /** The wallet's first enabled token (or its native coin); null: no asset at all. */
  asset: EnabledAsset | null;
  network: string;
  nativeDecimals: number;
  confirmations: number;
  now: Date;
}

export function sampleTransaction(s: SampleInput): TransactionRow {
  const type = TYPES.find(([prefix]) => s.event.startsWith(prefix))?.[1] ?? 'TEST';
  const failed = s.event.endsWith('.failed');
  const status = failed ? 'FAILED' : (STATUS_OF[s.event] ?? 'SUCCESS');
  const pending = status === 'PENDING';
  // Held for approval, or cancelled before it was sent: nothing on chain.
  const unsent = status === 'PENDING_APPROVAL' || status === 'CANCELLED';
  const swept = s.event === 'deposit.swept.success';
  const decimals = s.asset?.asset.row.decimals ?? s.nativeDecimals;
  const amount = parseAmount('10.5', decimals).toString();
  const inbound = type === 'DEPOSIT';
  const onChain = type !== 'SIGNED' && type !== 'TEST' && !unsent;
  const fee = onChain && !inbound ? parseAmount('0.000021', s.nativeDecimals).toString() : null;
  const hash = onChain ? hex(32) : null;
  return {
    id: uuidv7(),
    reference: shortReference(),
    wallet_id: s.wallet.id,
    address_id: null,
    chain_id: s.wallet.chain_id,
    asset_id: s.asset?.asset.row.id ?? null,
    type,
    status,
    stage: STAGE_OF[status],
    confirmed: status === 'SUCCESS',
    confirmations: onChain ? (pending ? 1 : s.confirmations) : null,
    amount,
    amount_paid: amount,
    amount_decimals: null,
    amount_usd: '10.50',
    currency: s.asset?.asset.row.symbol ?? null,
    rate: '1',
    rate_usd: '1',
    to_amount: type === 'SWAP' ? amount : null,
    to_currency: type === 'SWAP' ? (s.asset?.asset.row.symbol ?? null) : null,
    fee,
    fee_hash: null,
    fee_metadata: null,
    gas_fee: fee,
    gas_price: fee === null ? null : '1000000000',
    gas_used: fee === null ? null : '21000',
    hash,
    block_hash: onChain ? hex(32) : null,
    block_number: onChain ? '1234567' : null,
    log_index: inbound ? 0 : null,
    nonce: null,
    signed_fees: null,
    raw_transaction: null,
    sender_address: s.wallet.address,
    recipient_address: s.wallet.address,
    token_address: s.asset && !s.asset.asset.row.is_native ? s.asset.asset.row.address : null,
    note: 'Test event (POST /v1/wallets/{walletId}/webhooks/trigger): nothing happened on chain',
    reason: failed ? 'Test event: the transaction failed' : null,
    metadata: null,
    network: s.network,
    created_channel: 'api',
    signed_transaction: type === 'SIGNED' ? { rawTransaction: hex(110) } : null,
    aml_screening: null,
    asset_swept: swept,
    asset_swept_amount: swept ? amount : null,
    asset_swept_at: swept ? s.now : null,
    asset_swept_gas_fee: swept ? parseAmount('0.000021', s.nativeDecimals).toString() : null,
    asset_swept_hash: swept ? hex(32) : null,
    asset_swept_recipient_address: swept ? s.wallet.address : null,
    asset_swept_sender_address: swept ? s.wallet.address : null,
    asset_swept_response: null,
    response: null,
    aml_held: false,
    counted_at: null,
    created_at: s.now,
    updated_at: s.now,
  };
}
