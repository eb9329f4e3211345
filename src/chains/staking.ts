/**
 * The seam's staking side (chains/types.ts re-exports it): an optional capability of a
 * family whose native coin can be staked for the resources its transactions otherwise burn
 * (Tron's Stake 2.0: staked TRX gives ENERGY, which TRC-20 transfers use, or BANDWIDTH).
 * A family without it is refused with 422 NOT_SUPPORTED by capability(adapter, 'staking').
 *
 * Every operation is one transaction of the owner, sent by the outbound pipeline like any
 * other: a native transfer of 0 from the owner to itself whose network data (`network`)
 * says what it does, so the family builds, checks and signs exactly that operation. Amounts
 * are base units of the native coin (sun).
 */
import type { NetworkData } from './sending.js';

export type StakeResource = 'ENERGY' | 'BANDWIDTH';

export type StakingOperation =
  /** Stake `amount` for `resource`, or start unstaking it (it unlocks after the chain's period). */
  | { action: 'stake' | 'unstake'; resource: StakeResource; amount: bigint }
  /** Put every pending unstake back into its stake (what already unlocked is paid out), or pay out what unlocked. */
  | { action: 'restake' | 'withdraw' };

/** What the owner's stake of one resource is now. */
export interface StakePosition {
  resource: StakeResource;
  /** Staked by the owner and not lent to another account. */
  staked: bigint;
  /** Staked by the owner and lent (delegated) to other accounts. */
  delegated: bigint;
  /** What the owner could lend now (the stake not in use): what the sweep's lending draws on. */
  lendable: bigint;
  /** The resource the stake (and what others lent the owner) gives per day: energy units, bandwidth bytes. */
  limit: bigint;
  used: bigint;
}

/** An unstake waiting for its unlock time. */
export interface Unlocking {
  resource: StakeResource;
  amount: bigint;
  unlocksAt: Date;
}

export interface StakingState {
  /** The native coin the owner holds, unstaked. */
  balance: bigint;
  positions: StakePosition[];
  /** Unstakes not yet withdrawn, oldest first; those whose unlock time the chain's head passed can be withdrawn. */
  unlocking: Unlocking[];
  /** The chain's head time, against which unlock times are judged. */
  headTime: Date;
  /** How long an unstake waits before it can be withdrawn (ms). */
  unlockPeriodMs: number;
}

/** What a mined operation did, as the chain reports it. */
export interface StakingOutcome {
  /** Native coin paid out to the balance (withdraw; a restake pays out what had unlocked). */
  withdrawn: bigint;
  /** Put back into each resource's stake (restake). */
  restaked: Record<StakeResource, bigint>;
  /** When an unstake it made unlocks (the chain's time when it ran, plus the unlock period). */
  unlocksAt: Date;
}

export interface Staking {
  readonly resources: readonly StakeResource[];
  /** The smallest stake the chain accepts (Tron: 1 TRX). */
  readonly minimumStake: bigint;
  /** How many unstakes may wait for their unlock at once (Tron: 32); another unstake is refused until one unlocks. */
  readonly maxUnlocking: number;
  state(owner: string): Promise<StakingState>;
  /** The network data of the owner's transaction that makes `op` (see the header). */
  network(op: StakingOperation): NetworkData;
  /** What the mined transaction `hash` of an operation did. */
  outcome(hash: string): Promise<StakingOutcome>;
}
