import { describe, expect, it } from 'vitest';
import { BalanceBatcher } from './balance-batcher.js';
import type { BalanceQuery } from './types.js';

function recorder(delayMs = 5) {
  const calls: BalanceQuery[][] = [];
  const read = async (queries: BalanceQuery[]) => {
    calls.push(queries);
    await new Promise((r) => setTimeout(r, delayMs));
    return queries.map((q) => BigInt(q.owner.length) * 1000n + BigInt(q.token?.length ?? 0));
  };
  return { calls, read };
}

describe('BalanceBatcher', () => {
  it('sends calls of one turn as one batch, identical pairs once, and answers each caller in order', async () => {
    const { calls, read } = recorder();
    const b = new BalanceBatcher(read);
    const [x, y, z] = await Promise.all([
      b.load([
        { owner: '0xAA', token: '0xT' },
        { owner: '0xAA', token: null },
      ]),
      b.load([{ owner: '0xaa', token: '0xt' }]),
      b.load([{ owner: '0xBBB', token: '0xT' }]),
    ]);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toHaveLength(3);
    expect(x).toEqual([4003n, 4000n]);
    expect(y).toEqual([4003n]);
    expect(z).toEqual([5003n]);
  });

  it('reads base58 owners that differ only in case separately (two addresses, not one)', async () => {
    const { calls, read } = recorder();
    const b = new BalanceBatcher(read);
    const owner = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
    await Promise.all([b.load([{ owner, token: null }]), b.load([{ owner: owner.toLowerCase(), token: null }])]);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.map((q) => q.owner)).toEqual([owner, owner.toLowerCase()]);
  });

  it('queues calls made during a read and sends them together after it', async () => {
    const { calls, read } = recorder(20);
    const b = new BalanceBatcher(read, { maxBatch: 300, maxInFlight: 1 });
    const first = b.load([{ owner: '0x1', token: null }]);
    await new Promise((r) => setImmediate(r));
    const later = Promise.all([b.load([{ owner: '0x2', token: null }]), b.load([{ owner: '0x3', token: null }])]);
    await Promise.all([first, later]);
    expect(calls.map((c) => c.length)).toEqual([1, 2]);
  });

  it('fails every caller of a failed batch, and recovers for the next', async () => {
    let fail = true;
    const b = new BalanceBatcher(async (q) => {
      if (fail) throw new Error('rpc down');
      return q.map(() => 1n);
    });
    await expect(Promise.all([b.load([{ owner: '0x1', token: null }]), b.load([{ owner: '0x2', token: null }])])).rejects.toThrow(
      'rpc down',
    );
    fail = false;
    await expect(b.load([{ owner: '0x1', token: null }])).resolves.toEqual([1n]);
  });

  it("fails only the callers of a query that failed alone: another caller's reads in the same batch are answered", async () => {
    const calls: BalanceQuery[][] = [];
    const b = new BalanceBatcher(async (queries) => {
      calls.push(queries);
      return queries.map((q) => (q.token === '0xBAD' ? new Error('balanceOf of 0xBAD reverted') : 7n));
    });
    const [mine, theirs, alsoBad] = await Promise.allSettled([
      b.load([{ owner: '0x1', token: '0xT' }]),
      b.load([
        { owner: '0x2', token: '0xBAD' },
        { owner: '0x2', token: null },
      ]),
      b.load([{ owner: '0x3', token: '0xBAD' }]),
    ]);
    expect(calls).toHaveLength(1);
    expect(mine).toEqual({ status: 'fulfilled', value: [7n] });
    expect(theirs).toMatchObject({ status: 'rejected', reason: { message: 'balanceOf of 0xBAD reverted' } });
    expect(alsoBad).toMatchObject({ status: 'rejected', reason: { message: 'balanceOf of 0xBAD reverted' } });
  });
});
