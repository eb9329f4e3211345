import { describe, expect, it } from 'vitest';
import { ChainRejectedError, rejectionReason, walk } from './errors.js';

describe('typed chain errors', () => {
  it('keeps the short message, the node words and the cause chain apart', () => {
    const node = new Error('nonce too low: next nonce 5, tx nonce 3');
    const err = new ChainRejectedError('nonce-used', 'transaction 0xab rejected', { nodeMessage: node.message, cause: node });
    expect(err.code).toBe('CHAIN_REJECTED');
    expect(err.shortMessage).toBe('transaction 0xab rejected');
    expect(err.message).toBe('transaction 0xab rejected: nonce too low: next nonce 5, tx nonce 3');
    expect(err.walk((e) => e === node)).toBe(node);
    expect(err.retryable).toBe(false);
  });

  it('marks only what time can cure as retryable', () => {
    expect(new ChainRejectedError('fee-too-low', 'x').retryable).toBe(true);
    expect(new ChainRejectedError('insufficient-funds', 'x').retryable).toBe(true);
    expect(new ChainRejectedError('replacement-underpriced', 'x').retryable).toBe(true);
    for (const r of ['reverted', 'nonce-used', 'expired', 'invalid', 'refused'] as const) {
      expect(new ChainRejectedError(r, 'x').retryable).toBe(false);
    }
  });

  it('finds the reason anywhere in a cause chain, and nothing in other errors', () => {
    const inner = new ChainRejectedError('reverted', 'gas estimation refused');
    const outer = new Error('sweep failed', { cause: inner });
    expect(rejectionReason(outer)).toBe('reverted');
    expect(rejectionReason(new Error('socket hang up'))).toBeNull();
    expect(rejectionReason({ code: 'CHAIN_REJECTED', reason: 'reverted' })).toBeNull(); // shaped alike is not enough
    expect(rejectionReason(undefined)).toBeNull();
  });

  it('walk stops on a cyclic cause chain', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(walk(a, () => false)).toBeNull();
  });
});
