// The system contracts the stand-in executes, each with java-tron's validation messages
// (the *Actuator classes): a TRX transfer with account activation, and Stake 2.0 staking
// and delegation (cancelling pending unstakes included). Validation failures are ContractValidateError: the broadcast answers
// CONTRACT_VALIDATE_ERROR and the ledger is rolled back to before the transaction.
import { isHex41, type Hex41 } from './address.js';
import { delegationKey, newAccount, type Account, type Delegation, type Ledger, type ResourceType } from './ledger.js';
import { DELEGATE_PERIOD_MS, SLOT_MS, SUN_PER_TRX, type TronChainParams } from './params.js';
import { increase, recovered, stakeInUse } from './resources.js';
import type { ContractValue } from './transactions.js';

export class ContractValidateError extends Error {}

export interface ActuatorContext {
  ledger: Ledger;
  params: TronChainParams;
  /** Head slot and head block time: what java-tron's actuators read as "now". */
  now: number;
  headTimestamp: number;
}

export interface ActuatorResult {
  /** Transaction.Result.fee: what the contract itself charged (account creation). */
  fee: number;
  withdrawExpireAmount?: number;
  /** CancelAllUnfreezeV2: sun put back into each resource's stake. */
  cancelUnfreezeV2Amount?: Record<'BANDWIDTH' | 'ENERGY' | 'TRON_POWER', number>;
}

const big = (v: unknown): bigint => BigInt(typeof v === 'number' || typeof v === 'string' ? v : 0);
const resourceOf = (v: ContractValue): ResourceType | 'TRON_POWER' | string => (v.resource as string | undefined) ?? 'BANDWIDTH';
const TRX = BigInt(SUN_PER_TRX);
const weight = (sun: bigint) => Number(sun / TRX);

function owner(ctx: ActuatorContext, v: ContractValue, missing: (hex: string) => string): Account {
  const a = ctx.ledger.account(v.owner_address as Hex41);
  if (!a) throw new ContractValidateError(missing(v.owner_address as string));
  return a;
}
const notExists = (hex: string) => `Account[${hex}] not exists`;
const doesNotExist = (hex: string) => `Account[${hex}] does not exist`;

/** Whether a TransferContract will create its recipient (BandwidthProcessor.contractCreateNewAccount). */
export function createsAccount(ctx: Pick<ActuatorContext, 'ledger'>, type: string, v: ContractValue): boolean {
  return type === 'TransferContract' && isHex41(v.to_address) && !ctx.ledger.account(v.to_address as string);
}

export function transfer(ctx: ActuatorContext, v: ContractValue): ActuatorResult {
  const to = v.to_address;
  const amount = big(v.amount);
  if (!isHex41(to)) throw new ContractValidateError('Invalid toAddress!');
  if (to === v.owner_address) throw new ContractValidateError('Cannot transfer TRX to yourself.');
  const from = owner(ctx, v, () => 'Validate TransferContract error, no OwnerAccount.');
  if (amount <= 0n) throw new ContractValidateError('Amount must be greater than 0.');
  const recipient = ctx.ledger.account(to);
  const fee = recipient ? 0 : ctx.params.createNewAccountFeeInSystemContract;
  if (recipient?.type === 'Contract') throw new ContractValidateError('Cannot transfer TRX to a smartContract.');
  if (from.balance < amount + BigInt(fee)) {
    throw new ContractValidateError('Validate TransferContract error, balance is not sufficient.');
  }
  ctx.ledger.putAccount({ ...from, balance: from.balance - amount - BigInt(fee) });
  const target = recipient ?? newAccount(to, ctx.headTimestamp);
  ctx.ledger.putAccount({ ...target, balance: target.balance + amount });
  if (fee > 0) burn(ctx, fee);
  return { fee };
}

