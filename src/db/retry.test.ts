import { describe, expect, it } from 'vitest';
import { retryOnDeadlock } from './pool.js';

const deadlock = () => Object.assign(new Error('deadlock detected'), { code: '40P01' });

describe('retryOnDeadlock', () => {
  it('runs the transaction again after a deadlock, up to the attempts given', async () => {
    let calls = 0;
    await expect(retryOnDeadlock(async () => (++calls < 3 ? Promise.reject(deadlock()) : 'done'))).resolves.toBe('done');
    expect(calls).toBe(3);
    calls = 0;
    await expect(retryOnDeadlock(async () => (++calls, Promise.reject(deadlock())), 2)).rejects.toMatchObject({ code: '40P01' });
    expect(calls).toBe(2);
  });
  it('never repeats on any other error', async () => {
    let calls = 0;
    await expect(retryOnDeadlock(async () => (++calls, Promise.reject(Object.assign(new Error('x'), { code: '23505' }))))).rejects.toThrow(
      'x',
    );
    expect(calls).toBe(1);
  });
});
