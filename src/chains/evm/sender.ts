/**
 * The EVM family's side of the outbound lifecycle (chains/types.ts, Sender): nonces, gas
 * limits with a margin, EIP-1559 fee quotes (one cache per chain), the replacement bump
 * rule, the 0-value self-transfer that fills or cancels a nonce, and finding which signed
 * version of a nonce was mined.
 */
import type { CallLimit, FeeEstimate, Receipt, Sender } from '../types.js';

/** Gas of a plain native transfer; the least any transaction uses. */
export const TRANSFER_GAS = 21_000n;

/** Gas limit = the node's estimate x this / 100 (rounded up): estimates move with state. */
export const GAS_MARGIN_PERCENT = 120n;

/**
 * Fees of a replacement: each field at least 10% above the original's (rounded up; nodes
 * refuse a same-nonce replacement below that, geth's default price bump) and at least the
 * chain's current estimate, so a transaction stuck behind a risen base fee gets unstuck.
 */
export const BUMP_PERCENT = 110n;

export function bumpFees(old: FeeEstimate, estimate: FeeEstimate): FeeEstimate {
  const up = (v: bigint) => (v * BUMP_PERCENT + 99n) / 100n;
  const max = (...vs: bigint[]) => vs.reduce((a, b) => (a > b ? a : b));
  const maxPriorityFeePerGas = max(up(old.maxPriorityFeePerGas), estimate.maxPriorityFeePerGas);
  const maxFeePerGas = max(up(old.maxFeePerGas), estimate.maxFeePerGas, maxPriorityFeePerGas);
  return { maxFeePerGas, maxPriorityFeePerGas };
}

/** What the sender needs of the node (the adapter's RPC calls, transport errors already mapped). */
export interface EvmNode {
  getNonce(address: string, blockTag: 'pending' | 'latest'): Promise<number>;
  estimateFees(): Promise<FeeEstimate>;
  estimateGas(tx: { from: string; to: string; value: bigint; data?: string }): Promise<bigint>;
  getReceipt(hash: string): Promise<Receipt | null>;
}

export class EvmSender implements Sender {
  readonly ordering = 'nonce' as const;
  readonly minLimit = TRANSFER_GAS;
  #fees: { at: number; fees: Promise<FeeEstimate> } | null = null;

  constructor(
    private readonly node: EvmNode,
    private readonly opts: { feeCacheMs?: number; gasMarginPercent?: bigint } = {},
  ) {}

  async nonceOf(address: string, which: 'pending' | 'latest'): Promise<bigint> {
    return BigInt(await this.node.getNonce(address, which));
  }

  /**
   * Fees move once per block, and a burst of withdrawals (or of sends in the worker) would
   * otherwise make two RPC calls each for the same answer. A failure is not remembered.
   */
  quoteFees(opts: { fresh?: boolean } = {}): Promise<FeeEstimate> {
    const hit = this.#fees;
    if (!opts.fresh && hit && Date.now() - hit.at < (this.opts.feeCacheMs ?? 1_000)) return hit.fees;
    const entry = { at: Date.now(), fees: this.node.estimateFees() };
    this.#fees = entry;
    entry.fees.catch(() => {
      if (this.#fees === entry) this.#fees = null;
    });
    return entry.fees;
  }

  async estimateLimit(call: { from: string; to: string; value: bigint; data?: string }): Promise<CallLimit> {
    const estimate = await this.node.estimateGas(call);
    return { estimate, limit: withMargin(estimate, this.opts.gasMarginPercent ?? GAS_MARGIN_PERCENT) };
  }

  replacementFees(previous: FeeEstimate, current: FeeEstimate): FeeEstimate {
    return bumpFees(previous, current);
  }

  maxCost(value: bigint, limit: bigint, fees: FeeEstimate): bigint {
    return value + limit * fees.maxFeePerGas;
  }

  voidCall(from: string) {
    return { to: from, value: 0n, data: null, limit: TRANSFER_GAS };
  }

  async findLanded(hashes: string[]): Promise<{ index: number; receipt: Receipt } | null> {
    for (const [index, hash] of hashes.entries()) {
      const receipt = await this.node.getReceipt(hash);
      if (receipt) return { index, receipt };
    }
    return null;
  }
}

export const withMargin = (gas: bigint, percent: bigint = GAS_MARGIN_PERCENT): bigint => (gas * percent + 99n) / 100n;
