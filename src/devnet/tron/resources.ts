// Bandwidth and energy as java-tron's ResourceProcessor, BandwidthProcessor and
// EnergyProcessor compute them: usage decays linearly over a 24 h window counted in 3 s
// slots, limits are the account's stake share of the daily totals, and what the account
// cannot cover is burned at the chain parameters' prices.
import { toBase58 } from './address.js';
import type { Account, LedgerView, Ledger, Totals } from './ledger.js';
import { PRECISION, SLOT_MS, SUN_PER_TRX, WINDOW_SIZE_SLOTS, type TronChainParams } from './params.js';

export const slotOf = (timestampMs: number) => Math.floor(timestampMs / SLOT_MS);

const divideCeil = (n: number, d: number) => Math.floor(n / d) + (n % d > 0 ? 1 : 0);

/** ResourceProcessor.increase: the usage after `usage` more at `now`, given the last usage at `lastTime`. */
export function increase(lastUsage: number, usage: number, lastTime: number, now: number, windowSize = WINDOW_SIZE_SLOTS): number {
  let averageLastUsage = divideCeil(lastUsage * PRECISION, windowSize);
  const averageUsage = divideCeil(usage * PRECISION, windowSize);
  if (lastTime !== now) {
    if (lastTime + windowSize > now) {
      const decay = (windowSize - (now - lastTime)) / windowSize;
      averageLastUsage = Math.round(averageLastUsage * decay);
    } else averageLastUsage = 0;
  }
  averageLastUsage += averageUsage;
  return Math.floor((averageLastUsage * windowSize) / PRECISION);
}

export const recovered = (usage: number, lastTime: number, now: number) => increase(usage, 0, lastTime, now);

export const totalNetWeight = (t: Totals, p: TronChainParams) => p.networkNetWeight + t.netWeight;
export const totalEnergyWeight = (t: Totals, p: TronChainParams) => p.networkEnergyWeight + t.energyWeight;

/** calculateGlobalNetLimitV2: staked (own + acquired) bandwidth share of TotalNetLimit. */
export function netLimit(a: Account, t: Totals, p: TronChainParams): number {
  const weight = totalNetWeight(t, p);
  if (weight === 0) return 0;
  const staked = Number(a.frozenBandwidth + a.acquiredBandwidth) / SUN_PER_TRX;
  return Math.trunc(staked * (p.totalNetLimit / weight));
}

export function energyLimit(a: Account, t: Totals, p: TronChainParams): number {
  const weight = totalEnergyWeight(t, p);
  if (weight === 0) return 0;
  const staked = Number(a.frozenEnergy + a.acquiredEnergy) / SUN_PER_TRX;
  return Math.trunc(staked * (p.totalEnergyLimit / weight));
}

/** Energy the account can still spend from stake right now (getAccountLeftEnergyFromFreeze). */
export function leftFrozenEnergy(a: Account, t: Totals, p: TronChainParams, now: number): number {
  return Math.max(energyLimit(a, t, p) - recovered(a.energyUsage, a.latestConsumeTimeForEnergy, now), 0);
}

/** The account as /wallet/getaccount shows it: usage figures brought forward to `now`. */
export function withUsageAt(a: Account, now: number): Account {
  return {
    ...a,
    netUsage: recovered(a.netUsage, a.latestConsumeTime, now),
    freeNetUsage: recovered(a.freeNetUsage, a.latestConsumeFreeTime, now),
    energyUsage: recovered(a.energyUsage, a.latestConsumeTimeForEnergy, now),
  };
}

/** A transaction java-tron refuses in BandwidthProcessor.consume: answered as BANDWITH_ERROR. */
export class BandwidthError extends Error {}
/** An owner that does not exist: java-tron's ContractValidateException from consume(). */
export class NoOwnerAccountError extends Error {}

export interface NetBill {
  netUsage: number;
  netFee: number;
}

/**
 * BandwidthProcessor.consume for one contract: staked bandwidth, then the daily free
 * bandwidth, then TRX burned for every byte. An account-creating transfer uses staked
 * bandwidth or burns the account-creation fee, never the free bandwidth.
 */
