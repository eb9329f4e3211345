import { describe, expect, it } from 'vitest';
import { minedOfRecord, minedRecord } from './mined-record.js';

describe('a mined transaction as an owner keeps it (minedRecord)', () => {
  it('is JSON-safe strings, read back to the same figures', () => {
    const mined = { hash: '0xabc', block: { number: 12n, hash: '0xdef' }, gasUsed: 21_000n, gasPrice: 3n * 10n ** 9n };
    const record = minedRecord(mined);
    // The layout swap and auto-settlement plans store (plan.mined; migrations 034 and 045).
    expect(record).toEqual({ hash: '0xabc', block: { number: '12', hash: '0xdef' }, gasUsed: '21000', gasPrice: '3000000000' });
    expect(minedOfRecord(JSON.parse(JSON.stringify(record)))).toEqual(mined);
  });
});
