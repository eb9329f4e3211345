/**
 * Contract calls from a client's JSON ABI: validation, argument conversion, encoding,
 * eth_call reads, simulation with gas estimation, and revert reasons in plain words.
 *
 * The ABI, method and arguments come straight from an API request, so nothing reaches
 * viem unchecked: a malformed ABI or a wrong argument is a 400 naming the field, never a
 * TypeError (500) or, worse, calldata other than what the client meant. Integers arrive as
 * decimal strings (JSON numbers lose precision above 2^53) and become bigint here.
 */
import {
  BaseError,
  ContractFunctionRevertedError,
  decodeFunctionResult,
  encodeFunctionData,
  getContractError,
  parseAbi,
  RpcRequestError,
  toFunctionSignature,
  type Abi,
  type AbiFunction,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { BusinessRuleError, ValidationError, type FieldIssue } from '../../lib/errors.js';
import type { ContractCallInput, EncodedContractCall } from '../types.js';
import { ARRAY_SUFFIX, baseOf, elementary, scalar, type Report } from './typed-data.js';
import { parseEvmAddress } from './address.js';

type Param = { name?: string; type: string; components?: Param[] };

export interface ResolvedCall extends EncodedContractCall {
  item: AbiFunction;
  value: bigint;
  args: unknown[];
  /** The function plus every error the client's ABI declares plus well-known ones, to decode reverts. */
  abi: Abi;
}

const ENTRY_TYPES = new Set(['function', 'constructor', 'event', 'error', 'fallback', 'receive']);
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MAX_DEPTH = 16;
const MAX_ISSUES = 20;

/**
 * Standard errors (ERC-6093 and OpenZeppelin's), so a revert is readable even when the
 * client's ABI holds only the function it calls, as the spec's examples do.
 */
const KNOWN_ERRORS = parseAbi([
  'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
  'error ERC20InvalidSender(address sender)',
  'error ERC20InvalidReceiver(address receiver)',
  'error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)',
  'error ERC20InvalidApprover(address approver)',
  'error ERC20InvalidSpender(address spender)',
  'error ERC721InvalidOwner(address owner)',
  'error ERC721NonexistentToken(uint256 tokenId)',
  'error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner)',
  'error ERC721InsufficientApproval(address operator, uint256 tokenId)',
  'error ERC1155InsufficientBalance(address sender, uint256 balance, uint256 needed, uint256 tokenId)',
  'error ERC1155MissingApprovalForAll(address operator, address owner)',
  'error OwnableUnauthorizedAccount(address account)',
  'error AccessControlUnauthorizedAccount(address account, bytes32 neededRole)',
  'error EnforcedPause()',
  'error ReentrancyGuardReentrantCall()',
  'error SafeERC20FailedOperation(address token)',
]);

/** Checks a parameter declaration: a Solidity type viem can encode, tuples with their components. */
function checkParam(p: unknown, at: string, report: Report, depth = 0): void {
  const param = p as Partial<Param> | null;
  if (typeof param !== 'object' || param === null || typeof param.type !== 'string') return report(at, 'must be an object with a type');
  if (param.name !== undefined && typeof param.name !== 'string') report(`${at}.name`, 'must be a string');
  const base = baseOf(param.type);
  if (base === null || /\[\d{7,}\]/.test(param.type)) return report(`${at}.type`, `'${param.type}' has a malformed array size`);
  if (base === 'tuple') {
    if (depth >= MAX_DEPTH) return report(at, 'nests too deeply');
    if (!Array.isArray(param.components) || param.components.length === 0)
      return report(`${at}.components`, 'a tuple needs its components');
    param.components.forEach((c, i) => checkParam(c, `${at}.components.${i}`, report, depth + 1));
  } else if (!elementary(base)) {
    // `uint`/`int` aliases are refused rather than guessed: the selector hashes the canonical name.
    report(`${at}.type`, `'${param.type}' is not a supported Solidity type (write sizes in full, e.g. uint256)`);
  }
}

function checkAbi(abi: unknown[], at: string, report: Report): void {
  abi.forEach((e, i) => {
    const entry = e as Record<string, unknown> | null;
    const here = `${at}.${i}`;
    if (typeof entry !== 'object' || entry === null || !ENTRY_TYPES.has(entry.type as string)) {
      return report(here, `must be an ABI entry with type one of ${[...ENTRY_TYPES].join(', ')}`);
    }
    if (['function', 'event', 'error'].includes(entry.type as string) && !(typeof entry.name === 'string' && IDENTIFIER.test(entry.name))) {
      report(`${here}.name`, 'must be an identifier');
    }
    for (const key of ['inputs', 'outputs'] as const) {
      if (entry[key] === undefined) continue;
      if (!Array.isArray(entry[key])) report(`${here}.${key}`, 'must be an array');
      else (entry[key] as unknown[]).forEach((p, j) => checkParam(p, `${here}.${key}.${j}`, report));
    }
  });
}

/**
 * How a family spells addresses in a call: the contract's address (its canonical form), and
 * an `address` argument, turned into the checksummed 0x form viem encodes (the TVM's ABI is
 * the EVM's: 20 bytes). EVM: EIP-55 for both; Tron: base58check `T…` (chains/tron/contracts.ts).
 */
export interface AbiAddresses {
  contract(input: unknown): string | null;
  argument(input: unknown): string | null;
  /** What an invalid contract address, and an invalid argument, are told. */
  invalidContract: string;
  invalidArgument: string;
}

export const EVM_ADDRESSES: AbiAddresses = {
  contract: parseEvmAddress,
  argument: parseEvmAddress,
  invalidContract: 'is not a valid address (or its EIP-55 checksum is wrong)',
  invalidArgument: 'must be a valid address (mixed case needs a correct EIP-55 checksum)',
};

/** A JSON argument in the form viem encodes: integers as bigint, tuples as positional arrays. */
function convert(param: Param, value: unknown, at: string, report: Report, addresses: AbiAddresses, depth = 0): unknown {
  if (depth > MAX_DEPTH) return report(at, 'nests too deeply');
  const array = ARRAY_SUFFIX.exec(param.type);
  if (array) {
    if (!Array.isArray(value)) return report(at, `must be an array (${param.type})`);
    if (array[1] !== '' && value.length !== Number(array[1])) return report(at, `must have exactly ${array[1]} items (${param.type})`);
    const inner = { ...param, type: param.type.slice(0, array.index) };
    return value.map((v, i) => convert(inner, v, `${at}.${i}`, report, addresses, depth + 1));
  }
  if (param.type === 'tuple') {
    const parts = param.components!;
    if (Array.isArray(value)) {
      if (value.length !== parts.length) return report(at, `must have ${parts.length} fields`);
      return parts.map((c, i) => convert(c, value[i], `${at}.${i}`, report, addresses, depth + 1));
    }
    if (typeof value !== 'object' || value === null) return report(at, 'must be an object or an array (tuple)');
    return parts.map((c, i) => {
      const v = c.name ? (value as Record<string, unknown>)[c.name] : undefined;
      if (v === undefined) return report(`${at}.${c.name || i}`, 'is missing');
      return convert(c, v, `${at}.${c.name}`, report, addresses, depth + 1);
    });
  }
  const kind = elementary(param.type)!;
  if (kind.kind === 'address') return addresses.argument(value) ?? report(at, addresses.invalidArgument);
  return scalar(kind, param.type, value, at, report);
}

function stateMutability(item: Record<string, unknown>): string {
  if (typeof item.stateMutability === 'string') return item.stateMutability;
  // Pre-0.5 ABIs: constant and payable flags instead.
  return item.constant === true ? 'view' : item.payable === true ? 'payable' : 'nonpayable';
}

function invalid(issues: FieldIssue[]): never {
  throw new ValidationError(`${issues[0]!.field} ${issues[0]!.message}`, issues);
}

/** Validates the call and encodes it, picking the overload whose parameters fit the arguments. */
export function resolveCall(call: ContractCallInput, field: string, addresses: AbiAddresses = EVM_ADDRESSES): ResolvedCall {
  const issues: FieldIssue[] = [];
  const report: Report = (f, message) => void (issues.length < MAX_ISSUES && issues.push({ field: f, message }));
  const to = addresses.contract(call.address);
  if (!to) report(`${field}.address`, addresses.invalidContract);
  if (!Array.isArray(call.abi)) report(`${field}.abi`, 'must be an array of ABI entries');
  else checkAbi(call.abi, `${field}.abi`, report);
  if (issues.length) invalid(issues);

  const method = call.method.replace(/\s+/g, '');
  const bySignature = method.includes('(');
  const functions = (call.abi as Record<string, unknown>[]).filter((e) => e.type === 'function') as unknown as AbiFunction[];
  const named = functions.filter((f) => (bySignature ? safeSignature(f) === method : f.name === method));
  if (named.length === 0) invalid([{ field: `${field}.method`, message: `'${call.method}' is not a function of the given abi` }]);
  for (const f of named) {
    if (!Array.isArray(f.inputs)) invalid([{ field: `${field}.abi`, message: `${f.name} has no inputs array` }]);
    if (!Array.isArray(f.outputs)) invalid([{ field: `${field}.abi`, message: `${f.name} has no outputs array` }]);
  }
  const sized = named.filter((f) => f.inputs.length === call.parameters.length);
  if (sized.length === 0) {
    const counts = [...new Set(named.map((f) => f.inputs.length))].join(' or ');
    invalid([{ field: `${field}.parameters`, message: `${method} takes ${counts} parameters, ${call.parameters.length} given` }]);
  }
  const fits = sized.map((f) => {
    const own: FieldIssue[] = [];
    const mine: Report = (f2, message) => void (own.length < MAX_ISSUES && own.push({ field: f2, message }));
    const args = f.inputs.map((p, i) => convert(p as Param, call.parameters[i], `${field}.parameters.${i}`, mine, addresses));
    return { f, args, own };
  });
  const ok = fits.filter((x) => x.own.length === 0);
  if (ok.length === 0) invalid(fits[0]!.own);
  if (ok.length > 1) {
    invalid([
      { field: `${field}.method`, message: `'${call.method}' is ambiguous; give the full signature, e.g. '${safeSignature(ok[0]!.f)}'` },
    ]);
  }
  const { f: item, args } = ok[0]!;
  const value = call.value ?? 0n;
  if (value > 0n && stateMutability(item as unknown as Record<string, unknown>) !== 'payable') {
    invalid([{ field: `${field}.value`, message: `${safeSignature(item)} is not payable: it cannot receive native coin` }]);
  }
  let data: Hex;
  try {
    data = encodeFunctionData({ abi: [item], functionName: item.name, args });
  } catch (err) {
    invalid([{ field: `${field}.parameters`, message: shortOf(err) }]);
  }
  const errors = (call.abi as Record<string, unknown>[]).filter((e) => e.type === 'error') as unknown as Abi;
  return {
    to: to!,
    data,
    functionName: item.name,
    signature: safeSignature(item),
    stateMutability: stateMutability(item as unknown as Record<string, unknown>),
    item,
    args,
    value,
    abi: [item, ...errors, ...KNOWN_ERRORS],
  };
}

/** eth_call as `from`, decoded with the function's outputs, as text. */
export async function readCall(client: PublicClient, call: ContractCallInput, from: string, field: string): Promise<string> {
  const r = resolveCall(call, field);
  const data = await ethCall(client, r, from, field);
  try {
    return resultText(decodeFunctionResult({ abi: [r.item], functionName: r.item.name, data }));
  } catch (err) {
    throw new BusinessRuleError('CONTRACT_CALL_FAILED', `${r.signature} returned data that does not match the ABI's outputs`, [
      { field, message: shortOf(err) },
    ]);
  }
}

/**
 * Runs the call as `from` against the latest state (eth_call, so a revert is caught before
 * anything is signed), then estimates its gas. Return data is not decoded: a token such as
 * mainnet USDT returns nothing from `transfer` although ABIs often say `bool`.
 */
export async function simulateCall(client: PublicClient, call: ContractCallInput, from: string, field: string): Promise<{ gas: bigint }> {
  const r = resolveCall(call, field);
  await ethCall(client, r, from, field);
  try {
    return { gas: await client.estimateGas({ account: from as Address, to: r.to as Address, data: r.data as Hex, value: r.value }) };
  } catch (err) {
    throw callFailure(err, r, from, field);
  }
}

/** The raw return data; a missing contract or a failing call is a 422. */
async function ethCall(client: PublicClient, r: ResolvedCall, from: string, field: string): Promise<Hex> {
  const [code, result] = await Promise.allSettled([
    client.getCode({ address: r.to as Address }),
    client.call({ account: from as Address, to: r.to as Address, data: r.data as Hex, value: r.value }),
  ]);
  if (code.status === 'rejected') throw code.reason;
  if (!code.value || code.value === '0x') throw notAContract(r, field);
  if (result.status === 'rejected') throw callFailure(result.reason, r, from, field);
  return result.value.data ?? '0x';
}

/** Scalars as strings (integers in decimal); arrays, structs and several outputs as JSON. */
export function resultText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value !== 'object') return String(value);
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

