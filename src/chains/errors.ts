/**
 * Typed chain errors: what a node said, as the lifecycle needs to know it, in every family.
 * Modules act on `reason` (never on a node's wording, which differs between node software and
 * versions); the family's adapter maps its node's answers onto these reasons.
 *
 * Each error keeps a short message for logs and API answers, optional details (the node's own
 * words), and the cause chain (`walk` finds the first cause matching a test), so nothing the
 * node said is lost while nothing above the seam parses it.
 */
import { AppError } from '../lib/errors.js';

/**
 * Why a node refused a transaction:
 * - `reverted`: it would fail (or failed) when executed; it will not succeed as made.
 * - `sequence-used`: its ordering slot is taken by another transaction (EVM: the nonce).
 * - `fee-too-low`: its fee is below what the chain asks now (EVM: the base fee).
 * - `replacement-underpriced`: a replacement's fee is not enough above the one it replaces.
 * - `insufficient-funds`: the sender cannot pay the value and the fee.
 * - `expired`: its validity window is over (Tron: expiration; Solana: the blockhash).
 * - `invalid`: malformed, wrong chain, oversized: it will never be accepted as it is.
 * - `refused`: anything else the node refused.
 */
export type RejectionReason =
  'reverted' | 'nonce-used' | 'fee-too-low' | 'replacement-underpriced' | 'insufficient-funds' | 'expired' | 'invalid' | 'refused';

/** Reasons that time can cure: funds arrive, fees fall, a replacement gets its turn. */
const RETRYABLE: ReadonlySet<RejectionReason> = new Set(['insufficient-funds', 'fee-too-low', 'replacement-underpriced']);

/** A node refused what we asked (code CHAIN_REJECTED; 422 when it reaches a client). */
export class ChainRejectedError extends AppError {
  readonly reason: RejectionReason;
  /** The part of the message without the node's own words. */
  readonly shortMessage: string;
  /** What the node said, verbatim (trimmed), when it said something. */
  readonly nodeMessage: string | undefined;

  constructor(reason: RejectionReason, shortMessage: string, opts: { nodeMessage?: string; cause?: unknown } = {}) {
    const detail = opts.nodeMessage ? `: ${opts.nodeMessage.slice(0, 500)}` : '';
    super('CHAIN_REJECTED', `${shortMessage}${detail}`, { retryable: RETRYABLE.has(reason), cause: opts.cause });
    this.reason = reason;
    this.shortMessage = shortMessage;
    this.nodeMessage = opts.nodeMessage?.slice(0, 500);
  }

  /** The first error of the cause chain (this one included) that `test` accepts. */
  walk(test: (err: unknown) => boolean): unknown {
    return walk(this, test);
  }
}

/** The first error of `err`'s cause chain (itself included) that `test` accepts; null when none. */
export function walk(err: unknown, test: (err: unknown) => boolean): unknown {
  const seen = new Set<unknown>();
  for (let e: unknown = err; e !== undefined && e !== null && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    if (test(e)) return e;
    seen.add(e);
  }
  return null;
}

/** The reason of a chain rejection anywhere in `err`'s cause chain; null for any other error. */
export function rejectionReason(err: unknown): RejectionReason | null {
  const found = walk(err, (e) => e instanceof ChainRejectedError);
  return found instanceof ChainRejectedError ? found.reason : null;
}
