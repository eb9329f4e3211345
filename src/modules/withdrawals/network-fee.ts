/**
 * The answer of POST .../withdraw/network-fee, in the shape the described service documents
 * (`networkFee`, `nativeBalance`, `nativeBalanceInUSD`), with `fees` per item and
 * `totalNetworkFee` for a batch, and this service's earlier names `fee` and `balance` kept
 * as deprecated aliases for one version (docs/api.md, Compatibility).
 */
import { formatAmount } from '../../lib/money.js';
import { feeOf, type GasPlan } from './funds.js';

export interface NetworkFeeAnswer {
  networkFee: string;
  nativeBalance: string;
  /** null while no rate source prices the native coin (the service never invents a rate). */
  nativeBalanceInUSD: string | null;
  fees?: string[];
  totalNetworkFee?: string;
  /** Deprecated: networkFee. */
  fee: string;
  /** Deprecated: nativeBalance. */
  balance: string;
}

export function networkFeeAnswer(
  plan: GasPlan,
  count: number,
  native: bigint,
  decimals: number,
  batch: boolean,
  /** The native balance in USD at the rate source's quote (rates/service.ts); null without one. */
  nativeUsd: string | null = null,
): NetworkFeeAnswer {
  const each = Array.from({ length: count }, (_x, i) => feeOf(plan, i));
  const total = formatAmount(
    each.reduce((a, b) => a + b, 0n),
    decimals,
  );
  const balance = formatAmount(native, decimals);
  return {
    networkFee: total,
    nativeBalance: balance,
    nativeBalanceInUSD: nativeUsd,
    ...(batch ? { fees: each.map((f) => formatAmount(f, decimals)), totalNetworkFee: total } : {}),
    fee: total,
    balance,
  };
}
