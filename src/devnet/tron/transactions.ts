// Transactions as java-tron builds, identifies and checks them: raw_data JSON <-> protobuf
// (through tronweb's generated codec, the same one tronweb's txCheck uses), txID =
// sha256(raw_data bytes), and owner signatures recovered with secp256k1 from the txID.
import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { keccak_256 } from '@noble/hashes/sha3';
import { utils } from 'tronweb';
import { isHex41, printAddress, toBase58, type Hex41 } from './address.js';
import { contractTypesOfRaw, decodeTransaction, encodeTransaction, type ContractResult } from './protobuf.js';

/** Contract types the stand-in executes, with their Transaction.Contract.ContractType numbers. */
export const CONTRACT_TYPES = {
  TransferContract: 1,
  TriggerSmartContract: 31,
  FreezeBalanceV2Contract: 54,
  UnfreezeBalanceV2Contract: 55,
  WithdrawExpireUnfreezeContract: 56,
  DelegateResourceContract: 57,
  UnDelegateResourceContract: 58,
  CancelAllUnfreezeV2Contract: 59,
} as const;
export type ContractType = keyof typeof CONTRACT_TYPES;

/** Every type java-tron knows, so an unsupported one gets a clear "not modelled" answer. */
const KNOWN_TYPE_NAMES: Record<number, string> = {
  0: 'AccountCreateContract',
  1: 'TransferContract',
  2: 'TransferAssetContract',
  4: 'VoteWitnessContract',
  5: 'WitnessCreateContract',
  6: 'AssetIssueContract',
  8: 'WitnessUpdateContract',
  9: 'ParticipateAssetIssueContract',
  10: 'AccountUpdateContract',
  11: 'FreezeBalanceContract',
  12: 'UnfreezeBalanceContract',
  13: 'WithdrawBalanceContract',
  15: 'UpdateAssetContract',
  16: 'ProposalCreateContract',
  17: 'ProposalApproveContract',
  18: 'ProposalDeleteContract',
  19: 'SetAccountIdContract',
  30: 'CreateSmartContract',
  31: 'TriggerSmartContract',
  33: 'UpdateSettingContract',
  41: 'ExchangeCreateContract',
  42: 'ExchangeInjectContract',
  43: 'ExchangeWithdrawContract',
  44: 'ExchangeTransactionContract',
  45: 'UpdateEnergyLimitContract',
  46: 'AccountPermissionUpdateContract',
  48: 'ClearABIContract',
  49: 'UpdateBrokerageContract',
  54: 'FreezeBalanceV2Contract',
  55: 'UnfreezeBalanceV2Contract',
  56: 'WithdrawExpireUnfreezeContract',
  57: 'DelegateResourceContract',
  58: 'UnDelegateResourceContract',
  59: 'CancelAllUnfreezeV2Contract',
};

const ADDRESS_FIELDS = ['owner_address', 'to_address', 'contract_address', 'receiver_address'];
const HEX_FIELDS = new Set([...ADDRESS_FIELDS, 'data']);

export type ContractValue = Record<string, string | number | boolean>;

export interface RawData {
  contract: { parameter: { value: ContractValue; type_url: string }; type: string; Permission_id?: number }[];
  ref_block_bytes: string;
  ref_block_hash: string;
  expiration: number;
  timestamp?: number;
  fee_limit?: number;
  data?: string;
}

export interface Tx {
  txID: string;
  rawHex: string;
  rawData: RawData;
  signatures: string[];
  type: ContractType;
  value: ContractValue;
  owner: Hex41;
}

/** Input java-tron would refuse before any validation: answered as `{ Error }` or OTHER_ERROR. */
export class TxFormatError extends Error {}
/** A type java-tron executes but the stand-in does not model. */
export class UnsupportedContractError extends Error {}

export const sha256 = (b: Uint8Array): Buffer => createHash('sha256').update(b).digest();

