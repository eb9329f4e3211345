import { describe, expect, it } from 'vitest';
import { landedFailed } from './receipt.js';

describe('a landed Tron transaction, failed or not (gettransactioninfobyid)', () => {
  it('DEFAULT (a system contract, printed by a node that prints defaults) and SUCCESS are no failure; absent neither', () => {
    expect(landedFailed(undefined, 'DEFAULT')).toBe(false);
    expect(landedFailed(undefined, 'SUCCESS')).toBe(false);
    expect(landedFailed(undefined, undefined)).toBe(false);
    expect(landedFailed(undefined, null)).toBe(false);
  });

  it('any other contract result, or the transaction FAILED, is a failure', () => {
    for (const result of ['REVERT', 'OUT_OF_ENERGY', 'OUT_OF_TIME', 'TRANSFER_FAILED']) expect(landedFailed(undefined, result)).toBe(true);
    expect(landedFailed('FAILED', undefined)).toBe(true);
    expect(landedFailed('FAILED', 'DEFAULT')).toBe(true);
  });
});
