import { describe, expect, it } from 'vitest';
import { withDeadline } from './deadline.js';

describe('withDeadline', () => {
  it('gives the read when it ends in time, its failure as it is', async () => {
    expect(await withDeadline(Promise.resolve(7), 1_000, () => new Error('late'))).toBe(7);
    await expect(withDeadline(Promise.reject(new Error('own')), 1_000, () => new Error('late'))).rejects.toThrow('own');
  });

  it("gives late()'s error once the time is up, and a later failure of the read goes nowhere", async () => {
    let fail!: (e: Error) => void;
    const read = new Promise<number>((_r, reject) => (fail = reject));
    await expect(withDeadline(read, 20, () => new Error('late'))).rejects.toThrow('late');
    fail(new Error('after')); // no unhandled rejection: the test run would report one
    await new Promise((r) => setTimeout(r, 10));
  });
});
