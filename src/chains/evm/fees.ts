/**
 * The EVM family's receipts and public fee fields (chains/receipts.ts): the fee is gas used x
 * the effective gas price, and the receipt keeps both as its details; the Transaction shows
 * them as gasUsed and gasPrice, and a signed transaction its gas limit and EIP-1559 fee caps.
 */
import type { BlockPointer, FeeReport, NetworkData, Receipt } from '../types.js';

/** EIP-1559's fee pair: the most a unit of gas may cost, and the tip in it. */
export interface FeeEstimate {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** A receipt of `gasUsed` gas at `effectiveGasPrice` wei each. */
export function evmReceipt(status: Receipt['status'], block: BlockPointer, gasUsed: bigint, effectiveGasPrice: bigint): Receipt {
  return {
    status,
    block,
    fee: gasUsed * effectiveGasPrice,
    details: { gasUsed: gasUsed.toString(), effectiveGasPrice: effectiveGasPrice.toString() },
  };
}

/** Gas and its price from a receipt's details (a receipt without them: its fee at a price of 1). */
function gasOf(receipt: Receipt): { gasUsed: bigint; gasPrice: bigint } {
  const { gasUsed, effectiveGasPrice } = receipt.details;
  if (gasUsed === undefined || effectiveGasPrice === undefined) return { gasUsed: receipt.fee, gasPrice: 1n };
  return { gasUsed: BigInt(gasUsed), gasPrice: BigInt(effectiveGasPrice) };
}

export const evmFees: FeeReport = {
  ofReceipt: gasOf,
  /** Gas says it all: nothing more to show. */
  usage: () => ({}),
  ofNetwork: (network: NetworkData) => ({
    gasLimit: network.gasLimit ?? null,
    // Both caps or neither: a cap alone is a client's gasPrice not yet completed with its tip.
    maxFeePerGas: network.maxPriorityFeePerGas !== undefined ? (network.maxFeePerGas ?? null) : null,
    maxPriorityFeePerGas: network.maxFeePerGas !== undefined ? (network.maxPriorityFeePerGas ?? null) : null,
  }),
};
