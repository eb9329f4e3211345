/**
 * TEST DOUBLE, part of the abacus family: its receipts as the seam's neutral one, and how
 * they show on the public records (a flat fee: gasUsed 1 at a price of the fee).
 */
import { NO_SIGNED_FEES, type FeeReport, type Receipt } from '../../../src/chains/receipts.js';
import type { AbacusReceipt } from './chain.js';

export function receiptOf(r: AbacusReceipt): Receipt {
  return { status: 'success', block: { number: r.block, hash: r.blockHash }, fee: r.fee, details: {} };
}

export const abacusFees: FeeReport = {
  ofReceipt: (r) => ({ gasUsed: 1n, gasPrice: r.fee }),
  usage: () => ({}),
  ofNetwork: () => NO_SIGNED_FEES,
};
