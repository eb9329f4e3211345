import { describe, expect, it } from 'vitest';
import { isUuid, uuidv7 } from './ids.js';

describe('uuidv7', () => {
  it('is a valid version-7 UUID', () => {
    const id = uuidv7();
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe('7');
    expect(['8', '9', 'a', 'b']).toContain(id[19]);
  });

  it('is strictly increasing within one millisecond and across 10,000 ids', () => {
    const ids = Array.from({ length: 10_000 }, () => uuidv7(1_800_000_000_000));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
