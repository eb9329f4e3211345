import { describe, expect, it } from 'vitest';
import { makeAjv } from './ajv.js';

describe('makeAjv: date-time', () => {
  const valid = makeAjv(true).compile({ type: 'string', format: 'date-time' });

  it('takes RFC 3339 times JavaScript can hold', () => {
    for (const s of ['2026-01-01T00:00:00Z', '2026-06-30T23:59:59.999Z', '2026-01-01T00:00:00.123+02:00']) expect(valid(s), s).toBe(true);
  });

  it('refuses a leap second (RFC 3339 allows it; Date.parse cannot hold it) and impossible dates', () => {
    for (const s of ['2026-01-01T23:59:60Z', '2026-06-30T23:59:60.5Z', '2026-02-30T00:00:00Z', 'today']) expect(valid(s), s).toBe(false);
  });
});
