/**
 * The seam's neutral receipt and how a family shows what a transaction cost (chains/types.ts
 * re-exports it). Every family answers the same shape: where the transaction landed, whether
 * it did what it was sent for, and what it cost its fee payer in the native coin's base
 * units. What only one family measures (EVM gas and its price, Tron energy and bandwidth,
 * Solana rent) travels as `details`, opaque above the seam and stored as it is (JSON), and
 * the family alone turns it into the public fields (FeeReport).
 */
import type { NetworkData } from './network-data.js';

/** A block a transaction or a transfer landed in. */
export interface BlockPointer {
  number: bigint;
  hash: string;
}

/** A family's own figures of one receipt: JSON-safe, integers as decimal strings. */
export type ReceiptDetails = Readonly<Record<string, string>>;

export interface Receipt {
  status: 'success' | 'reverted';
  block: BlockPointer;
  /**
   * What the transaction cost its fee payer, in base units of the native coin, all of it:
   * EVM gas used x effective price; Tron the TRX burned for energy, bandwidth and an
   * activation; Solana the fee and the rent of accounts it opened.
   */
  fee: bigint;
  /**
   * Why the chain says a reverted transaction failed, when it says more than "reverted"
   * (Tron: the contract result and message, e.g. OUT_OF_ENERGY); recorded as its reason.
   */
  failure?: string;
  /** The family's figures (EVM gasUsed, effectiveGasPrice; Tron energyUsed, bandwidthUsed; Solana rentPaid, rentReclaimed). */
  details: ReceiptDetails;
}

/**
 * The fee fields of the public records (the Transaction, contract-call responses and sweep
 * responses), named as the API names them. A family maps its own figures onto them; modules
 * pass them through without reading their parts.
 */
export interface FeeReport {
  /**
   * A receipt's Transaction `gasUsed` and `gasPrice`, with gasUsed x gasPrice = receipt.fee:
   * EVM gas and its effective price; a family that does not count its fee in units (Tron,
   * Solana) the fee itself and 1.
   */
  ofReceipt(receipt: Receipt): { gasUsed: bigint; gasPrice: bigint };
  /**
   * What several receipts used besides their fees, summed, as a sweep's response shows it
   * (decimal strings): Tron energyUsed and bandwidthUsed, Solana rentPaid and rentReclaimed;
   * {} on families that report nothing more (EVM).
   */
  usage(receipts: readonly Receipt[]): Record<string, string>;
  /**
   * The fee fields a signed transaction shows (sign-only withdrawals and contract calls, the
   * record of a withdrawal): always the same three keys, null where the family has none.
   */
  ofNetwork(network: NetworkData): SignedFeeFields;
}

/** The public fee fields of a signed transaction (decimal strings; null where the family has none). */
export interface SignedFeeFields {
  gasLimit: string | null;
  maxFeePerGas: string | null;
  maxPriorityFeePerGas: string | null;
}

/** SignedFeeFields of a family whose transactions carry none of them (Tron, Solana). */
export const NO_SIGNED_FEES: SignedFeeFields = Object.freeze({ gasLimit: null, maxFeePerGas: null, maxPriorityFeePerGas: null });

/** ofReceipt of a family whose fee is not counted in units: the fee, at a price of 1. */
export const feeAsUnits = (receipt: Receipt): { gasUsed: bigint; gasPrice: bigint } => ({ gasUsed: receipt.fee, gasPrice: 1n });

/**
 * `keys` of several receipts' details summed (missing ones count 0), as decimal strings, in
 * `keys` order; a key none of them carries is left out, and so is a 0 when `skipZero`.
 */
export function sumDetails(receipts: readonly Receipt[], keys: readonly string[], skipZero = false): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of keys) {
    const present = receipts.filter((r) => r.details[key] !== undefined);
    const total = present.reduce((sum, r) => sum + BigInt(r.details[key]!), 0n);
    if (present.length > 0 && !(skipZero && total === 0n)) out[key] = total.toString();
  }
  return out;
}
