// Endpoints that build, simulate or broadcast transactions: createtransaction and the Stake
// 2.0 builders (validated like java-tron's createTransactionCapsule, nothing kept),
// triggersmartcontract / triggerconstantcontract / estimateenergy, and the two broadcasts.
import { parseAddress, type Hex41 } from './address.js';
import { ContractValidateError } from './actuators.js';
import { ParamError, intParam, type Handler, type Req } from './http.js';
import { compact, hexText, textOrHex } from './json.js';
import type { TronNode } from './node.js';
import { validateOnly, type BroadcastResult } from './processor.js';
import {
  UnsupportedContractError,
  buildTransaction,
  parseTransactionHex,
  parseTransactionJson,
  printTransaction,
  type ContractType,
  type ContractValue,
  type Tx,
} from './transactions.js';
import { constantCall, estimateEnergy, isConstantCall, selectorOf, toTronLog, type ContractRecord } from './vm.js';

const RESOURCES = new Set(['BANDWIDTH', 'ENERGY', 'TRON_POWER']);

function resource(req: Req): Record<string, string> {
  const r = req.params.resource;
  if (r === undefined || r === 'BANDWIDTH' || r === 0 || r === '0') return {};
  if (r === 1 || r === '1') return { resource: 'ENERGY' };
  if (typeof r === 'string' && RESOURCES.has(r)) return { resource: r };
  throw new ParamError(`Unknown enum value: ${String(r)}`);
}

/** Builders: request fields -> contract value in canonical hex form. */
const BUILDERS: Record<string, { type: ContractType; value: (r: Req) => ContractValue }> = {
  createtransaction: {
    type: 'TransferContract',
    value: (r) => ({ owner_address: addr(r, 'owner_address'), to_address: addr(r, 'to_address'), amount: intParam(r.params, 'amount') }),
  },
  freezebalancev2: {
    type: 'FreezeBalanceV2Contract',
    value: (r) =>
      compact({
        owner_address: addr(r, 'owner_address'),
        frozen_balance: intParam(r.params, 'frozen_balance'),
        ...resource(r),
      }) as ContractValue,
  },
  unfreezebalancev2: {
    type: 'UnfreezeBalanceV2Contract',
    value: (r) =>
      compact({
        owner_address: addr(r, 'owner_address'),
        unfreeze_balance: intParam(r.params, 'unfreeze_balance'),
        ...resource(r),
      }) as ContractValue,
  },
  withdrawexpireunfreeze: { type: 'WithdrawExpireUnfreezeContract', value: (r) => ({ owner_address: addr(r, 'owner_address') }) },
  cancelallunfreezev2: { type: 'CancelAllUnfreezeV2Contract', value: (r) => ({ owner_address: addr(r, 'owner_address') }) },
  delegateresource: {
    type: 'DelegateResourceContract',
    value: (r) =>
      compact({
        owner_address: addr(r, 'owner_address'),
        receiver_address: addr(r, 'receiver_address'),
        balance: intParam(r.params, 'balance'),
        ...resource(r),
        lock: r.params.lock === true || r.params.lock === 'true',
        lock_period: intParam(r.params, 'lock_period'),
      }) as ContractValue,
  },
  undelegateresource: {
    type: 'UnDelegateResourceContract',
    value: (r) =>
      compact({
        owner_address: addr(r, 'owner_address'),
        receiver_address: addr(r, 'receiver_address'),
        balance: intParam(r.params, 'balance'),
        ...resource(r),
      }) as ContractValue,
  },
};

const addr = (r: Req, field: string): Hex41 => parseAddress(r.params[field], r.visible, field);

interface Trigger {
  owner: Hex41;
  contract: Hex41;
  data: string;
  feeLimit: number;
  value: ContractValue;
}

