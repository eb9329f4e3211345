/**
 * Rows as SELECT * reads them, built in memory from what was written (pure: no SQL).
 */
import type { NewDeposit, TransactionRow } from './types.js';

/**
 * The row `insertDeposits` wrote for `d`, as SELECT * would read it. Typed as the whole
 * TransactionRow: a column added to the table must be given its value here too (and
 * test/deposits/rows.test.ts compares this with the stored row).
 */
export function depositRow(
  d: NewDeposit,
  settled: boolean,
  confirmations: number,
  db: { created_at: Date; metadata: TransactionRow['metadata'] },
): TransactionRow {
  const rate = d.rateUsd ?? null;
  return {
    id: d.id,
    wallet_id: d.walletId,
    address_id: d.addressId,
    asset_id: d.assetId,
    chain_id: d.chainId,
    reference: d.reference,
    type: 'DEPOSIT',
    status: settled ? 'SUCCESS' : 'PENDING',
    stage: settled ? 'confirmed' : 'mined',
    confirmed: settled,
    confirmations,
    amount: d.amount.toString(),
    amount_paid: d.amount.toString(),
    amount_decimals: null,
    amount_usd: d.amountUsd,
    currency: d.currency,
    rate,
    rate_usd: rate,
    to_amount: null,
    to_currency: null,
    fee: null,
    fee_hash: null,
    fee_metadata: null,
    gas_fee: null,
    gas_price: null,
    gas_used: null,
    hash: d.hash,
    log_index: d.logIndex,
    block_hash: d.block.hash,
    block_number: d.block.number.toString(),
    sender_address: d.from,
    recipient_address: d.to,
    token_address: d.token,
    note: null,
    reason: null,
    metadata: db.metadata,
    network: d.network,
    created_channel: 'BLOCKCHAIN',
    signed_transaction: null,
    aml_screening: d.amlScreening ?? {},
    aml_held: d.amlHeld ?? false,
    counted_at: null,
    nonce: null,
    raw_transaction: null,
    signed_fees: null,
    asset_swept: false,
    asset_swept_amount: null,
    asset_swept_at: null,
    asset_swept_gas_fee: null,
    asset_swept_hash: null,
    asset_swept_recipient_address: null,
    asset_swept_sender_address: null,
    asset_swept_response: null,
    response: null,
    created_at: db.created_at,
    updated_at: db.created_at,
  };
}
