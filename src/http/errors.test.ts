import { describe, expect, it } from 'vitest';
import { fromDatabase } from './errors.js';

describe('fromDatabase', () => {
  it('maps deadlocks, serialization failures and lock timeouts to a retryable 503', () => {
    for (const code of ['40P01', '40001', '55P03']) {
      expect(fromDatabase(Object.assign(new Error('x'), { code }))).toMatchObject({ status: 503, code: 'CONCURRENT_UPDATE' });
    }
  });
  it("maps pg-pool's give-up on a connection (POOL_WAIT_MS) to a retryable 503 DATABASE_BUSY", () => {
    expect(fromDatabase(new Error('timeout exceeded when trying to connect'))).toMatchObject({ status: 503, code: 'DATABASE_BUSY' });
  });
  it('leaves every other error alone', () => {
    for (const err of [new Error('x'), Object.assign(new Error('x'), { code: '23505' }), { code: 40001 }, null, undefined, 'text']) {
      expect(fromDatabase(err)).toBeNull();
    }
  });
});