export function freezeBalanceV2(ctx: ActuatorContext, v: ContractValue): ActuatorResult {
  const a = owner(ctx, v, notExists);
  const amount = big(v.frozen_balance);
  if (amount <= 0n) throw new ContractValidateError('frozenBalance must be positive');
  if (amount < TRX) throw new ContractValidateError('frozenBalance must be greater than or equal to 1 TRX');
  if (amount > a.balance) throw new ContractValidateError('frozenBalance must be less than or equal to accountBalance');
  const resource = resourceOf(v);
  if (resource !== 'BANDWIDTH' && resource !== 'ENERGY') {
    throw new ContractValidateError(`stand-in: staking for ${resource} is not modelled (valid ResourceCode[BANDWIDTH、ENERGY])`);
  }
  const next = { ...a, balance: a.balance - amount };
  if (resource === 'BANDWIDTH') next.frozenBandwidth += amount;
  else next.frozenEnergy += amount;
  ctx.ledger.putAccount(next);
  reweigh(ctx, a, next);
  return { fee: 0 };
}

export function unfreezeBalanceV2(ctx: ActuatorContext, v: ContractValue): ActuatorResult {
  const a = owner(ctx, v, doesNotExist);
  const resource = resourceOf(v);
  if (resource !== 'BANDWIDTH' && resource !== 'ENERGY') {
    throw new ContractValidateError('ResourceCode error.valid ResourceCode[BANDWIDTH、Energy]');
  }
  const frozen = resource === 'BANDWIDTH' ? a.frozenBandwidth : a.frozenEnergy;
  if (frozen <= 0n) throw new ContractValidateError(resource === 'BANDWIDTH' ? 'no frozenBalance(BANDWIDTH)' : 'no frozenBalance(Energy)');
  const amount = big(v.unfreeze_balance);
  if (amount <= 0n || amount > frozen) throw new ContractValidateError(`Invalid unfreeze_balance, [${amount}] is error`);
  if (a.unfrozen.filter((u) => u.expireTime > ctx.headTimestamp).length >= 32) {
    throw new ContractValidateError('Invalid unfreeze operation, unfreezing times is over limit');
  }
  // Like java-tron, an unstake first pays out whatever earlier unstakes have already matured.
  const matured = a.unfrozen.filter((u) => u.expireTime <= ctx.headTimestamp).reduce((s, u) => s + u.amount, 0n);
  const expireTime = ctx.headTimestamp + ctx.params.unfreezeDelayDays * 86_400_000;
  const next: Account = {
    ...a,
    balance: a.balance + matured,
    unfrozen: [...a.unfrozen.filter((u) => u.expireTime > ctx.headTimestamp), { type: resource, amount, expireTime }],
  };
  if (resource === 'BANDWIDTH') next.frozenBandwidth -= amount;
  else next.frozenEnergy -= amount;
  ctx.ledger.putAccount(next);
  reweigh(ctx, a, next);
  return { fee: 0, ...(matured > 0n ? { withdrawExpireAmount: Number(matured) } : {}) };
}

export function withdrawExpireUnfreeze(ctx: ActuatorContext, v: ContractValue): ActuatorResult {
  const a = owner(ctx, v, notExists);
  const matured = a.unfrozen.filter((u) => u.expireTime <= ctx.headTimestamp).reduce((s, u) => s + u.amount, 0n);
  if (matured <= 0n) throw new ContractValidateError('no unFreeze balance to withdraw ');
  ctx.ledger.putAccount({ ...a, balance: a.balance + matured, unfrozen: a.unfrozen.filter((u) => u.expireTime > ctx.headTimestamp) });
  return { fee: 0, withdrawExpireAmount: Number(matured) };
}

/**
 * CancelAllUnfreezeV2Actuator: every pending unstake goes back into its resource's stake
 * (weights follow), and every one already past its unlock time is paid out to the balance,
 * as withdrawExpireUnfreeze would. The committee's switch (getAllowCancelAllUnfreezeV2) is on
 * in the stand-in's parameters, as on mainnet.
 */
