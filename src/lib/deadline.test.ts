import { describe, expect, it } from 'vitest';
import { withDeadline } from './deadline.js';

describe('withDeadline', () => {
  it('gives the read when it ends in time, its failure as it is', async () => {
    expect(await withDeadline(Promise.resolve(7), 1_000, () => new Error('late'))).toBe(7);
    await expect(withDeadline(Promise.reject(new Error('own')), 1_000, () => new Error('late'))).rejects.toThrow('own');
  });

  it("gives late()'s error once the time is up, though the read never ends", async () => {
    const never = new Promise<number>(() => undefined);
    await expect(withDeadline(never, 20, () => new Error('late'))).rejects.toThrow('late');
  });
});
