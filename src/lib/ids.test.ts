import { describe, expect, it } from 'vitest';
import { isUuid, shortReference, uuidv7 } from './ids.js';

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

describe('random parts (drawn from a pooled CSPRNG buffer)', () => {
  it('never repeat across pool refills: 20,000 ids of one millisecond differ in their random tail, references are distinct', () => {
    const tails = Array.from({ length: 20_000 }, () => uuidv7(1_900_000_000_000).slice(19));
    // The counter sits in bytes 6-7; bytes 8-15 (after the variant bits) are random.
    expect(new Set(tails.map((t) => t.slice(1))).size).toBe(tails.length);
    const refs = Array.from({ length: 20_000 }, () => shortReference());
    expect(new Set(refs).size).toBe(refs.length);
    for (const r of refs.slice(0, 100)) expect(r).toMatch(/^[A-Za-z0-9_-]{12}$/);
  });
});