export function cancelAllUnfreezeV2(ctx: ActuatorContext, v: ContractValue): ActuatorResult {
  const a = owner(ctx, v, notExists);
  if (a.unfrozen.length === 0) throw new ContractValidateError('No unfreezeV2 list to cancel');
  const back = { BANDWIDTH: 0n, ENERGY: 0n };
  let matured = 0n;
  for (const u of a.unfrozen) {
    if (u.expireTime > ctx.headTimestamp) back[u.type] += u.amount;
    else matured += u.amount;
  }
  const next: Account = {
    ...a,
    balance: a.balance + matured,
    frozenBandwidth: a.frozenBandwidth + back.BANDWIDTH,
    frozenEnergy: a.frozenEnergy + back.ENERGY,
    unfrozen: [],
  };
  ctx.ledger.putAccount(next);
  reweigh(ctx, a, next);
  return {
    fee: 0,
    ...(matured > 0n ? { withdrawExpireAmount: Number(matured) } : {}),
    cancelUnfreezeV2Amount: { BANDWIDTH: Number(back.BANDWIDTH), ENERGY: Number(back.ENERGY), TRON_POWER: 0 },
  };
}

export function delegateResource(ctx: ActuatorContext, v: ContractValue): ActuatorResult {
  const a = owner(ctx, v, notExists);
  const amount = big(v.balance);
  if (amount < TRX) throw new ContractValidateError('delegateBalance must be greater than or equal to 1 TRX');
  const resource = resourceOf(v);
  if (resource !== 'BANDWIDTH' && resource !== 'ENERGY') {
    throw new ContractValidateError('ResourceCode error, valid ResourceCode[BANDWIDTH、ENERGY]');
  }
  const frozen = resource === 'BANDWIDTH' ? a.frozenBandwidth : a.frozenEnergy;
  if (frozen - stakeInUse(a, resource, ctx.ledger.totals(), ctx.params, ctx.now) < amount) {
    throw new ContractValidateError(
      `delegateBalance must be less than or equal to available ${resource === 'BANDWIDTH' ? 'FreezeBandwidthV2' : 'FreezeEnergyV2'} balance`,
    );
  }
  const to = v.receiver_address;
  if (!isHex41(to)) throw new ContractValidateError('Invalid receiverAddress');
  if (to === a.address) throw new ContractValidateError('receiverAddress must not be the same as ownerAddress');
  const receiver = ctx.ledger.account(to);
  if (!receiver) throw new ContractValidateError(notExists(to));
  const lock = v.lock === true;
  const lockPeriod = Number(v.lock_period ?? 0) || DELEGATE_PERIOD_MS / SLOT_MS;
  if (lock) {
    if (lockPeriod < 0 || lockPeriod > ctx.params.maxDelegateLockPeriod) {
      throw new ContractValidateError(
        `The lock period of delegate resource cannot be less than 0 and cannot exceed ${ctx.params.maxDelegateLockPeriod}!`,
      );
    }
    const locked = ctx.ledger.delegation(delegationKey(a.address, to, true));
    const expire = locked ? (resource === 'BANDWIDTH' ? locked.expireBandwidth : locked.expireEnergy) : 0;
    const remain = expire - ctx.headTimestamp;
    if (locked && lockPeriod * SLOT_MS < remain) {
      throw new ContractValidateError(
        `The lock period for ${resource} this time cannot be less than the remaining time[${remain}ms] of the last lock period for ${resource}!`,
      );
    }
  }
  if (receiver.type === 'Contract') throw new ContractValidateError('Do not allow delegate resources to contract addresses');

  unlockExpired(ctx, a.address, to);
  const key = delegationKey(a.address, to, lock);
  const d: Delegation = ctx.ledger.delegation(key) ?? emptyDelegation(a.address, to, lock);
  const expireTime = lock ? ctx.headTimestamp + lockPeriod * SLOT_MS : 0;
  ctx.ledger.putDelegation(
    key,
    resource === 'BANDWIDTH'
      ? { ...d, bandwidth: d.bandwidth + amount, expireBandwidth: expireTime }
      : { ...d, energy: d.energy + amount, expireEnergy: expireTime },
  );
  const o = ctx.ledger.account(a.address) as Account;
  const r = ctx.ledger.account(to) as Account;
  if (resource === 'BANDWIDTH') {
    ctx.ledger.putAccount({ ...o, delegatedBandwidth: o.delegatedBandwidth + amount, frozenBandwidth: o.frozenBandwidth - amount });
    ctx.ledger.putAccount({ ...r, acquiredBandwidth: r.acquiredBandwidth + amount });
  } else {
    ctx.ledger.putAccount({ ...o, delegatedEnergy: o.delegatedEnergy + amount, frozenEnergy: o.frozenEnergy - amount });
    ctx.ledger.putAccount({ ...r, acquiredEnergy: r.acquiredEnergy + amount });
  }
  return { fee: 0 };
}

