// TriggerSmartContract: the energy limit java-tron's VMActuator allows (stake + balance,
// capped by fee_limit), execution on anvil, the energy bill (stake first, then TRX burned
// at getEnergyFee), and the constant-call and estimateenergy paths.
import { keccak_256 } from '@noble/hashes/sha3';
import { toEvm, type Hex41 } from './address.js';
import { ContractValidateError, burn } from './actuators.js';
import type { TxInfo, TxLog } from './chain.js';
import type { Evm, EvmOutcome } from './evm.js';
import { intrinsicGas } from './evm.js';
import type { Ledger } from './ledger.js';
import { SUN_PER_TRX, type TronChainParams } from './params.js';
import { leftFrozenEnergy, useEnergy } from './resources.js';
import type { ContractValue } from './transactions.js';

/** A contract as /wallet/getcontract describes it (protocol.SmartContract). */
export interface ContractRecord {
  address: Hex41;
  origin: Hex41;
  name: string;
  bytecode: string;
  abi: TronAbiEntry[];
  consumeUserResourcePercent: number;
  originEnergyLimit: number;
}

export interface TronAbiEntry {
  type: string;
  name?: string;
  inputs?: { indexed?: boolean; name: string; type: string }[];
  outputs?: { name: string; type: string }[];
  stateMutability?: string;
  constant?: boolean;
  anonymous?: boolean;
}

/** solc's ABI in java-tron's SmartContract.ABI spelling (enum names capitalised, defaults left out). */
export function toTronAbi(abi: readonly Record<string, unknown>[]): TronAbiEntry[] {
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  return abi.map((e) => {
    const out: TronAbiEntry = { type: cap(String(e.type)) };
    if (e.name) out.name = String(e.name);
    if (e.anonymous) out.anonymous = true;
    const params = (list: unknown) =>
      (list as { name: string; type: string; indexed?: boolean }[]).map((p) => ({
        ...(p.indexed ? { indexed: true } : {}),
        name: p.name,
        type: p.type,
      }));
    if (Array.isArray(e.inputs) && e.inputs.length > 0) out.inputs = params(e.inputs);
    if (Array.isArray(e.outputs) && e.outputs.length > 0) out.outputs = params(e.outputs);
    if (e.stateMutability) out.stateMutability = cap(String(e.stateMutability));
    if (e.stateMutability === 'view' || e.stateMutability === 'pure') out.constant = true;
    return out;
  });
}

export function selectorOf(signature: string): string {
  return Buffer.from(keccak_256(Buffer.from(signature)))
    .subarray(0, 4)
    .toString('hex');
}

/** Whether a call's selector names a view/pure function of the contract's ABI (Wallet.isConstant). */
export function isConstantCall(c: ContractRecord, data: string): boolean {
  const sel = data.slice(0, 8).toLowerCase();
  return c.abi.some(
    (e) =>
      e.type === 'Function' && e.constant === true && selectorOf(`${e.name}(${(e.inputs ?? []).map((i) => i.type).join(',')})`) === sel,
  );
}

export function validateTrigger(
  contracts: Map<string, ContractRecord>,
  v: ContractValue,
  feeLimit: number,
  p: TronChainParams,
): ContractRecord {
  const c = contracts.get(String(v.contract_address ?? ''));
  if (!c) throw new ContractValidateError('No contract or not a smart contract');
  if (v.call_value || v.call_token_value || v.token_id) {
    throw new ContractValidateError('stand-in: call_value and TRC-10 call_token_value are not modelled');
  }
  if (feeLimit < 0 || feeLimit > p.maxFeeLimit) throw new ContractValidateError(`feeLimit must be >= 0 and <= ${p.maxFeeLimit}`);
  return c;
}

/** Gas below which anvil refuses a transaction outright (EIP-7623 calldata floor). */
function floorGap(data: string): number {
  const bytes = Buffer.from(data, 'hex');
  let tokens = 0;
  for (const b of bytes) tokens += b === 0 ? 1 : 4;
  return Math.max(0, 21_000 + 10 * tokens - intrinsicGas(data));
}

const TVM_MESSAGES: Partial<Record<EvmOutcome['result'], string>> = {
  REVERT: 'REVERT opcode executed',
  BAD_JUMP_DESTINATION: "Operation with pc isn't JUMPDEST",
  ILLEGAL_OPERATION: 'Invalid operation code',
};

export interface TriggerCtx {
  ledger: Ledger;
  evm: Evm;
  params: TronChainParams;
  now: number;
  headTimestamp: number;
}