/** Util.validateParameter + the servlet's data assembly (function_selector + parameter, or data). */
function parseTrigger(r: Req): Trigger {
  if (!r.params.owner_address) throw new InvalidParameter("owner_address isn't set.");
  if (!r.params.contract_address)
    throw new InvalidParameter(r.params.data ? 'stand-in: contract deployment is not modelled' : "contract_address isn't set.");
  const owner = addr(r, 'owner_address');
  const contract = addr(r, 'contract_address');
  let data: string;
  if (typeof r.params.function_selector === 'string' && r.params.function_selector !== '') {
    const parameter = typeof r.params.parameter === 'string' ? r.params.parameter : '';
    data = selectorOf(r.params.function_selector) + parameter;
  } else data = typeof r.params.data === 'string' ? r.params.data : '';
  if (!/^([0-9a-fA-F]{2})*$/.test(data)) throw new InvalidParameter('data and parameter must be hex');
  data = data.toLowerCase();
  const callValue = intParam(r.params, 'call_value');
  const value = compact({ owner_address: owner, contract_address: contract, data, call_value: callValue }) as ContractValue;
  return { owner, contract, data, feeLimit: intParam(r.params, 'fee_limit'), value };
}

class InvalidParameter extends Error {}

/** A TransactionExtention-style failure: `{ result: { code, message } }`. */
function retFailure(err: unknown, visible: boolean): Record<string, unknown> {
  if (err instanceof ContractValidateError)
    return { result: { code: 'CONTRACT_VALIDATE_ERROR', message: textOrHex(err.message, visible) } };
  const cls = err instanceof InvalidParameter ? 'java.security.InvalidParameterException' : 'java.lang.IllegalArgumentException';
  return { result: { code: 'OTHER_ERROR', message: textOrHex(`class ${cls} : ${(err as Error).message}`, visible) } };
}

/**
 * java-tron's answer to a constant call that ends on a VM exception other than REVERT: the
 * exception escapes Wallet.callConstantContract and the servlet prints it as OTHER_ERROR with
 * `class <exception> : <message>` (an assert's invalid opcode is IllegalOperationException).
 */
const VM_EXCEPTIONS: Partial<Record<string, [string, string]>> = {
  ILLEGAL_OPERATION: ['IllegalOperationException', 'Invalid operation code: opCode[fe];'],
  BAD_JUMP_DESTINATION: ['BadJumpDestinationException', "Operation with pc isn't 'JUMPDEST'"],
  STACK_TOO_SMALL: ['StackTooSmallException', 'Expected stack size bigger than actual'],
  STACK_TOO_LARGE: ['StackTooLargeException', 'Expected stack size smaller than actual'],
  OUT_OF_ENERGY: ['OutOfEnergyException', 'Not enough energy'],
};

function vmExceptionFailure(result: string, message: string | undefined, visible: boolean): Record<string, unknown> {
  const known = VM_EXCEPTIONS[result];
  const text = known
    ? `class org.tron.core.vm.program.Program$${known[0]} : ${known[1]}`
    : `class java.lang.RuntimeException : ${message ?? result}`;
  return { result: { code: 'OTHER_ERROR', message: textOrHex(text, visible) } };
}

function contractOf(node: TronNode, address: Hex41, missing: string): ContractRecord {
  const c = node.contracts.get(address);
  if (!c) throw new ContractValidateError(missing);
  return c;
}

const build = (node: TronNode, type: ContractType, value: ContractValue, feeLimit?: number): Tx =>
  buildTransaction(type, value, node.head(), node.now(), feeLimit);

/** triggerconstantcontract (and triggersmartcontract on a view function), at the head or the solidified block. */
async function constant(node: TronNode, r: Req, solid: boolean, viaTrigger = false): Promise<Record<string, unknown>> {
  const t = parseTrigger(r);
  const c = contractOf(node, t.contract, viaTrigger ? 'No contract or not a valid smart contract' : 'Smart contract is not exist.');
  const tx = build(node, 'TriggerSmartContract', t.value, t.feeLimit || undefined);
  const block = solid ? node.solid().evmBlock : 'latest';
  const out = await node.exclusive(() => constantCall(node.evm, t.owner, c, t.data, block, t.feeLimit, node.params));
  if (out.result !== 'SUCCESS' && out.result !== 'REVERT') return vmExceptionFailure(out.result, out.message, r.visible);
  const printed = printTransaction(tx, r.visible, { withVisible: true });
  return {
    result: compact({ result: true, message: out.message ? textOrHex(out.message, r.visible) : undefined }),
    energy_used: out.energy,
    constant_result: [out.output],
    ...(out.logs.length > 0 ? { logs: out.logs.map((l) => toTronLog(l)) } : {}),
    transaction: { ret: [out.result === 'SUCCESS' ? {} : { ret: 'FAILED' }], ...printed },
  };
}

