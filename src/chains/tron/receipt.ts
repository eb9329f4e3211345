/**
 * A Tron transaction's receipt in the seam's terms (chains/types.ts, Receipt), read from
 * /wallet/gettransactioninfobyid and its block's id. Used by TronSender.findLanded; the
 * adapter's getReceipt can answer with it too.
 */
import { feeAsUnits, NO_SIGNED_FEES, sumDetails } from '../receipts.js';
import type { FeeReport, NetworkData, Receipt } from '../types.js';
import type { TronNode } from './node.js';
import { bandwidthOf } from './tx.js';

type Json = Record<string, unknown>;

/**
 * A landed transaction's receipt (/wallet/gettransactioninfobyid, then its block's id), null
 * while it is in no block. Its fee is the TRX burned (sun); its details the energy it used
 * and its bandwidth (bytes).
 */
export async function tronReceipt(node: TronNode, hash: string): Promise<Receipt | null> {
  const id = hash.replace(/^0x/, '').toLowerCase();
  const info = await node.post<Json>('wallet/gettransactioninfobyid', { value: id });
  if (info.blockNumber === undefined) return null;
  const blockNumber = BigInt(info.blockNumber as number | string);
  const block = await node.post<Json>('wallet/getblockbynum', { num: Number(blockNumber) });
  // Reorganised away between the two reads: that block is not the one it landed in.
  const txs = (block.transactions ?? []) as { txID?: string; raw_data_hex?: string }[];
  const tx = txs.find((t) => t.txID === id);
  if (typeof block.blockID !== 'string' || !tx) return null;
  const receipt = (info.receipt ?? {}) as { result?: string; energy_usage_total?: number | string };
  const result = receipt.result;
  const failed = landedFailed(info.result, result);
  return {
    status: failed ? 'reverted' : 'success',
    block: { number: blockNumber, hash: block.blockID },
    fee: BigInt((info.fee as number | string | undefined) ?? 0),
    ...(failed ? { failure: failureOf(result, info.resMessage) } : {}),
    details: {
      // Energy from stake, burned or paid by the contract's owner; bandwidth = the transaction's
      // bytes (signed size + 64), whether from stake, the free allowance or burned.
      energyUsed: BigInt(receipt.energy_usage_total ?? 0).toString(),
      ...(typeof tx.raw_data_hex === 'string' ? { bandwidthUsed: bandwidthOf(tx.raw_data_hex.length / 2).toString() } : {}),
    },
  };
}

/**
 * Whether a landed transaction failed, from /wallet/gettransactioninfobyid: its `result`
 * FAILED, or a contract result (`receipt.result`) other than SUCCESS. DEFAULT, the enum's
 * zero, is what a system contract (a TRX transfer, a stake) carries, printed by a node that
 * prints defaults and left out by one that does not: no failure. The pipeline (tronReceipt)
 * and the adapter's getReceipt judge alike, or a payment settled one way would look re-mined
 * with the other outcome at its confirmation check.
 */
export function landedFailed(infoResult: unknown, contractResult: string | null | undefined): boolean {
  return infoResult === 'FAILED' || (contractResult != null && contractResult !== 'SUCCESS' && contractResult !== 'DEFAULT');
}

/**
 * Tron's public fee fields: the fee burned, in sun, at a price of 1 (so gasUsed x gasPrice is
 * what the transaction cost, as on EVM); a sweep shows the energy and bandwidth its
 * transactions used. A Tron transaction carries no EVM fee fields.
 */
export const tronFees: FeeReport = {
  ofReceipt: feeAsUnits,
  usage: (receipts) => sumDetails(receipts, ['energyUsed', 'bandwidthUsed']),
  ofNetwork: (_network: NetworkData) => NO_SIGNED_FEES,
};

/** The contract result (OUT_OF_ENERGY, REVERT, ...) and the node's message, in words. */
function failureOf(result: string | undefined, message: unknown): string {
  const code = result ?? 'FAILED';
  if (typeof message !== 'string' || message === '') return code;
  // java-tron prints the message as hex unless asked for `visible` output.
  const decoded = /^([0-9a-fA-F]{2})+$/.test(message) ? Buffer.from(message, 'hex').toString('utf8') : message;
  const words = /^[\x20-\x7e]*$/.test(decoded) ? decoded : message;
  return `${code}: ${words.slice(0, 200)}`;
}