function notAContract(r: ResolvedCall, field: string): BusinessRuleError {
  return new BusinessRuleError('NOT_A_CONTRACT', `There is no contract at ${r.to} on this chain`, [
    { field: `${field}.address`, message: 'no contract code at this address' },
  ]);
}

/**
 * A revert (decoded with the ABI's errors and the well-known ones) or any other answer of
 * the node becomes a 422; a transport failure is rethrown for the adapter to make a 503.
 */
function callFailure(err: unknown, r: ResolvedCall, from: string, field: string): unknown {
  if (!(err instanceof BaseError)) return err;
  const contractError = getContractError(err, {
    abi: r.abi,
    args: r.args,
    functionName: r.item.name,
    address: r.to as Address,
    sender: from as Address,
  });
  const revert = contractError.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
  if (revert) {
    const reason = revertReason(revert);
    return new BusinessRuleError('CONTRACT_REVERTED', `${r.signature} reverted: ${reason}`, [{ field, message: reason }]);
  }
  const rpc = err.walk((e) => e instanceof RpcRequestError) as RpcRequestError | null;
  if (rpc && ![-32005, -32002, 429].includes(rpc.code)) {
    return new BusinessRuleError('CONTRACT_CALL_FAILED', `${r.signature} cannot be executed: ${rpc.details || rpc.shortMessage}`, [
      { field, message: rpc.details || rpc.shortMessage },
    ]);
  }
  return err;
}

function revertReason(e: ContractFunctionRevertedError): string {
  const decoded = e.data;
  if (decoded && decoded.errorName !== 'Error' && decoded.errorName !== 'Panic') {
    return `${decoded.errorName}(${(decoded.args ?? []).map((a) => resultText(a)).join(', ')})`;
  }
  if (e.reason) return e.reason;
  if (e.signature) return `custom error ${e.signature} (not declared in the given abi)`;
  return 'execution reverted without a reason';
}

function safeSignature(f: AbiFunction): string {
  try {
    return toFunctionSignature(f);
  } catch {
    return `${f.name}(?)`;
  }
}

function shortOf(err: unknown): string {
  return ((err as { shortMessage?: string }).shortMessage ?? (err as Error).message ?? String(err)).slice(0, 300);
}
