/**
 * A Tron transaction's receipt in the seam's terms (chains/types.ts, Receipt), read from
 * /wallet/gettransactioninfobyid and its block's id. Used by TronSender.findLanded; the
 * adapter's getReceipt can answer with it too.
 */
import type { Receipt } from '../types.js';
import type { TronNode } from './node.js';
import { bandwidthOf } from './tx.js';

type Json = Record<string, unknown>;

/**
 * A landed transaction's receipt (/wallet/gettransactioninfobyid, then its block's id), null
 * while it is in no block. gasUsed is the fee burned in sun and effectiveGasPrice 1, so
 * gasUsed x effectiveGasPrice is what it cost, as on EVM.
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
  const failed = info.result === 'FAILED' || (result !== undefined && result !== 'SUCCESS');
  return {
    status: failed ? 'reverted' : 'success',
    blockNumber,
    blockHash: block.blockID,
    gasUsed: BigInt((info.fee as number | string | undefined) ?? 0),
    effectiveGasPrice: 1n,
    ...(failed ? { failure: failureOf(result, info.resMessage) } : {}),
    // Energy from stake, burned or paid by the contract's owner; bandwidth = the transaction's
    // bytes (signed size + 64), whether from stake, the free allowance or burned.
    energyUsed: BigInt(receipt.energy_usage_total ?? 0),
    ...(typeof tx.raw_data_hex === 'string' ? { bandwidthUsed: bandwidthOf(tx.raw_data_hex.length / 2) } : {}),
  };
}

/** The contract result (OUT_OF_ENERGY, REVERT, ...) and the node's message, in words. */
function failureOf(result: string | undefined, message: unknown): string {
  const code = result ?? 'FAILED';
  if (typeof message !== 'string' || message === '') return code;
  // java-tron prints the message as hex unless asked for `visible` output.
  const decoded = /^([0-9a-fA-F]{2})+$/.test(message) ? Buffer.from(message, 'hex').toString('utf8') : message;
  const words = /^[\x20-\x7e]*$/.test(decoded) ? decoded : message;
  return `${code}: ${words.slice(0, 200)}`;
}