/** Canonical form: lower-case hex, proto3 defaults dropped (java-tron's JsonFormat prints none). */
function canonical(d: Record<string, unknown>): RawData {
  const c = (d.contract as RawData['contract'])[0] as RawData['contract'][number];
  const value: ContractValue = {};
  for (const [k, v] of Object.entries(c.parameter.value)) {
    if (v === 0 || v === '' || v === false || v === null || v === undefined) continue;
    if (k === 'resource' && v === 'BANDWIDTH') continue;
    value[k] = typeof v === 'string' && HEX_FIELDS.has(k) ? v.toLowerCase() : (v as string | number | boolean);
  }
  const contract: RawData['contract'][number] = { parameter: { value, type_url: c.parameter.type_url }, type: c.type };
  if (c.Permission_id) contract.Permission_id = c.Permission_id;
  const raw: RawData = {
    contract: [contract],
    ref_block_bytes: String(d.ref_block_bytes ?? '').toLowerCase(),
    ref_block_hash: String(d.ref_block_hash ?? '').toLowerCase(),
    expiration: Number(d.expiration ?? 0),
  };
  if (d.data) raw.data = String(d.data).toLowerCase();
  if (d.timestamp) raw.timestamp = Number(d.timestamp);
  if (d.fee_limit) raw.fee_limit = Number(d.fee_limit);
  return raw;
}

/** raw_data bytes -> the stand-in's transaction record (signatures added by the caller). */
export function fromRawBytes(raw: Uint8Array, signatures: string[]): Tx {
  const types = contractTypesOfRaw(raw);
  if (types.length !== 1) throw new TxFormatError(`contract size should be exactly 1, this is extend feature ,actual :${types.length}`);
  const name = KNOWN_TYPE_NAMES[types[0] as number];
  if (!name) throw new TxFormatError(`unknown contract type ${types[0]}`);
  if (!(name in CONTRACT_TYPES)) throw new UnsupportedContractError(`stand-in: ${name} is not modelled`);
  const rawHex = Buffer.from(raw).toString('hex');
  const rawData = canonical(utils.deserializeTx.deserializeTransaction(name, rawHex) as Record<string, unknown>);
  const value = (rawData.contract[0] as RawData['contract'][number]).parameter.value;
  if (!isHex41(value.owner_address)) throw new TxFormatError('Invalid ownerAddress!');
  return {
    txID: sha256(raw).toString('hex'),
    rawHex,
    rawData,
    signatures,
    type: name as ContractType,
    value,
    owner: value.owner_address as string,
  };
}

/**
 * A broadcasttransaction body. Like java-tron's packTransaction, raw_data is re-encoded from
 * its JSON (raw_data_hex and txID in the body are ignored), so the id is that of the JSON.
 */
export function parseTransactionJson(body: unknown): Tx {
  if (typeof body !== 'object' || body === null) throw new TxFormatError('transaction is not a JSON object');
  const b = body as { raw_data?: { contract?: unknown[] }; signature?: unknown };
  if (!b.raw_data || !Array.isArray(b.raw_data.contract)) throw new TxFormatError('raw_data.contract is missing');
  if (b.raw_data.contract.length !== 1) {
    throw new TxFormatError(`contract size should be exactly 1, this is extend feature ,actual :${b.raw_data.contract.length}`);
  }
  const type = (b.raw_data.contract[0] as { type?: unknown }).type;
  if (typeof type === 'string' && !(type in CONTRACT_TYPES) && Object.values(KNOWN_TYPE_NAMES).includes(type)) {
    throw new UnsupportedContractError(`stand-in: ${type} is not modelled`);
  }
  const sigs = b.signature === undefined ? [] : b.signature;
  if (!Array.isArray(sigs) || !sigs.every((s) => typeof s === 'string' && /^[0-9a-fA-F]*$/.test(s))) {
    throw new TxFormatError('signature must be a list of hex strings');
  }
  let rawHex: string;
  try {
    rawHex = utils.transaction.txPbToRawDataHex(utils.transaction.txJsonToPb(body as never)).toLowerCase();
  } catch (err) {
    throw new TxFormatError(`cannot encode raw_data: ${(err as Error).message}`);
  }
  return fromRawBytes(
    Buffer.from(rawHex, 'hex'),
    (sigs as string[]).map((s) => s.toLowerCase()),
  );
}

/** A broadcasthex body: a whole serialized Transaction. */
export function parseTransactionHex(hex: unknown): Tx {
  if (typeof hex !== 'string' || !/^([0-9a-fA-F]{2})+$/.test(hex)) throw new TxFormatError('transaction must be hex');
  const { raw, signatures } = decodeTransaction(Buffer.from(hex, 'hex'));
  return fromRawBytes(
    raw,
    signatures.map((s) => Buffer.from(s).toString('hex')),
  );
}

export interface RefBlock {
  number: number;
  id: string;
  timestamp: number;
}

