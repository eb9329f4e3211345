/**
 * What a sweep records: why it ended before it started, and the threshold in base units.
 */
import { parseAmount } from '../../lib/money.js';

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
