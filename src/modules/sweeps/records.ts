/**
 * What a sweep records: why it ended before it started, and the threshold in base units.
 */
/** Why a sweep ended before it started (deposit.swept.failed's `assetSweptResponse.error`). */
export const GONE = 'The address no longer holds this asset: it was moved before the sweep ran (e.g. withdrawn from the address)';
export const GONE_PENDING =
  'The sweep transfer would fail on chain: the balance is being moved by another transaction (e.g. a withdrawal from the address) or the token refuses it';
export const GONE_NATIVE =
  "The address's balance no longer covers the sweep's network fee: it was moved before the sweep ran (e.g. withdrawn from the address)";
export const HELD = "The address's balance is held by its own spends in flight (withdrawals not yet settled)";
export const KEY_GONE = 'The service no longer holds the key of this address: it was removed from the wallet before the sweep ran';

/**
 * The wallet's threshold (a JSON number in asset units, as the spec has it) in base units,
 * read from the number's shortest decimal text, which is what the client wrote: 0.1 is
 * "0.1", not the double's 0.1000000000000000055... (toFixed(18) gave 100000000000000006
 * base units of an 18-decimal coin, so a deposit of exactly 0.1 did not reach it). A deposit reaches the threshold
 * when amount >= threshold, so digits past the asset's decimals round up.
 */
export function thresholdUnits(threshold: number, decimals: number): bigint {
  if (!(threshold > 0) || !Number.isFinite(threshold)) return 0n;
  // String() of a positive finite number: "123.45", "1e-7", "1.5e+21".
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(threshold));
  if (!m) return 0n;
  const digits = m[1]! + (m[2] ?? '');
  // How many of `digits` lie after the decimal point (negative: zeros to append).
  const fractionDigits = (m[2]?.length ?? 0) - Number(m[3] ?? 0);
  const shift = decimals - fractionDigits;
  if (shift >= 0) return BigInt(digits) * 10n ** BigInt(shift);
  const unit = 10n ** BigInt(-shift);
  const units = BigInt(digits);
  return units / unit + (units % unit === 0n ? 0n : 1n);
}
