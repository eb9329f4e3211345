/**
 * What TronSender (sender.ts) asks the Tron node while it quotes and prepares a transaction:
 * the chain's fee parameters, the energy a call needs, whether a TRX recipient must be
 * activated, and the raw transaction built by the node; plus the node's refusals mapped onto
 * typed errors. Kept apart from sender.ts so the Sender reads as the lifecycle (quote,
 * prepare, sign, expire) and this file as the HTTP calls beneath it.
 */
import { ChainRejectedError } from '../errors.js';
import type { NetworkData } from '../types.js';
import { tronHex } from './codec.js';
import type { TronNode } from './node.js';
import { resourceOpOf, type ResourceOp, type TronIntent } from './tx.js';

type Json = Record<string, unknown>;

/** The fee figures of /wallet/getchainparameters, in sun. */
export interface TronChainFees {
  energyFee: bigint;
  transactionFee: bigint;
  createAccountFee: bigint;
  createNewAccountFeeInSystemContract: bigint;
  /** getForbidTransferToContract: java-tron refuses TRX to a contract account (1 on mainnet). */
  forbidTransferToContract: boolean;
}

/** Reads the fee figures now (TronSender.chainFees caches them). */
export async function readChainFees(node: TronNode): Promise<TronChainFees> {
  const res = await node.post<{ chainParameter?: { key: string; value?: number | string }[] }>('wallet/getchainparameters');
  const all = new Map((res.chainParameter ?? []).map((p) => [p.key, BigInt(p.value ?? 0)]));
  const get = (key: string) => {
    const v = all.get(key);
    if (v === undefined) throw new Error(`the Tron node's chain parameters lack ${key}`);
    return v;
  };
  return {
    energyFee: get('getEnergyFee'),
    transactionFee: get('getTransactionFee'),
    createAccountFee: get('getCreateAccountFee'),
    createNewAccountFeeInSystemContract: get('getCreateNewAccountFeeInSystemContract'),
    // Absent on nodes that predate the proposal: nothing forbidden then.
    forbidTransferToContract: (all.get('getForbidTransferToContract') ?? 0n) === 1n,
  };
}

/**
 * The energy a call needs now; a revert is ChainRejectedError('reverted'). java-tron's
 * /wallet/estimateenergy first: the energy limit under which the call succeeds, which can be
 * above what it ends up using (a transfer of a whole token balance clears a storage slot and
 * gets energy back only at the end, so triggerconstantcontract's figure is too low a limit
 * for it). Nodes that do not offer it (vm.estimateEnergy off) answer without
 * `energy_required`: then triggerconstantcontract's energy_used.
 */
export async function estimateEnergy(node: TronNode, intent: TronIntent): Promise<bigint> {
  const est = await node.post<Json>('wallet/estimateenergy', triggerBody(intent));
  const required = est.energy_required as number | string | undefined;
  const estimated = (est.result ?? {}) as { result?: boolean; code?: string; message?: string };
  if (estimated.result === true && required !== undefined) return BigInt(required);
  // java-tron answers CONTRACT_EXE_ERROR when the call fails at the highest fee limit: it fails
  // whatever energy it is given (a revert, or an assert's invalid opcode, which the constant
  // call below would only report as OTHER_ERROR).
  if (estimated.code === 'CONTRACT_EXE_ERROR') {
    const nodeMessage = text(estimated.message);
    throw new ChainRejectedError('reverted', 'the Tron node says the call would fail', nodeMessage ? { nodeMessage } : {});
  }
  const res = await node.post<Json>('wallet/triggerconstantcontract', triggerBody(intent));
  const result = (res.result ?? {}) as { result?: boolean; code?: string; message?: string };
  const nodeMessage = text(result.message);
  // Nodes say a revert in several ways: ret FAILED, CONTRACT_EXE_ERROR, or the message alone;
  // a VM exception (an assert's invalid opcode, a bad jump) as OTHER_ERROR naming it. Only
  // running out of CPU time (OutOfTimeException) can go otherwise on another try.
  const failed = ((res.transaction as Json | undefined)?.ret as { ret?: string }[] | undefined)?.[0]?.ret === 'FAILED';
  const vmException = /vm\.program\.Program\$(?!OutOfTime)\w+Exception/.test(nodeMessage ?? '');
  const reverted = failed || vmException || result.code === 'CONTRACT_EXE_ERROR' || /REVERT/.test(nodeMessage ?? '');
  if (result.result !== true || reverted) {
    const reason = reverted || !result.code ? 'reverted' : 'refused';
    throw new ChainRejectedError(reason, 'the Tron node says the call would fail', nodeMessage ? { nodeMessage } : {});
  }
  return BigInt((res.energy_used as number | string | undefined) ?? 0);
}

/**
 * What a TRX transfer to `to` pays to create its account (0 when it exists). A contract
 * account is refused ('reverted'): while the chain forbids it, java-tron's TransferActuator
 * refuses every TRX transfer to a contract, so such a payout could never be sent (accepted,
 * it would be built again and again, its amount held for ever).
 */