/** What java-tron's createTransactionCapsule does: reference the head block, expire 60 s after it. */
export function buildTransaction(type: ContractType, value: ContractValue, head: RefBlock, now: number, feeLimit?: number): Tx {
  const json = {
    visible: false,
    raw_data: {
      contract: [{ parameter: { value, type_url: `type.googleapis.com/protocol.${type}` }, type }],
      ref_block_bytes: head.number.toString(16).padStart(16, '0').slice(-4),
      ref_block_hash: head.id.slice(16, 32),
      expiration: head.timestamp + 60_000,
      timestamp: now,
      ...(feeLimit ? { fee_limit: feeLimit } : {}),
    },
  };
  return parseTransactionJson(json);
}

/** The JSON java-tron prints for a Transaction (Util.printTransactionToJSON). */
export function printTransaction(
  tx: Tx,
  visible: boolean,
  extra: { contractRet?: ContractResult; withVisible?: boolean } = {},
): Record<string, unknown> {
  const c = tx.rawData.contract[0] as RawData['contract'][number];
  const value: ContractValue = { ...c.parameter.value };
  if (visible) for (const f of ADDRESS_FIELDS) if (typeof value[f] === 'string') value[f] = printAddress(value[f] as string, true);
  const out: Record<string, unknown> = {};
  if (extra.withVisible) out.visible = visible;
  if (extra.contractRet) out.ret = [{ contractRet: extra.contractRet }];
  if (tx.signatures.length > 0) out.signature = [...tx.signatures];
  out.txID = tx.txID;
  out.raw_data = { ...tx.rawData, contract: [{ ...c, parameter: { ...c.parameter, value } }] };
  out.raw_data_hex = tx.rawHex;
  return out;
}

/**
 * java-tron's owner-permission check for an account without custom permissions: exactly the
 * owner's key, one signature (threshold 1). Returns the SIGERROR detail, or undefined if valid.
 */
export function signatureError(tx: Tx): string | undefined {
  if (tx.signatures.length === 0) return 'miss sig or contract';
  // Owner (0) and the default active permission (2) both hold just the owner's key.
  const permission = tx.rawData.contract[0]?.Permission_id ?? 0;
  if (permission !== 0 && permission !== 2) return "permission isn't exit";
  if (tx.signatures.length > 1) return `Signature count is ${tx.signatures.length} more than key counts of permission : 1`;
  const sigHex = tx.signatures[0] as string;
  const sig = Buffer.from(sigHex, 'hex');
  if (sig.length < 65) return `Signature size is ${sig.length}`;
  let signer: Hex41;
  try {
    signer = recoverSigner(Buffer.from(tx.txID, 'hex'), sig);
  } catch (err) {
    return (err as Error).message;
  }
  if (signer !== tx.owner) return `${sigHex} is signed by ${toBase58(signer)} but it is not contained of permission.`;
  return undefined;
}

export function recoverSigner(hash: Uint8Array, sig: Uint8Array): Hex41 {
  let v = sig[64] as number;
  if (v >= 27) v -= 27;
  if (v !== 0 && v !== 1) throw new Error(`Header byte out of range: ${(sig[64] as number) < 27 ? (sig[64] as number) + 27 : sig[64]}`);
  const pub = secp256k1.Signature.fromCompact(sig.subarray(0, 64)).addRecoveryBit(v).recoverPublicKey(hash).toRawBytes(false);
  return (
    '41' +
    Buffer.from(keccak_256(pub.subarray(1)))
      .subarray(12)
      .toString('hex')
  );
}

/** Signs a txID the way tronweb does (r || s || v with v = 27 + recovery bit). */
export function signTxID(txID: string, privateKey: string): string {
  const sig = secp256k1.sign(Buffer.from(txID, 'hex'), Buffer.from(privateKey.replace(/^0x/, ''), 'hex'));
  return sig.toCompactHex() + (27 + sig.recovery).toString(16);
}

export function addressOfPrivateKey(privateKey: string): Hex41 {
  const pub = secp256k1.getPublicKey(Buffer.from(privateKey.replace(/^0x/, ''), 'hex'), false);
  return (
    '41' +
    Buffer.from(keccak_256(pub.subarray(1)))
      .subarray(12)
      .toString('hex')
  );
}

/** The merkle leaf of a transaction in a block: sha256 of the whole Transaction message. */
export function txBytes(tx: Tx, contractRet?: ContractResult): Uint8Array {
  return encodeTransaction(
    Buffer.from(tx.rawHex, 'hex'),
    tx.signatures.map((s) => Buffer.from(s, 'hex')),
    contractRet,
  );
}
