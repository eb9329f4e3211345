// The figures the Tron node stand-in runs on. Chain parameters carry java-tron's names
// (/wallet/getchainparameters keys) and mainnet's current values; the constants are the
// protocol's own (java-tron ChainConstant / Constant), not tunables.

export interface TronChainParams {
  /** sun burned per unit of energy a contract call uses beyond staked energy (mainnet: 100 since proposal #104, Aug 2025). */
  energyFee: number;
  /** sun burned per byte of bandwidth beyond free and staked bandwidth. */
  transactionFee: number;
  /** sun burned (as bandwidth) by a transaction that creates an account, when staked bandwidth cannot cover it. */
  createAccountFee: number;
  /** sun charged by TransferContract on top of the above when the recipient did not exist. */
  createNewAccountFeeInSystemContract: number;
  /** Staked-bandwidth multiplier for account-creating transactions. */
  createNewAccountBandwidthRate: number;
  /** Free bandwidth per account per day (bytes). */
  freeNetLimit: number;
  /** Bandwidth shared out to stakers per day (bytes). */
  totalNetLimit: number;
  /** Energy shared out to stakers per day. */
  totalEnergyLimit: number;
  /** Highest fee_limit a transaction may carry (sun). */
  maxFeeLimit: number;
  /** Days an unstaked (unfreezebalancev2) amount waits before withdrawexpireunfreeze returns it. */
  unfreezeDelayDays: number;
  /** Longest delegation lock, in blocks (3 s each). */
  maxDelegateLockPeriod: number;
  /**
   * Stake of the rest of the network, in whole TRX, added to the stand-in's own stakes in
   * TotalNetWeight / TotalEnergyWeight. Without it the first staker would receive the whole
   * daily limit; with it, staking yields per-TRX amounts of mainnet's order of magnitude.
   */
  networkNetWeight: number;
  networkEnergyWeight: number;
}

export const MAINNET_LIKE_PARAMS: TronChainParams = {
  energyFee: 100,
  transactionFee: 1_000,
  createAccountFee: 100_000,
  createNewAccountFeeInSystemContract: 1_000_000,
  createNewAccountBandwidthRate: 1,
  freeNetLimit: 600,
  totalNetLimit: 43_200_000_000,
  totalEnergyLimit: 180_000_000_000,
  maxFeeLimit: 15_000_000_000,
  unfreezeDelayDays: 14,
  maxDelegateLockPeriod: 864_000,
  // 43.2 G bytes over 43.2 G TRX: about 1 byte of bandwidth per staked TRX per day.
  networkNetWeight: 43_200_000_000,
  // 180 G energy over 18 G TRX: about 10 energy per staked TRX per day.
  networkEnergyWeight: 18_000_000_000,
};

/** Slot length: java-tron's BLOCK_PRODUCED_INTERVAL. Resource usage is counted in slots. */
export const SLOT_MS = 3_000;
/** 24 h in slots: usage recovers linearly over this window (ChainConstant.WINDOW_SIZE_MS). */
export const WINDOW_SIZE_SLOTS = 86_400_000 / SLOT_MS;
export const PRECISION = 1_000_000;
export const SUN_PER_TRX = 1_000_000;
/** Blocks behind the head at which the stand-in declares a block solidified (27 SRs: 2/3 + 1). */
export const DEFAULT_SOLIDIFY_LAG = 19;
/** Transaction.raw expiration may be at most this far past the head block (Constant.MAXIMUM_TIME_UNTIL_EXPIRATION). */
export const MAX_EXPIRATION_AHEAD_MS = 86_400_000;
/** What java-tron sets when it builds a transaction: head block time + 60 s. */
export const DEFAULT_EXPIRATION_MS = 60_000;
/** Bytes of result counted into every transaction's bandwidth (Constant.MAX_RESULT_SIZE_IN_TX). */
export const MAX_RESULT_SIZE_IN_TX = 64;
export const TRANSACTION_MAX_BYTE_SIZE = 500 * 1024;
/** Default lock of a locked delegation (DELEGATE_PERIOD: 3 days). */
export const DELEGATE_PERIOD_MS = 3 * 86_400_000;
/** getblockbylimitnext / getblockbylatestnum page limit (BLOCK_LIMIT_NUM). */
export const BLOCK_LIMIT_NUM = 100;
/** Block header version java-tron 4.8 writes. */
export const BLOCK_VERSION = 32;
/** Energy for a contract's origin: java-tron's default origin_energy_limit when deploying. */
export const ORIGIN_ENERGY_LIMIT = 10_000_000;

