/**
 * Contract calls on Tron from a client's JSON ABI: the TVM speaks the EVM's ABI (20-byte
 * addresses in words), so the EVM family's validation and encoding (chains/evm/contracts.ts)
 * do the work with Tron's spelling of addresses: the contract and every `address` argument
 * in base58check `T…` (hex accepted, as the codec does), and every address of a read's
 * result answered in `T…` too.
 *
 * Reads and simulations are constant calls (`/wallet/triggerconstantcontract`) made as the
 * acting address: java-tron runs the call in the TVM as of the head and answers its output,
 * the energy it used and, for a revert, the revert data, which is decoded with the client's
 * ABI errors and the well-known ones as on EVM.
 */
import { decodeErrorResult, decodeFunctionResult, getAddress, type Hex } from 'viem';
import { BusinessRuleError, ValidationError } from '../../lib/errors.js';
import { resolveCall, resultText, type AbiAddresses, type ResolvedCall } from '../evm/contracts.js';
import { describeTokenCall as describeEvmTokenCall } from '../evm/token-calls.js';
import type { ContractCallInput, EncodedContractCall, TokenCall } from '../types.js';
import { tronCodec, tronEvmHex, tronHex } from './codec.js';
import type { TronNode } from './node.js';
import { estimateEnergy } from './build.js';

const TRON_ADDRESSES: AbiAddresses = {
  contract: (input) => tronCodec.normalize(input),
  argument: (input) => {
    const hex = tronEvmHex(input);
    return hex === null ? null : getAddress(hex);
  },
  invalidContract: 'is not a valid Tron address (base58check T…, or 41… hex)',
  invalidArgument: 'must be a valid Tron address (base58check T…, or 41… hex)',
};

/** Validates the call and encodes it; the contract in `T…` form, the calldata 0x hex. */
export function resolveTronCall(call: ContractCallInput, field: string): ResolvedCall {
  const r = resolveCall(call, field, TRON_ADDRESSES);
  if (r.value > 0n) {
    // java-tron's call_value: the service sends no TRX with a call (as its sender builds them).
    throw new ValidationError(`${field}.value: sending TRX with a contract call is not supported on Tron`, [
      { field: `${field}.value`, message: 'TRX sent with a call (call_value) is not supported on Tron' },
    ]);
  }
  return r;
}

export function encodeTronCall(call: ContractCallInput, field: string): EncodedContractCall {
  const r = resolveTronCall(call, field);
  return { to: r.to, data: r.data, functionName: r.functionName, signature: r.signature, stateMutability: r.stateMutability };
}

interface ConstantAnswer {
  result?: { result?: boolean; code?: string; message?: string };
  energy_used?: number | string;
  constant_result?: string[];
  transaction?: { ret?: { ret?: string }[] };
  Error?: string;
}

/** Runs the call as `from` (constant call); its output (0x hex) and the energy it used, or a 422. */
async function runConstant(node: TronNode, r: ResolvedCall, from: string, field: string): Promise<{ output: Hex; energy: bigint }> {
  const res = await node.post<ConstantAnswer>('wallet/triggerconstantcontract', {
    owner_address: tronHex(from),
    contract_address: tronHex(r.to),
    data: r.data.slice(2),
    visible: false,
  });
  const output = res.constant_result?.[0];
  const message = text(res.result?.message ?? res.Error);
  const failed = res.transaction?.ret?.[0]?.ret === 'FAILED' || res.result?.code === 'CONTRACT_EXE_ERROR';
  if (res.result?.result === true && !failed && typeof output === 'string' && /^([0-9a-fA-F]{2})*$/.test(output)) {
    return { output: `0x${output.toLowerCase()}`, energy: BigInt(res.energy_used ?? 0) };
  }
  if (/Smart contract is not exist|No contract or not a valid smart contract/i.test(message)) {
    throw new BusinessRuleError('NOT_A_CONTRACT', `There is no contract at ${r.to} on this chain`, [
      { field: `${field}.address`, message: 'no contract code at this address' },
    ]);
  }
  if (failed || /REVERT/.test(message)) {
    const reason = revertReason(r, output, message);
    throw new BusinessRuleError('CONTRACT_REVERTED', `${r.signature} reverted: ${reason}`, [{ field, message: reason }]);
  }
  if (res.result?.code === undefined && res.Error === undefined) throw new Error(`triggerconstantcontract answered without a result`);
  const why = message || res.result?.code || 'the node refused the call';
  throw new BusinessRuleError('CONTRACT_CALL_FAILED', `${r.signature} cannot be executed: ${why}`, [{ field, message: why }]);
}

