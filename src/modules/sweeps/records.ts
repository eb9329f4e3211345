/**
 * What a sweep records: why it ended before it started, the threshold in base units, the
 * network data its transfer is signed with, and the resources its transactions used.
 */
import type { NetworkData } from '../../chains/types.js';
import { parseAmount } from '../../lib/money.js';
import type { OutboundRow } from '../outbound/service.js';

/** Why a sweep ended before it started (deposit.swept.failed's `assetSweptResponse.error`). */
export const GONE = 'The address no longer holds this asset: it was moved before the sweep ran (e.g. withdrawn from the address)';
export const GONE_PENDING =
  'The sweep transfer would fail on chain: the balance is being moved by another transaction (e.g. a withdrawal from the address) or the token refuses it';
export const GONE_NATIVE =
  "The address's balance no longer covers the sweep's network fee: it was moved before the sweep ran (e.g. withdrawn from the address)";
export const HELD = "The address's balance is held by its own spends in flight (withdrawals not yet settled)";
export const KEY_GONE = 'The service no longer holds the key of this address: it was removed from the wallet before the sweep ran';

/** The wallet's threshold (a number in asset units, as the spec has it) in base units. */
export function thresholdUnits(threshold: number, decimals: number): bigint {
  if (!(threshold > 0)) return 0n;
  // toFixed gives a plain decimal (never an exponent) for any threshold the schema allows.
  const text = threshold.toFixed(Math.min(decimals, 20)).replace(/\.?0+$/, '');
  return parseAmount(text === '' ? '0' : text, decimals, 'threshold');
}

/**
 * What the sweep row keeps to sign its transfer with: a family with EVM fee fields
 * (Sender.feeFields) keeps them in their columns, as always; another family keeps its quote's
 * fixed network data.
 */
export function sweepNetwork(
  f: { gasLimit: bigint | null; maxFeePerGas: bigint | null; maxPriorityFeePerGas: bigint | null },
  fixed: NetworkData,
) {
  if (f.gasLimit !== null) return { gasLimit: f.gasLimit, maxFeePerGas: f.maxFeePerGas!, maxPriorityFeePerGas: f.maxPriorityFeePerGas! };
  return { gasLimit: null, maxFeePerGas: null, maxPriorityFeePerGas: null, network: fixed };
}

/**
 * Resources the sweep's transactions used (Tron: energy, bandwidth bytes), the hashes of its
 * lend and give-back, and the rent they paid or got back (Solana token accounts), for
 * assetSweptResponse; nothing on families that report none (EVM).
 */
export function resourcesOf(steps: (OutboundRow | undefined)[], lend: OutboundRow | undefined, giveBack: OutboundRow | undefined) {
  const receipts = steps.map((r) => r?.receipt).filter((r) => r !== null && r !== undefined);
  const energy = receipts.filter((r) => r.energyUsed !== undefined);
  const bandwidth = receipts.filter((r) => r.bandwidthUsed !== undefined);
  const rentPaid = receipts.reduce((sum, r) => sum + (r.rentPaid ?? 0n), 0n);
  const rentReclaimed = receipts.reduce((sum, r) => sum + (r.rentReclaimed ?? 0n), 0n);
  return {
    ...(energy.length ? { energyUsed: energy.reduce((sum, r) => sum + r.energyUsed!, 0n).toString() } : {}),
    ...(bandwidth.length ? { bandwidthUsed: bandwidth.reduce((sum, r) => sum + r.bandwidthUsed!, 0n).toString() } : {}),
    ...(lend ? { lendHash: lend.hash, giveBackHash: giveBack?.hash ?? null } : {}),
    // Solana, base units: rent the master locked in a token account it opened (included in the
    // sweep's fee), and rent it got back from the child's emptied token account (not netted in the fee).
    ...(rentPaid > 0n ? { rentPaid: rentPaid.toString() } : {}),
    ...(rentReclaimed > 0n ? { rentReclaimed: rentReclaimed.toString() } : {}),
  };
}
