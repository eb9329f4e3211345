import { describe, expect, it } from 'vitest';
import type { StakingState } from '../../chains/types.js';
import { pendingState } from './service.js';

const head = new Date('2026-12-01T00:00:00Z');
const DAY = 86_400_000;
const position = (resource: 'ENERGY' | 'BANDWIDTH', staked: bigint) => ({
  resource,
  staked,
  delegated: 0n,
  lendable: staked,
  limit: 0n,
  used: 0n,
});
const state: StakingState = {
  balance: 100n,
  positions: [position('ENERGY', 10n), position('BANDWIDTH', 4n)],
  unlocking: [
    { resource: 'ENERGY', amount: 3n, unlocksAt: new Date(head.getTime() - DAY) }, // unlocked
    { resource: 'ENERGY', amount: 2n, unlocksAt: new Date(head.getTime() + DAY) }, // waiting
  ],
  headTime: head,
  unlockPeriodMs: 14 * DAY,
};

describe('pendingState: the chain as the operations on their way will leave it', () => {
  it('nothing on its way: the state as read', () => {
    expect(pendingState(state, [])).toEqual(state);
  });

  it('an unstake leaves its resource only, and waits its unlock period', () => {
    const after = pendingState(state, [{ type: 'UNSTAKING', amount: '6', resource: 'ENERGY' }]);
    expect(after.positions.map((p) => [p.resource, p.staked])).toEqual([
      ['ENERGY', 4n],
      ['BANDWIDTH', 4n],
    ]);
    expect(after.unlocking).toHaveLength(3);
    expect(after.unlocking[2]).toEqual({ resource: 'ENERGY', amount: 6n, unlocksAt: new Date(head.getTime() + 14 * DAY) });
    // More than is left of the stake: none of it, never below 0.
    expect(pendingState(after, [{ type: 'UNSTAKING', amount: '9', resource: 'ENERGY' }]).positions[0]!.staked).toBe(0n);
  });

  it('a restake takes every unstake back; a withdrawal takes what unlocked; a stake adds nothing yet', () => {
    expect(pendingState(state, [{ type: 'RESTAKING', amount: '5', resource: null }]).unlocking).toEqual([]);
    expect(pendingState(state, [{ type: 'UNSTAKING_WITHDRAW', amount: '3', resource: null }]).unlocking).toEqual([state.unlocking[1]]);
    expect(pendingState(state, [{ type: 'STAKING', amount: '50', resource: 'ENERGY' }])).toEqual(state);
  });
});
