/**
 * The bytes of the two Tron transactions the service sends (Tron.proto): a TRX transfer
 * (TransferContract) and a TRC-20 call (TriggerSmartContract), as java-tron serializes their
 * `Transaction.raw` (fields in number order, proto3 defaults left out), the signed
 * `Transaction` /wallet/broadcasthex takes, and the txID (sha256 of the raw bytes).
 *
 * The node builds a transaction (it picks the reference block and the expiration); the
 * sender never signs those bytes as they come: it reads the node's header fields and encodes
 * the transaction again from what it asked for (owner, recipient, amount or calldata, fee
 * limit). Only when both encodings are byte for byte the same is it signed, so a node that
 * adds, drops or changes anything (another recipient, an amount, a memo, a permission) is
 * refused before any signature exists.
 */
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils';
import { ValidationError } from '../../lib/errors.js';
import type { TxIntent } from '../types.js';
import { addressWord, uintWord } from './calls.js';
import { tronAddressBytes } from './codec.js';

/** Transaction.Contract.ContractType numbers. */
const TRANSFER_CONTRACT = 1;
const TRIGGER_SMART_CONTRACT = 31;
const FREEZE_BALANCE_V2_CONTRACT = 54;
const UNFREEZE_BALANCE_V2_CONTRACT = 55;
const WITHDRAW_EXPIRE_UNFREEZE_CONTRACT = 56;
const DELEGATE_RESOURCE_CONTRACT = 57;
const UNDELEGATE_RESOURCE_CONTRACT = 58;
const CANCEL_ALL_UNFREEZE_V2_CONTRACT = 59;
/** Stake 2.0's ResourceCode: what staked TRX gives (common.proto). */
const RESOURCE_CODES = { BANDWIDTH: 0n, ENERGY: 1n } as const;
export type TronResource = keyof typeof RESOURCE_CODES;

/** What a transaction does: a TRX transfer, or a TRC-20 (any contract) call without TRX. */
export type TronCall =
  | { kind: 'transfer'; owner: Uint8Array; to: Uint8Array; amount: bigint }
  | { kind: 'trigger'; owner: Uint8Array; contract: Uint8Array; data: Uint8Array; feeLimit: bigint }
  /** Stake 2.0: lend (delegate) or take back (undelegate) `balance` sun of staked TRX's resource; never locked. */
  | { kind: 'delegate' | 'undelegate'; owner: Uint8Array; receiver: Uint8Array; resource: TronResource; balance: bigint }
  /** Stake 2.0: stake (freeze) or unstake (unfreeze, unlocked after the chain's delay) `balance` sun for `resource`. */
  | { kind: 'freeze' | 'unfreeze'; owner: Uint8Array; resource: TronResource; balance: bigint }
  /** Stake 2.0: every pending unstake back into its stake (cancel), or the unlocked ones paid out (withdraw). */
  | { kind: 'cancelUnfreeze' | 'withdrawUnfrozen'; owner: Uint8Array };

/** The fields of `Transaction.raw` the node chooses (TaPoS reference, deadline, creation time). */
export interface RawHeader {
  /** 2 bytes: the reference block's number, low bytes (hex). */
  refBlockBytes: string;
  /** 8 bytes of the reference block's id (hex). */
  refBlockHash: string;
  /** Unix ms after which no block can include the transaction. */
  expiration: bigint;
  /** Unix ms the node built it (0 when absent). */
  timestamp: bigint;
}

class Writer {
  readonly #parts: Uint8Array[] = [];

  varint(field: number, value: bigint): this {
    if (value === 0n) return this; // proto3: a default is not written
    if (value < 0n) throw new Error('negative values are never written here');
    this.#tag(field, 0);
    this.#raw(value);
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    if (value.length === 0) return this;
    this.#tag(field, 2);
    this.#raw(BigInt(value.length));
    this.#parts.push(value);
    return this;
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.#parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of this.#parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  #tag(field: number, wire: number): void {
    this.#raw(BigInt((field << 3) | wire));
  }