export function consumeBandwidth(
  ledger: Ledger,
  owner: string,
  bytes: number,
  createsAccount: boolean,
  now: number,
  headTimestamp: number,
  p: TronChainParams,
): NetBill {
  const a = ledger.account(owner);
  if (!a) throw new NoOwnerAccountError(`account [${toBase58(owner)}] does not exist`);
  const t = ledger.totals();
  const burn = (fee: number): boolean => {
    if (a.balance < BigInt(fee)) return false;
    ledger.putAccount({ ...a, balance: a.balance - BigInt(fee), latestOperationTime: headTimestamp });
    ledger.setTotals({ ...ledger.totals(), burned: ledger.totals().burned + BigInt(fee) });
    return true;
  };
  const staked = (cost: number): boolean => {
    const usage = recovered(a.netUsage, a.latestConsumeTime, now);
    if (cost > netLimit(a, t, p) - usage) return false;
    ledger.putAccount({
      ...a,
      netUsage: increase(a.netUsage, cost, a.latestConsumeTime, now),
      latestConsumeTime: now,
      latestOperationTime: headTimestamp,
    });
    return true;
  };

  if (createsAccount) {
    const cost = bytes * p.createNewAccountBandwidthRate;
    if (staked(cost)) return { netUsage: cost, netFee: 0 };
    if (burn(p.createAccountFee)) return { netUsage: 0, netFee: p.createAccountFee };
    throw new BandwidthError(
      `account [${toBase58(owner)}] has insufficient bandwidth[${bytes}] and balance[${p.createAccountFee}] to create new account`,
    );
  }
  if (staked(bytes)) return { netUsage: bytes, netFee: 0 };
  const free = recovered(a.freeNetUsage, a.latestConsumeFreeTime, now);
  if (bytes <= p.freeNetLimit - free) {
    ledger.putAccount({
      ...a,
      freeNetUsage: increase(free, bytes, now, now),
      latestConsumeFreeTime: now,
      latestOperationTime: headTimestamp,
    });
    return { netUsage: bytes, netFee: 0 };
  }
  const fee = p.transactionFee * bytes;
  if (burn(fee)) return { netUsage: 0, netFee: fee };
  throw new BandwidthError(`account [${toBase58(owner)}] has insufficient bandwidth[${bytes}] and balance[${fee}] to create new account`);
}

/** EnergyProcessor.useEnergy: adds to the account's energy usage. */
export function useEnergy(a: Account, energy: number, now: number, headTimestamp: number): Account {
  return {
    ...a,
    energyUsage: increase(a.energyUsage, energy, a.latestConsumeTimeForEnergy, now),
    latestConsumeTimeForEnergy: now,
    latestOperationTime: headTimestamp,
  };
}

/** Sun of stake currently "in use" by the account's usage (DelegateResourceActuator's v2 usage). */
export function stakeInUse(a: Account, resource: 'BANDWIDTH' | 'ENERGY', t: Totals, p: TronChainParams, now: number): bigint {
  const usage =
    resource === 'BANDWIDTH'
      ? recovered(a.netUsage, a.latestConsumeTime, now)
      : recovered(a.energyUsage, a.latestConsumeTimeForEnergy, now);
  const ratio = resource === 'BANDWIDTH' ? totalNetWeight(t, p) / p.totalNetLimit : totalEnergyWeight(t, p) / p.totalEnergyLimit;
  const inSun = BigInt(Math.trunc(usage * SUN_PER_TRX * ratio));
  const acquired = resource === 'BANDWIDTH' ? a.acquiredBandwidth : a.acquiredEnergy;
  const v2 = inSun - acquired;
  return v2 > 0n ? v2 : 0n;
}

/** getcandelegatedmaxsize: staked sun the account can still delegate (0 below 1 TRX). */
export function canDelegateMax(
  view: LedgerView,
  address: string,
  resource: 'BANDWIDTH' | 'ENERGY',
  p: TronChainParams,
  now: number,
): bigint {
  const a = view.account(address);
  if (!a) return 0n;
  const frozen = resource === 'BANDWIDTH' ? a.frozenBandwidth : a.frozenEnergy;
  const max = frozen - stakeInUse(a, resource, view.totals(), p, now);
  return max < BigInt(SUN_PER_TRX) ? 0n : max;
}