/** A read: the output decoded with the function's outputs, addresses in `T…` form, as text. */
export async function readTronCall(node: TronNode, call: ContractCallInput, from: string, field: string): Promise<string> {
  const r = resolveTronCall(call, field);
  const { output } = await runConstant(node, r, from, field);
  let decoded: unknown;
  try {
    decoded = decodeFunctionResult({ abi: [r.item], functionName: r.item.name, data: output });
  } catch (err) {
    throw new BusinessRuleError('CONTRACT_CALL_FAILED', `${r.signature} returned data that does not match the ABI's outputs`, [
      { field, message: ((err as { shortMessage?: string }).shortMessage ?? String(err)).slice(0, 300) },
    ]);
  }
  const outputs = r.item.outputs as Param[];
  const value = outputs.length === 1 ? tronAddresses(outputs[0]!, decoded) : tronAddresses({ type: 'tuple', components: outputs }, decoded);
  return resultText(value);
}

/** Runs the call as `from` without sending it: the energy it uses now (the seam's `gas` on Tron), or a 422. */
export async function simulateTronCall(node: TronNode, call: ContractCallInput, from: string, field: string): Promise<{ gas: bigint }> {
  const r = resolveTronCall(call, field);
  const { energy } = await runConstant(node, r, from, field);
  // The figure the sender signs for (build.ts estimateEnergy: estimateenergy's requirement,
  // found to 1 TRX, above what the call uses): a write's reserved fee is priced on it, and a
  // fee limit estimated again when signing must fit what was reserved (sender.ts, prepare).
  const required = await estimateEnergy(node, { from, to: r.to, value: 0n, data: r.data });
  return { gas: required > energy ? required : energy };
}

/** The token call of calldata (selector alone, as on EVM), its addresses in `T…` form. */
export function describeTronTokenCall(data: string): TokenCall | null {
  const call = describeEvmTokenCall(data);
  if (call === null) return null;
  const t = (a: string) => tronCodec.normalize(a)!;
  switch (call.kind) {
    case 'transfer':
      return { ...call, to: t(call.to) };
    case 'transferFrom':
      return { ...call, from: t(call.from), to: t(call.to) };
    case 'approve':
    case 'increaseAllowance':
      return { ...call, spender: t(call.spender) };
    case 'malformed':
      return call;
  }
}

type Param = { name?: string; type: string; components?: Param[] };

/** A decoded value with every `address` (viem's 0x form) turned into `T…`, by the ABI's types. */
function tronAddresses(param: Param, value: unknown): unknown {
  const array = /\[(\d*)\]$/.exec(param.type);
  if (array && Array.isArray(value)) {
    const inner = { ...param, type: param.type.slice(0, array.index) };
    return value.map((v) => tronAddresses(inner, v));
  }
  if (param.type === 'address' && typeof value === 'string') return tronCodec.normalize(value) ?? value;
  if (param.type === 'tuple' && param.components) {
    const parts = param.components;
    if (Array.isArray(value)) return value.map((v, i) => (parts[i] ? tronAddresses(parts[i], v) : v));
    if (typeof value === 'object' && value !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        const part = parts.find((p) => p.name === k);
        out[k] = part ? tronAddresses(part, v) : v;
      }
      return out;
    }
  }
  return value;
}

/** The revert's reason: its data decoded with the ABI's errors (Error(string), Panic and known errors too), else the node's words. */
function revertReason(r: ResolvedCall, output: string | undefined, message: string): string {
  if (typeof output === 'string' && /^([0-9a-fA-F]{2}){4,}$/.test(output)) {
    try {
      const e = decodeErrorResult({ abi: r.abi, data: `0x${output}` });
      if (e.errorName === 'Error') return String(e.args?.[0] ?? '');
      if (e.errorName === 'Panic') return `panic ${resultText(e.args?.[0])}`;
      const inputs = ((e.abiItem as { inputs?: Param[] }).inputs ?? []) as Param[];
      const args = (e.args ?? []).map((a, i) => resultText(inputs[i] ? tronAddresses(inputs[i], a) : a));
      return `${e.errorName}(${args.join(', ')})`;
    } catch {
      return `custom error 0x${output.slice(0, 8)} (not declared in the given abi)`;
    }
  }
  return message && !/^REVERT opcode executed$/.test(message) ? message : 'execution reverted without a reason';
}

/** java-tron writes messages as hex unless visible: text either way. */
function text(message: unknown): string {
  if (typeof message !== 'string') return '';
  if (/^([0-9a-fA-F]{2})+$/.test(message)) {
    const decoded = Buffer.from(message, 'hex').toString('utf8');
    if (/^[\x20-\x7e\s]*$/.test(decoded)) return decoded;
  }
  return message;
}