  #raw(v: bigint): void {
    const out: number[] = [];
    while (v > 0x7fn) {
      out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    out.push(Number(v));
    this.#parts.push(Uint8Array.from(out));
  }
}

const utf8 = (s: string) => new TextEncoder().encode(s);

/** `Transaction.raw` of `call` under `header`: exactly what java-tron's builders produce. */
export function encodeRaw(call: TronCall, header: RawHeader): Uint8Array {
  const [type, name, parameter] = contractOf(call);
  const any = new Writer()
    .bytes(1, utf8(`type.googleapis.com/protocol.${name}`))
    .bytes(2, parameter)
    .finish();
  const contract = new Writer().varint(1, BigInt(type)).bytes(2, any).finish();
  return new Writer()
    .bytes(1, hexToBytes(header.refBlockBytes))
    .bytes(4, hexToBytes(header.refBlockHash))
    .varint(8, header.expiration)
    .bytes(11, contract)
    .varint(14, header.timestamp)
    .varint(18, call.kind === 'trigger' ? call.feeLimit : 0n)
    .finish();
}

/** The contract type, its message name and its encoded parameter (Tron.proto, balance_contract.proto). */
function contractOf(call: TronCall): [number, string, Uint8Array] {
  switch (call.kind) {
    case 'transfer':
      return [TRANSFER_CONTRACT, 'TransferContract', new Writer().bytes(1, call.owner).bytes(2, call.to).varint(3, call.amount).finish()];
    case 'trigger':
      return [
        TRIGGER_SMART_CONTRACT,
        'TriggerSmartContract',
        new Writer().bytes(1, call.owner).bytes(2, call.contract).bytes(4, call.data).finish(),
      ];
    case 'delegate':
    case 'undelegate':
      return [
        call.kind === 'delegate' ? DELEGATE_RESOURCE_CONTRACT : UNDELEGATE_RESOURCE_CONTRACT,
        call.kind === 'delegate' ? 'DelegateResourceContract' : 'UnDelegateResourceContract',
        new Writer().bytes(1, call.owner).varint(2, RESOURCE_CODES[call.resource]).varint(3, call.balance).bytes(4, call.receiver).finish(),
      ];
    case 'freeze':
    case 'unfreeze':
      return [
        call.kind === 'freeze' ? FREEZE_BALANCE_V2_CONTRACT : UNFREEZE_BALANCE_V2_CONTRACT,
        call.kind === 'freeze' ? 'FreezeBalanceV2Contract' : 'UnfreezeBalanceV2Contract',
        new Writer().bytes(1, call.owner).varint(2, call.balance).varint(3, RESOURCE_CODES[call.resource]).finish(),
      ];
    case 'cancelUnfreeze':
      return [CANCEL_ALL_UNFREEZE_V2_CONTRACT, 'CancelAllUnfreezeV2Contract', new Writer().bytes(1, call.owner).finish()];
    case 'withdrawUnfrozen':
      return [WITHDRAW_EXPIRE_UNFREEZE_CONTRACT, 'WithdrawExpireUnfreezeContract', new Writer().bytes(1, call.owner).finish()];
  }
}

export class TronTxFormatError extends Error {}

/** Reads the node-chosen header fields of raw bytes (varint and length-delimited fields only). */
export function readHeader(raw: Uint8Array): RawHeader {
  let pos = 0;
  const varint = (): bigint => {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (pos >= raw.length || shift > 63n) throw new TronTxFormatError('malformed varint');
      const b = raw[pos++]!;
      v |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return v;
    }
  };
  const header: RawHeader = { refBlockBytes: '', refBlockHash: '', expiration: 0n, timestamp: 0n };
  while (pos < raw.length) {
    const key = Number(varint());
    const field = key >>> 3;
    const wire = key & 7;
    if (wire === 0) {
      const v = varint();
      if (field === 8) header.expiration = v;
      else if (field === 14) header.timestamp = v;
    } else if (wire === 2) {
      const len = Number(varint());
      if (pos + len > raw.length) throw new TronTxFormatError('truncated field');
      const value = raw.subarray(pos, pos + len);
      pos += len;
      if (field === 1) header.refBlockBytes = bytesToHex(value);
      else if (field === 4) header.refBlockHash = bytesToHex(value);
    } else throw new TronTxFormatError(`unexpected wire type ${wire}`);
  }
  return header;
}