export function unDelegateResource(ctx: ActuatorContext, v: ContractValue): ActuatorResult {
  const a = owner(ctx, v, doesNotExist);
  const to = v.receiver_address;
  if (!isHex41(to)) throw new ContractValidateError('Invalid receiverAddress');
  if (to === a.address) throw new ContractValidateError('receiverAddress must not be the same as ownerAddress');
  const unlocked = ctx.ledger.delegation(delegationKey(a.address, to, false));
  const locked = ctx.ledger.delegation(delegationKey(a.address, to, true));
  if (!unlocked && !locked) throw new ContractValidateError('delegated Resource does not exist');
  const amount = big(v.balance);
  if (amount <= 0n) throw new ContractValidateError('unDelegateBalance must be more than 0 TRX');
  const resource = resourceOf(v);
  if (resource !== 'BANDWIDTH' && resource !== 'ENERGY') {
    throw new ContractValidateError('ResourceCode error.valid ResourceCode[BANDWIDTH、Energy]');
  }
  const bw = resource === 'BANDWIDTH';
  const available =
    (unlocked ? (bw ? unlocked.bandwidth : unlocked.energy) : 0n) +
    (locked && (bw ? locked.expireBandwidth : locked.expireEnergy) < ctx.headTimestamp ? (bw ? locked.bandwidth : locked.energy) : 0n);
  if (available < amount) {
    throw new ContractValidateError(
      bw
        ? `insufficient delegatedFrozenBalance(BANDWIDTH), request=${amount}, unlock_balance=${available}`
        : `insufficient delegateFrozenBalance(Energy), request=${amount}, unlock_balance=${available}`,
    );
  }

  // The receiver hands back the share of its usage that the reclaimed stake was covering.
  let transferUsage = 0;
  const r = ctx.ledger.account(to);
  if (r) {
    const usage = bw
      ? recovered(r.netUsage, r.latestConsumeTime, ctx.now)
      : recovered(r.energyUsage, r.latestConsumeTimeForEnergy, ctx.now);
    const acquired = bw ? r.acquiredBandwidth : r.acquiredEnergy;
    const allFrozen = Number(bw ? r.frozenBandwidth + r.acquiredBandwidth : r.frozenEnergy + r.acquiredEnergy);
    const t = ctx.ledger.totals();
    const p = ctx.params;
    const perTrx = bw
      ? p.totalNetLimit / (p.networkNetWeight + t.netWeight)
      : p.totalEnergyLimit / (p.networkEnergyWeight + t.energyWeight);
    const maxUsage = Math.trunc((Number(amount) / SUN_PER_TRX) * perTrx);
    if (acquired >= amount && allFrozen > 0) transferUsage = Math.min(maxUsage, Math.trunc(usage * (Number(amount) / allFrozen)));
    const left = acquired >= amount ? acquired - amount : 0n;
    ctx.ledger.putAccount(
      bw
        ? { ...r, acquiredBandwidth: left, netUsage: usage - transferUsage, latestConsumeTime: ctx.now }
        : { ...r, acquiredEnergy: left, energyUsage: usage - transferUsage, latestConsumeTimeForEnergy: ctx.now },
    );
  }
  unlockExpired(ctx, a.address, to);
  const key = delegationKey(a.address, to, false);
  const d = ctx.ledger.delegation(key) as Delegation;
  const rest = bw ? { ...d, bandwidth: d.bandwidth - amount } : { ...d, energy: d.energy - amount };
  ctx.ledger.putDelegation(key, rest.bandwidth === 0n && rest.energy === 0n ? undefined : rest);

  const o = ctx.ledger.account(a.address) as Account;
  if (bw) {
    const usage = recovered(o.netUsage, o.latestConsumeTime, ctx.now);
    ctx.ledger.putAccount({
      ...o,
      delegatedBandwidth: o.delegatedBandwidth - amount,
      frozenBandwidth: o.frozenBandwidth + amount,
      ...(transferUsage > 0 ? { netUsage: increase(usage, transferUsage, ctx.now, ctx.now), latestConsumeTime: ctx.now } : {}),
    });
  } else {
    const usage = recovered(o.energyUsage, o.latestConsumeTimeForEnergy, ctx.now);
    ctx.ledger.putAccount({
      ...o,
      delegatedEnergy: o.delegatedEnergy - amount,
      frozenEnergy: o.frozenEnergy + amount,
      ...(transferUsage > 0 ? { energyUsage: increase(usage, transferUsage, ctx.now, ctx.now), latestConsumeTimeForEnergy: ctx.now } : {}),
    });
  }
  return { fee: 0 };
}