/** Executes a validated trigger; fills the energy part of the receipt and the VM outcome into `info`. */
export async function executeTrigger(
  ctx: TriggerCtx,
  c: ContractRecord,
  owner: Hex41,
  data: string,
  feeLimit: number,
  info: TxInfo,
): Promise<EvmOutcome['result']> {
  const p = ctx.params;
  const caller = ctx.ledger.account(owner);
  if (!caller) throw new ContractValidateError(`Validate InternalTransfer error, no OwnerAccount.`);
  const left = leftFrozenEnergy(caller, ctx.ledger.totals(), p, ctx.now);
  const fromBalance = Number(caller.balance / BigInt(p.energyFee));
  const limit = Math.min(left + fromBalance, Math.floor(feeLimit / p.energyFee));

  let outcome: EvmOutcome;
  if (limit < floorGap(data)) {
    // Too little energy to even start: the whole limit is spent, as in the TVM.
    outcome = { result: 'OUT_OF_ENERGY', energy: limit, output: '', logs: [] };
  } else {
    outcome = await ctx.evm.execute(toEvm(owner), toEvm(c.address), `0x${data}`, limit);
  }

  // ReceiptCapsule.payEnergyBill: staked energy first, the rest burned.
  const used = outcome.energy;
  const fromStake = Math.min(left, used);
  const fee = (used - fromStake) * p.energyFee;
  const now = ctx.ledger.account(owner) as NonNullable<typeof caller>;
  const charged = fromStake > 0 ? useEnergy(now, fromStake, ctx.now, ctx.headTimestamp) : now;
  ctx.ledger.putAccount({ ...charged, balance: charged.balance - BigInt(fee) });
  if (fee > 0) burn(ctx, fee);

  info.contract_address = c.address;
  info.contractResult = [outcome.output];
  info.log = outcome.logs.map(toTronLog);
  Object.assign(info.receipt, {
    energy_usage: fromStake,
    energy_fee: fee,
    energy_usage_total: used,
    result: outcome.result,
  });
  info.fee += fee;
  if (outcome.result !== 'SUCCESS') {
    info.result = 'FAILED';
    info.resMessage =
      outcome.result === 'OUT_OF_ENERGY'
        ? `Not enough energy for '${outcome.error ? 'opcode' : 'call'}' operation executing: curInvokeEnergyLimit[${limit}], usedEnergy[${used}]`
        : (TVM_MESSAGES[outcome.result] ?? outcome.error ?? outcome.result);
  }
  return outcome.result;
}

export const toTronLog = (l: { address: string; topics: string[]; data: string }): TxLog => ({
  address: l.address.replace(/^0x/, '').toLowerCase(),
  topics: l.topics.map((t) => t.replace(/^0x/, '').toLowerCase()),
  data: l.data.replace(/^0x/, '').toLowerCase(),
});

/** A triggerconstantcontract run: energy capped by maxEnergyLimitForConstant and by fee_limit if given. */
export async function constantCall(
  evm: Evm,
  owner: Hex41,
  c: ContractRecord,
  data: string,
  evmBlock: number | 'latest',
  feeLimit: number,
  p: TronChainParams,
): Promise<EvmOutcome & { message?: string }> {
  const cap = 100_000_000;
  const limit = feeLimit > 0 ? Math.min(cap, Math.floor(feeLimit / p.energyFee)) : cap;
  const out = await evm.call(toEvm(owner), toEvm(c.address), `0x${data}`, evmBlock, limit);
  const message = out.result === 'SUCCESS' ? undefined : (TVM_MESSAGES[out.result] ?? out.error ?? out.result);
  return { ...out, ...(message ? { message } : {}) };
}

/**
 * Wallet.estimateEnergy: binary search on the fee limit down to 1 TRX of precision, so the
 * answer can exceed the energy actually used by up to 1 TRX worth, exactly as java-tron's.
 */
export async function estimateEnergy(
  evm: Evm,
  owner: Hex41,
  c: ContractRecord,
  data: string,
  p: TronChainParams,
): Promise<{ ok: true; energyRequired: number } | { ok: false; message: string }> {
  const run = (feeLimit: number) => constantCall(evm, owner, c, data, 'latest', feeLimit, p);
  let high = p.maxFeeLimit;
  const first = await run(high);
  if (first.result !== 'SUCCESS') return { ok: false, message: first.message ?? first.result };
  let low = p.energyFee * first.energy;
  const twice = low * 2;
  if (twice < high) {
    if ((await run(twice)).result === 'SUCCESS') high = twice;
    else low = twice;
  }
  while (low + SUN_PER_TRX < high) {
    const mid = Math.floor((low + high) / 2);
    if ((await run(mid)).result === 'SUCCESS') high = mid;
    else low = mid;
  }
  return { ok: true, energyRequired: Math.ceil(high / p.energyFee) };
}