/** java-tron refuses an expiration more than 24 h after the head (Manager.validateCommon). */
const MAX_EXPIRATION_AHEAD_MS = 86_400_000n;

/**
 * The header of `raw` when `raw` is exactly `call` (nothing added, dropped or changed), with a
 * well-formed reference and deadline; throws TronTxFormatError naming the mismatch otherwise.
 */
export function checkRaw(raw: Uint8Array, call: TronCall): RawHeader {
  const header = readHeader(raw);
  if (header.refBlockBytes.length !== 4 || header.refBlockHash.length !== 16)
    throw new TronTxFormatError('the reference block is malformed');
  if (header.timestamp > 0n && header.expiration - header.timestamp > MAX_EXPIRATION_AHEAD_MS)
    throw new TronTxFormatError('the expiration is more than 24 h after the build time');
  const expected = encodeRaw(call, header);
  if (bytesToHex(expected) !== bytesToHex(raw)) throw new TronTxFormatError('the transaction is not the one asked for');
  return header;
}

export const txIdOf = (raw: Uint8Array): string => bytesToHex(sha256(raw));

/** A whole `Transaction` (raw_data, one signature) as /wallet/broadcasthex takes it. */
export function encodeSigned(raw: Uint8Array, signature: Uint8Array): Uint8Array {
  return new Writer().bytes(1, raw).bytes(2, signature).finish();
}

/**
 * The bandwidth a transaction of `rawLength` raw bytes uses once signed by one key: its
 * serialized size without results, plus the 64 bytes java-tron adds for the result
 * (Constant.MAX_RESULT_SIZE_IN_TX).
 */
export function bandwidthOf(rawLength: number): bigint {
  const signed = encodeSigned(new Uint8Array(rawLength), new Uint8Array(65));
  return BigInt(signed.length + 64);
}

/** A header as large as any a node writes (2 + 8 bytes of reference, ms times to 2109). */
const SIZING_HEADER: RawHeader = {
  refBlockBytes: 'ffff',
  refBlockHash: 'ff'.repeat(8),
  expiration: 2n ** 42n - 1n,
  timestamp: 2n ** 42n - 1n,
};

/** The most bandwidth `call` can use, before the node picks its header (to quote it). */
export const bandwidthBound = (call: TronCall): bigint => bandwidthOf(encodeRaw(call, SIZING_HEADER).length);

/** Bytes of `v` as a protobuf varint. */
export function varintLength(v: bigint): bigint {
  let n = 1n;
  for (; v > 0x7fn; v >>= 7n) n++;
  return n;
}

/**
 * A resource operation a network data describes: the sweep's lend and give-back steps
 * (chains/tron/resources.ts) and the staking capability's stake, unstake, restake and
 * withdraw (chains/tron/staking.ts). `resourceOp` names it; the ones that move a stake carry
 * `resource` and `resourceSun`.
 */
export type ResourceOp =
  | { op: 'delegate' | 'undelegate' | 'freeze' | 'unfreeze'; resource: TronResource; balance: bigint }
  | { op: 'cancelUnfreeze' | 'withdrawUnfrozen' };

const SIZED_OPS = new Set(['delegate', 'undelegate', 'freeze', 'unfreeze']);
const BARE_OPS = new Set(['cancelUnfreeze', 'withdrawUnfrozen']);

