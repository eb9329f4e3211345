import type { FeeEstimate } from '../../chains/types.js';
import type { ChainHandle } from '../catalogue/service.js';

/**
 * The chain's fee estimate, shared for a second: fees move once per block, and a burst of
 * withdrawals (or of sends in the worker) would otherwise make two RPC calls each for the
 * same answer. A failure is not remembered. Replacements read the chain afresh: a bump
 * must clear the current fees.
 */
export class FeeCache {
  readonly #entries = new Map<string, { at: number; fees: Promise<FeeEstimate> }>();

  constructor(private readonly ttlMs = 1_000) {}

  get(chain: ChainHandle): Promise<FeeEstimate> {
    const hit = this.#entries.get(chain.id);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.fees;
    const fees = chain.adapter.estimateFees();
    const entry = { at: Date.now(), fees };
    this.#entries.set(chain.id, entry);
    fees.catch(() => this.#entries.get(chain.id) === entry && this.#entries.delete(chain.id));
    return fees;
  }
}