function emptyDelegation(from: Hex41, to: Hex41, lock: boolean): Delegation {
  return { from, to, lock, bandwidth: 0n, energy: 0n, expireBandwidth: 0, expireEnergy: 0 };
}

/** DelegatedResourceStore.unLockExpireResource: expired locks become ordinary (unlocked) delegations. */
function unlockExpired(ctx: ActuatorContext, from: Hex41, to: Hex41): void {
  const now = ctx.headTimestamp;
  const lockKey = delegationKey(from, to, true);
  const locked = ctx.ledger.delegation(lockKey);
  if (!locked || (locked.expireEnergy >= now && locked.expireBandwidth >= now)) return;
  const unlockKey = delegationKey(from, to, false);
  const unlocked = { ...(ctx.ledger.delegation(unlockKey) ?? emptyDelegation(from, to, false)) };
  const rest = { ...locked };
  if (locked.expireEnergy < now) {
    unlocked.energy += locked.energy;
    rest.energy = 0n;
    rest.expireEnergy = 0;
  }
  if (locked.expireBandwidth < now) {
    unlocked.bandwidth += locked.bandwidth;
    rest.bandwidth = 0n;
    rest.expireBandwidth = 0;
  }
  ctx.ledger.putDelegation(lockKey, rest.bandwidth === 0n && rest.energy === 0n ? undefined : rest);
  ctx.ledger.putDelegation(unlockKey, unlocked);
}

/** TotalNetWeight / TotalEnergyWeight follow each account's stake including what it lends out. */
function reweigh(ctx: ActuatorContext, before: Account, after: Account): void {
  const t = ctx.ledger.totals();
  ctx.ledger.setTotals({
    ...t,
    netWeight:
      t.netWeight + weight(after.frozenBandwidth + after.delegatedBandwidth) - weight(before.frozenBandwidth + before.delegatedBandwidth),
    energyWeight:
      t.energyWeight + weight(after.frozenEnergy + after.delegatedEnergy) - weight(before.frozenEnergy + before.delegatedEnergy),
  });
}

export function burn(ctx: Pick<ActuatorContext, 'ledger'>, sun: number): void {
  const t = ctx.ledger.totals();
  ctx.ledger.setTotals({ ...t, burned: t.burned + BigInt(sun) });
}

export const SYSTEM_CONTRACTS: Record<string, (ctx: ActuatorContext, v: ContractValue) => ActuatorResult> = {
  TransferContract: transfer,
  FreezeBalanceV2Contract: freezeBalanceV2,
  UnfreezeBalanceV2Contract: unfreezeBalanceV2,
  WithdrawExpireUnfreezeContract: withdrawExpireUnfreeze,
  DelegateResourceContract: delegateResource,
  UnDelegateResourceContract: unDelegateResource,
  CancelAllUnfreezeV2Contract: cancelAllUnfreezeV2,
};