export function resourceOpOf(network: Readonly<Record<string, string>> | undefined): ResourceOp | null {
  if (!network?.resourceOp) return null;
  const op = network.resourceOp;
  if (BARE_OPS.has(op)) {
    if (network.resource !== undefined || network.resourceSun !== undefined) throw new TronTxFormatError(`${op} takes no resource`);
    return { op: op as 'cancelUnfreeze' | 'withdrawUnfrozen' };
  }
  const resource = network.resource;
  if (!SIZED_OPS.has(op) || (resource !== 'ENERGY' && resource !== 'BANDWIDTH')) throw new TronTxFormatError('unknown resource operation');
  if (!/^[1-9][0-9]*$/.test(network.resourceSun ?? '')) throw new TronTxFormatError('resourceSun must be a positive integer');
  return { op: op as 'delegate' | 'undelegate' | 'freeze' | 'unfreeze', resource, balance: BigInt(network.resourceSun!) };
}

/** The network data fields that describe `op` (resourceOpOf reads them back). */
export function resourceOpFields(op: ResourceOp): Record<string, string> {
  return 'resource' in op ? { resourceOp: op.op, resource: op.resource, resourceSun: op.balance.toString() } : { resourceOp: op.op };
}

/**
 * An intent as Tron sends it: a TRX transfer (`data` null) or a TriggerSmartContract call to
 * `to` with `data` (0x hex calldata; a TRC-20 payment is a `transfer(to, amount)` call to the
 * token, as on EVM).
 */
export interface TronIntent {
  from: string;
  to: string;
  value: bigint;
  data: string | null;
}

/** The seam's intent as Tron sends it: one payment per transaction, no memo (not carried yet). */
export function tronIntentOf(intent: TxIntent): TronIntent {
  if (intent.kind !== 'call' && intent.memo !== undefined) throw new ValidationError('memos are not carried on Tron transactions');
  switch (intent.kind) {
    case 'native':
      return { from: intent.from, to: intent.to, value: intent.amount, data: null };
    case 'token':
      if (intent.more?.length) throw new ValidationError('one transfer per transaction on Tron');
      return { from: intent.from, to: intent.token, value: 0n, data: trc20Transfer(intent.to, intent.amount) };
    case 'call':
      return { from: intent.from, to: intent.to, value: intent.value, data: intent.data };
  }
}

/**
 * Calldata of a TRC-20 `transfer(to, amount)`: selector a9059cbb, the recipient as the 20-byte
 * ABI address (no 0x41 prefix) and the amount, as 0x-prefixed hex. java-tron's `data` /
 * `parameter` fields take hex without 0x: the sender strips it when it builds the call.
 */
export function trc20Transfer(to: string, amount: bigint): string {
  return `0xa9059cbb${addressWord(to)}${uintWord(amount)}`;
}

/**
 * The TronCall of an intent (addresses in any accepted spelling); throws on what is not one.
 * A resource operation is only ever a value-0 intent without data (a TRX transfer of 0 sun
 * does not exist), so network data can never turn a transfer or a call into one.
 */
export function callOf(intent: TronIntent, feeLimit: bigint, network?: Readonly<Record<string, string>>): TronCall {
  const owner = tronAddressBytes(intent.from);
  const to = tronAddressBytes(intent.to);
  if (!owner || !to) throw new TronTxFormatError('not a Tron address');
  const resource = resourceOpOf(network);
  if (resource !== null) {
    if (intent.data !== null || intent.value !== 0n) throw new TronTxFormatError('a resource operation moves no TRX and calls nothing');
    if (resource.op === 'delegate' || resource.op === 'undelegate') {
      return { kind: resource.op, owner, receiver: to, resource: resource.resource, balance: resource.balance };
    }
    // A stake of one's own: the intent names its owner as its recipient, so it can name no one else.
    if (bytesToHex(owner) !== bytesToHex(to)) throw new TronTxFormatError('a staking operation is addressed to its owner');
    if (resource.op === 'freeze' || resource.op === 'unfreeze') {
      return { kind: resource.op, owner, resource: resource.resource, balance: resource.balance };
    }
    return { kind: resource.op, owner };
  }
  if (intent.data === null) return { kind: 'transfer', owner, to, amount: intent.value };
  if (!/^0x([0-9a-fA-F]{2})*$/.test(intent.data)) throw new TronTxFormatError('call data is not 0x hex');
  return { kind: 'trigger', owner, contract: to, data: hexToBytes(intent.data.slice(2)), feeLimit };
}