/** /wallet/getchainparameters: the keys an adapter reads, in java-tron's order and spelling. */
export function chainParameterList(p: TronChainParams): { key: string; value?: number }[] {
  const list: [string, number][] = [
    ['getMaintenanceTimeInterval', 21_600_000],
    ['getAccountUpgradeCost', 9_999_000_000],
    ['getCreateAccountFee', p.createAccountFee],
    ['getTransactionFee', p.transactionFee],
    ['getAssetIssueFee', 1_024_000_000],
    ['getWitnessPayPerBlock', 16_000_000],
    ['getWitnessStandbyAllowance', 115_200_000_000],
    ['getCreateNewAccountFeeInSystemContract', p.createNewAccountFeeInSystemContract],
    ['getCreateNewAccountBandwidthRate', p.createNewAccountBandwidthRate],
    ['getAllowCreationOfContracts', 1],
    ['getRemoveThePowerOfTheGr', -1],
    ['getEnergyFee', p.energyFee],
    ['getExchangeCreateFee', 1_024_000_000],
    ['getMaxCpuTimeOfOneTx', 80],
    ['getAllowUpdateAccountName', 0],
    ['getAllowSameTokenName', 1],
    ['getAllowDelegateResource', 1],
    ['getTotalEnergyLimit', p.totalEnergyLimit],
    ['getAllowTvmTransferTrc10', 1],
    ['getTotalEnergyCurrentLimit', p.totalEnergyLimit],
    ['getAllowMultiSign', 1],
    ['getAllowAdaptiveEnergy', 0],
    ['getTotalEnergyTargetLimit', Math.floor(p.totalEnergyLimit / 14_400)],
    ['getTotalEnergyAverageUsage', 0],
    ['getUpdateAccountPermissionFee', 100_000_000],
    ['getMultiSignFee', 1_000_000],
    ['getAllowAccountStateRoot', 0],
    ['getAllowProtoFilterNum', 0],
    ['getAllowTvmConstantinople', 1],
    ['getAllowTvmSolidity059', 1],
    ['getAllowTvmIstanbul', 1],
    ['getAllowShieldedTRC20Transaction', 1],
    ['getForbidTransferToContract', 1],
    ['getAdaptiveResourceLimitTargetRatio', 10],
    ['getAdaptiveResourceLimitMultiplier', 1_000],
    ['getChangeDelegation', 1],
    ['getWitness127PayPerBlock', 160_000_000],
    ['getAllowMarketTransaction', 0],
    ['getAllowTvmFreeze', 0],
    ['getAllowTvmVote', 1],
    ['getAllowTvmLondon', 1],
    ['getAllowTvmCompatibleEvm', 0],
    ['getAllowHigherLimitForMaxCpuTimeOfOneTx', 1],
    ['getAllowAssetOptimization', 1],
    ['getAllowNewResourceModel', 1],
    ['getAllowTransactionFeePool', 0],
    ['getAllowBlackHoleOptimization', 1],
    ['getAllowNewReward', 1],
    ['getMemoFee', 1_000_000],
    ['getAllowDelegateOptimization', 1],
    ['getUnfreezeDelayDays', p.unfreezeDelayDays],
    ['getAllowOptimizedReturnValueOfChainId', 1],
    ['getAllowDynamicEnergy', 0],
    ['getAllowTvmShangHai', 1],
    ['getAllowCancelAllUnfreezeV2', 1],
    ['getMaxDelegateLockPeriod', p.maxDelegateLockPeriod],
    ['getAllowOldRewardOpt', 1],
    ['getAllowEnergyAdjustment', 1],
    ['getMaxCreateAccountTxSize', 1_000],
    ['getAllowTvmCancun', 1],
    ['getAllowStrictMath', 1],
    ['getConsensusLogicOptimization', 1],
    ['getFreeNetLimit', p.freeNetLimit],
    ['getTotalNetLimit', p.totalNetLimit],
    ['getMaxFeeLimit', p.maxFeeLimit],
  ];
  // java-tron's JsonFormat leaves zero values out, so a zero-valued parameter is `{ key }`.
  return list.map(([key, value]) => (value === 0 ? { key } : { key, value }));
}
