/**
 * The Transaction rows of contract calls: a PENDING CUSTOM_SMART_CONTRACT per broadcast
 * call, a SIGNED one per sign-only call, and the settlement of a broadcast call when its
 * outbound row reaches an end (run by the outbound pipeline inside the database transaction
 * that records the receipt, so the row, its event and the receipt commit together).
 */
import type { DbConn } from '../../db/pool.js';
import type { Purpose } from '../../events.js';
import { shortReference } from '../../lib/ids.js';
import type { EncodedContractCall, SignedFeeFields } from '../../chains/types.js';
import type { OutboundRow } from '../outbound/service.js';
import { sendEnd, signedFees, type Counted, type TransactionFields } from '../transactions/service.js';
import type { AmlScreening } from '../aml/service.js';
import type { ModuleDeps } from '../deps.js';
import type { ContractCalls } from './schemas.js';
import type { Actor } from './types.js';
import * as store from './store.js';

export const CONTRACT_PURPOSE = 'contract' satisfies Purpose;

/** A slot as the records' JSON shows it (a number; null on families without nonces). */
const asNumber = (slot: bigint | null): number | null => (slot === null ? null : Number(slot));

function baseRow(
  actor: Actor,
  id: string,
  call: ContractCalls[number],
  encoded: EncodedContractCall,
  aml: AmlScreening | undefined,
): TransactionFields {
  return {
    id,
    wallet_id: actor.wallet.id,
    address_id: actor.addressId,
    chain_id: actor.chain.id,
    reference: shortReference(),
    type: 'CUSTOM_SMART_CONTRACT',
    network: actor.chain.row.network,
    created_channel: 'API',
    sender_address: actor.address,
    recipient_address: encoded.to,
    // The spec: a contract write's reason is the JSON of its method, parameters and abi.
    reason: JSON.stringify({ method: call.method, parameters: call.parameters, abi: call.abi }),
    // The AML screening of the addresses the call pays ({}: none screened).
    aml_screening: aml ?? {},
  };
}

export async function insertPendingWrite(
  tx: DbConn,
  actor: Actor,
  id: string,
  call: ContractCalls[number],
  encoded: EncodedContractCall,
  nonce: bigint | null,
  counted: Counted,
  deps: Pick<ModuleDeps, 'transactions'>,
  aml?: AmlScreening,
): Promise<void> {
  await deps.transactions.create(
    tx,
    { ...baseRow(actor, id, call, encoded, aml), status: 'PENDING', stage: 'created', confirmed: false, nonce },
    counted,
  );
}

/** A signed call; its nonce is null on families without them (Tron), its fee fields as the family shows them. */
export interface SignedCall {
  raw: string;
  hash: string;
  nonce: bigint | null;
  fees: SignedFeeFields;
}

export async function insertSignedWrite(
  tx: DbConn,
  actor: Actor,
  id: string,
  call: ContractCalls[number],
  encoded: EncodedContractCall,
  s: SignedCall,
  counted: Counted,
  deps: Pick<ModuleDeps, 'webhooks' | 'transactions'>,
  aml?: AmlScreening,
): Promise<void> {
  await deps.transactions.create(
    tx,
    {
      ...baseRow(actor, id, call, encoded, aml),
      type: 'SIGNED',
      status: 'SUCCESS',
      stage: 'signed',
      confirmed: true,
      // `hash` stays null: nothing is on chain and may never be. The would-be hash is in `response`.
      signed_transaction: JSON.stringify(s.raw),
      nonce: s.nonce,
      signed_fees: signedFees(s.fees),
      // The would-be hash, the nonce and the family's fee fields (gasLimit and the fee caps on EVM; null elsewhere).
      response: JSON.stringify({ hash: s.hash, nonce: asNumber(s.nonce), ...s.fees }),
    },
    // Decided as a CONTRACT_WRITE: it counts there, not under SIGN_ONLY.
    counted,
  );
  await deps.webhooks.emitForTransaction(tx, id, 'signed.success');
}

/**
 * Completion handler of purpose 'contract'. Mined with status success: SUCCESS. Reverted
 * on chain (the fee was paid), dropped (the nonce went to a transaction not ours) or
 * voided before signing because it would revert: FAILED. Runs once per row; a transaction
 * already settled is left alone.
 */
export async function settleWrite(
  tx: DbConn,
  row: OutboundRow,
  deps: Pick<ModuleDeps, 'webhooks' | 'transactions' | 'outbound'>,
): Promise<void> {
  if (!row.ownerId || !(await store.lockPendingWrite(tx, row.ownerId))) return;
  const r = row.receipt;
  const ok = row.stage === 'mined' && r?.status === 'success';
  // The receipt's public fee fields, as the family maps them (gasUsed x gasPrice = its fee).
  const shown = deps.outbound.mined(row);
  await store.settleMoves(tx, row.ownerId);
  await deps.transactions.settleContractCall(tx, row.ownerId, {
    ...sendEnd(ok, row.stage),
    confirmed: r !== null,
    hash: r ? row.hash : null,
    block: r?.block ?? null,
    gasUsed: shown?.gasUsed ?? null,
    gasPrice: shown?.gasPrice ?? null,
    fee: r?.fee ?? null,
    fees: deps.outbound.feeFields(row),
    response: {
      outcome: ok ? 'success' : r ? 'reverted' : row.stage,
      hash: row.hash,
      nonce: asNumber(row.nonce),
      blockNumber: r ? Number(r.block.number) : null,
      gasUsed: shown ? shown.gasUsed.toString() : null,
      error: ok ? null : row.error,
    },
  });
  await deps.webhooks.emitForTransaction(tx, row.ownerId, ok ? 'custom-smart-contract.success' : 'custom-smart-contract.failed');
}
