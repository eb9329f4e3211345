/**
 * What a sweep records: why it ended before it started, the threshold in base units, the
 * network data its transfer is signed with.
 */
import type { NetworkData } from '../../chains/types.js';
import { parseAmount } from '../../lib/money.js';

/** Why a sweep ended before it started (deposit.swept.failed's `assetSweptResponse.error`). */
export const GONE = 'The address no longer holds this asset: it was moved before the sweep ran (e.g. withdrawn from the address)';
export const GONE_PENDING =
  'The sweep transfer would fail on chain: the balance is being moved by another transaction (e.g. a withdrawal from the address) or the token refuses it';
export const GONE_NATIVE =
  "The address's balance no longer covers the sweep's network fee: it was moved before the sweep ran (e.g. withdrawn from the address)";
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
