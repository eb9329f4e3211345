import { Type, type Static } from '@sinclair/typebox';
import { JsonObject, Nullable, Timestamp } from '../../lib/schema.js';

const Amount = Type.String({ maxLength: 160, description: 'decimal string in the native coin (TRX), greater than 0, e.g. "100.5"' });
const Resource = Type.Union([Type.Literal('ENERGY'), Type.Literal('BANDWIDTH')], {
  description: 'ENERGY (used by TRC-20 transfers and other contract calls) or BANDWIDTH (transaction bytes)',
});
const Reference = Type.String({ minLength: 1, maxLength: 100, description: 'client reference' });

/** Stake or unstake: an amount of the native coin for a resource. */
export const StakeBody = Type.Object(
  { amount: Amount, resource: Resource, reference: Type.Optional(Reference), metadata: Type.Optional(JsonObject) },
  { additionalProperties: false },
);
export type StakeBody = Static<typeof StakeBody>;

/** Restake (cancel every pending unstake) and withdraw (what unlocked): nothing to choose. */
export const StakingActionBody = Type.Object(
  { reference: Type.Optional(Reference), metadata: Type.Optional(JsonObject) },
  { additionalProperties: false },
);
export type StakingActionBody = Static<typeof StakingActionBody>;

const Coin = Type.String({ description: 'native coin (TRX), decimal string' });
const Units = Type.String({ description: 'energy units or bandwidth bytes a day' });

export const StakingSchema = Type.Object({
  address: Type.String({ description: 'the master address whose stake this is' }),
  blockchain: Type.String({ description: 'the chain slug' }),
  balance: Coin,
  totalStaked: Coin,
  unlockPeriodDays: Type.Number(),
  positions: Type.Array(
    Type.Object({
      resource: Resource,
      staked: Type.String({ description: 'staked and held by the master (TRX)' }),
      delegated: Type.String({ description: 'staked and lent to other accounts (TRX), e.g. to children by sweeps' }),
      lendable: Type.String({ description: 'what the master can lend now (TRX): what the sweep lends children' }),
      resourceLimit: Units,
      resourceUsed: Units,
    }),
  ),
  unlocking: Type.Array(
    Type.Object({
      resource: Resource,
      amount: Coin,
      unlocksAt: Timestamp,
      unlocked: Type.Boolean({ description: 'past its unlock time: POST .../staking/withdraw pays it out' }),
    }),
  ),
  withdrawable: Type.String({ description: 'unlocked and not yet withdrawn (TRX)' }),
  nextUnlockAt: Nullable(Timestamp),
});
export type StakingView = Static<typeof StakingSchema>;

/** The routes' documentation, beside the fields it names (the resources are the public API's values). */
export const STAKING_READ_HELP =
  "Extension. Read on chain: what is staked and lent per resource (ENERGY, BANDWIDTH), the energy or bandwidth it gives a day (`resourceLimit`, `resourceUsed`), what the master can lend children now (`lendable`: what sweeps lend), each unstake with `unlocksAt` (judged against the head block's time) and `withdrawable`. Other chains answer 422 NOT_SUPPORTED.";
export const STAKE_SUMMARY = 'Stake the native coin for ENERGY or BANDWIDTH';