export async function activationFee(node: TronNode, to: string, fees: TronChainFees): Promise<bigint> {
  const account = await node.post<Json>('wallet/getaccount', { address: tronHex(to), visible: false });
  if (fees.forbidTransferToContract && account.type === 'Contract') throw contractRecipient();
  const exists = typeof account.address === 'string' || account.create_time !== undefined;
  return exists ? 0n : fees.createNewAccountFeeInSystemContract + fees.createAccountFee;
}

/**
 * The node's raw_data_hex of the transaction (createtransaction, triggersmartcontract, and the
 * Stake 2.0 builders: (un)delegateresource, (un)freezebalancev2, cancelallunfreezev2,
 * withdrawexpireunfreeze).
 */
export async function buildRaw(node: TronNode, intent: TronIntent, feeLimit: bigint, given: NetworkData): Promise<string> {
  let tx: Json | undefined;
  const resource = resourceOpOf(given);
  if (resource !== null) {
    const res = await node.post<Json>(...resourceRequest(intent, resource));
    if (typeof res.Error === 'string') throw buildRefusal(res.Error);
    tx = res;
  } else if (intent.data === null) {
    const amount = intent.value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(intent.value) : intent.value;
    const res = await node.post<Json>('wallet/createtransaction', {
      owner_address: tronHex(intent.from),
      to_address: tronHex(intent.to),
      amount,
      visible: false,
    });
    if (typeof res.Error === 'string') throw buildRefusal(res.Error);
    tx = res;
  } else {
    const res = await node.post<Json>('wallet/triggersmartcontract', { ...triggerBody(intent), fee_limit: Number(feeLimit) });
    const result = (res.result ?? {}) as { result?: boolean; message?: string };
    if (result.result !== true) throw buildRefusal(text(result.message) ?? 'triggersmartcontract failed');
    tx = res.transaction as Json | undefined;
  }
  const hex = tx?.raw_data_hex;
  if (typeof hex !== 'string' || !/^([0-9a-fA-F]{2})+$/.test(hex)) throw new Error('the Tron node answered without raw_data_hex');
  return hex.toLowerCase();
}

/** java-tron's builder of a resource operation and its request body. */
function resourceRequest(intent: TronIntent, op: ResourceOp): [string, Json] {
  const owner = { owner_address: tronHex(intent.from), visible: false };
  switch (op.op) {
    case 'delegate':
    case 'undelegate':
      return [
        `wallet/${op.op}resource`,
        { ...owner, receiver_address: tronHex(intent.to), balance: Number(op.balance), resource: op.resource },
      ];
    case 'freeze':
      return ['wallet/freezebalancev2', { ...owner, frozen_balance: Number(op.balance), resource: op.resource }];
    case 'unfreeze':
      return ['wallet/unfreezebalancev2', { ...owner, unfreeze_balance: Number(op.balance), resource: op.resource }];
    case 'cancelUnfreeze':
      return ['wallet/cancelallunfreezev2', owner];
    case 'withdrawUnfrozen':
      return ['wallet/withdrawexpireunfreeze', owner];
  }
}

function triggerBody(intent: TronIntent): Json {
  return {
    owner_address: tronHex(intent.from),
    contract_address: tronHex(intent.to),
    data: intent.data!.slice(2).toLowerCase(),
    visible: false,
  };
}

/** The refusal of TRX sent to a contract account (java-tron: "Cannot transfer TRX to a smartContract."). */
const CONTRACT_RECIPIENT = /Cannot transfer TRX to a smartContract/i;

function contractRecipient(nodeMessage?: string): ChainRejectedError {
  return new ChainRejectedError('reverted', 'Tron refuses TRX sent to a smart contract: the recipient is a contract account', {
    ...(nodeMessage ? { nodeMessage } : {}),
  });
}

/** A node's refusal to build (java-tron's `Error` or a failed `result`), mapped onto the typed reasons. */
function buildRefusal(message: string): ChainRejectedError {
  const nodeMessage = text(message) ?? message;
  // Final whatever is tried again: 'reverted' voids the row before signing and its payout fails.
  if (CONTRACT_RECIPIENT.test(nodeMessage)) return contractRecipient(nodeMessage);
  const reason = /balance is not sufficient|not enough balance|insufficient/i.test(nodeMessage) ? 'insufficient-funds' : 'refused';
  return new ChainRejectedError(reason, 'the Tron node refused to build the transaction', { nodeMessage });
}

/** java-tron writes messages as hex unless visible: text either way. */
function text(message: unknown): string | undefined {
  if (typeof message !== 'string' || message === '') return undefined;
  if (/^([0-9a-fA-F]{2})+$/.test(message)) {
    const decoded = Buffer.from(message, 'hex').toString('utf8');
    if (/^[\x20-\x7e\s]*$/.test(decoded)) return decoded;
  }
  return message;
}