/** The contract read /walletsolidity serves as of the solidified block. */
export function solidityTxRoutes(node: TronNode): [string, Handler][] {
  return [['triggerconstantcontract', (r) => constant(node, r, true).catch((err) => retFailure(err, r.visible))]];
}

export function txRoutes(node: TronNode): [string, Handler][] {
  const routes: [string, Handler][] = Object.entries(BUILDERS).map(([path, b]) => [
    path,
    (r: Req) => {
      const tx = build(node, b.type, b.value(r));
      validateOnly(node, tx);
      return printTransaction(tx, r.visible, { withVisible: true });
    },
  ]);

  routes.push(
    [
      'triggersmartcontract',
      async (r) => {
        try {
          const t = parseTrigger(r);
          const c = contractOf(node, t.contract, 'No contract or not a valid smart contract');
          if (isConstantCall(c, t.data)) return await constant(node, r, false, true);
          const tx = build(node, 'TriggerSmartContract', t.value, t.feeLimit || undefined);
          return { result: { result: true }, transaction: printTransaction(tx, r.visible, { withVisible: true }) };
        } catch (err) {
          return retFailure(err, r.visible);
        }
      },
    ],
    ['triggerconstantcontract', (r) => constant(node, r, false).catch((err) => retFailure(err, r.visible))],
    [
      'estimateenergy',
      async (r) => {
        try {
          const t = parseTrigger(r);
          const c = contractOf(node, t.contract, 'Smart contract is not exist.');
          const est = await node.exclusive(() => estimateEnergy(node.evm, t.owner, c, t.data, node.params));
          if (!est.ok) return { result: { code: 'CONTRACT_EXE_ERROR', message: textOrHex(est.message, r.visible) } };
          return { result: { result: true }, energy_required: est.energyRequired };
        } catch (err) {
          return retFailure(err, r.visible);
        }
      },
    ],
    [
      'broadcasttransaction',
      async (r) => {
        let tx: Tx;
        try {
          tx = parseTransactionJson(r.body);
        } catch (err) {
          if (err instanceof UnsupportedContractError) return broadcastReply(unsupported(err), r.visible);
          throw err;
        }
        return broadcastReply(await node.broadcast(tx), r.visible);
      },
    ],
    [
      'broadcasthex',
      async (r) => {
        let tx: Tx;
        try {
          tx = parseTransactionHex(r.params.transaction);
        } catch (err) {
          if (err instanceof UnsupportedContractError) return { result: false, ...hexReply(unsupported(err)) };
          throw err;
        }
        const res = await node.broadcast(tx);
        return { result: res.result, ...hexReply(res), transaction: JSON.stringify(printTransaction(tx, true)), txid: tx.txID };
      },
    ],
  );
  return routes;
}

const unsupported = (err: Error): BroadcastResult => ({
  result: false,
  code: 'CONTRACT_VALIDATE_ERROR',
  message: `Contract validate error : ${err.message}`,
  txid: '',
});

/** broadcasttransaction: `{ result: true, txid }` or `{ code, txid, message }` (message hex unless visible). */
function broadcastReply(res: BroadcastResult, visible: boolean): Record<string, unknown> {
  if (res.result) return { result: true, txid: res.txid };
  return { code: res.code, txid: res.txid, message: visible ? res.message : hexText(res.message) };
}

/** broadcasthex spells its Return out in full, with the message as text. */
function hexReply(res: BroadcastResult): Record<string, unknown> {
  return res.result ? { code: 'SUCCESS', message: '' } : { code: res.code, message: res.message };
}
