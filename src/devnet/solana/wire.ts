// Wire transactions: decoding (legacy and v0 messages, with address lookup tables resolved),
// signature verification, and the fee rules of the runtime (5,000 lamports per signature plus
// compute-unit price x limit), which litesvm applies and the RPC layer has to report.
import { createPublicKey, verify } from 'node:crypto';
import {
  getAddressDecoder,
  getAddressEncoder,
  getBase58Decoder,
  getBase58Encoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Address,
} from '@solana/kit';
import { invalidParams } from './errors.js';

export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
export const LOOKUP_TABLE_PROGRAM = 'AddressLookupTab1e1111111111111111111111111';
export const LAMPORTS_PER_SIGNATURE = 5_000n;
const MAX_COMPUTE_UNIT_LIMIT = 1_400_000n;
const DEFAULT_INSTRUCTION_UNITS = 200_000n;
// Built-in programs get a small default allotment (SIMD-0170); litesvm's fee matches it.
const DEFAULT_BUILTIN_UNITS = 3_000n;
const BUILTINS = new Set([
  SYSTEM_PROGRAM,
  COMPUTE_BUDGET_PROGRAM,
  LOOKUP_TABLE_PROGRAM,
  'Vote111111111111111111111111111111111111111',
  'Stake11111111111111111111111111111111111111',
  'Config1111111111111111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
  'Ed25519SigVerify111111111111111111111111111',
  'KeccakSecp256k11111111111111111111111111111',
  'Secp256r1SigVerify1111111111111111111111111',
]);

const b58 = { enc: getBase58Encoder(), dec: getBase58Decoder() };
const addressDecoder = getAddressDecoder();
const addressEncoder = getAddressEncoder();
export const toBase58 = (bytes: Uint8Array): string => b58.dec.decode(bytes);
export const fromBase58 = (text: string): Uint8Array => new Uint8Array(b58.enc.encode(text));
export const toBase64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
export const addressBytes = (address: string): Uint8Array => new Uint8Array(addressEncoder.encode(address as Address));
export const addressFromBytes = (bytes: Uint8Array): string => addressDecoder.decode(bytes);

export interface DecodedInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
}

export interface DecodedTransaction {
  bytes: Uint8Array;
  /** The first signature, base58: the transaction id. */
  signature: string;
  signatures: string[];
  messageBytes: Uint8Array;
  version: 'legacy' | 0;
  header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
  staticAccounts: string[];
  recentBlockhash: string;
  instructions: DecodedInstruction[];
  lookups: { accountKey: string; writableIndexes: number[]; readonlyIndexes: number[] }[];
  /** Missing signatures are 64 zero bytes on the wire; they count as present but invalid. */
  rawSignatures: Uint8Array[];
}

/** The most bytes a transaction takes on the wire (IPv6 MTU minus headers), and that as text. */
const PACKET_DATA_SIZE = 1_232;
const MAX_BASE64_SIZE = 1_644;
const MAX_BASE58_SIZE = 1_683;
const TRANSACTION_TYPE = 'solana_transaction::versioned::VersionedTransaction';

/** Decodes a wire transaction given as text in `encoding`; throws -32602 as a node does. */
export function decodeWireTransaction(text: unknown, encoding: unknown): DecodedTransaction {
  if (typeof text !== 'string') throw invalidParams('Invalid params: invalid type: expected a string transaction');
  const enc = encoding ?? 'base58';
  // A node takes no transaction larger than a packet (agave's decode_and_deserialize): checked
  // on the text first, then on the bytes, before anything is simulated or executed.
  const most = enc === 'base64' ? MAX_BASE64_SIZE : enc === 'base58' ? MAX_BASE58_SIZE : Infinity;
  if (text.length > most) {
    throw invalidParams(
      `${enc} encoded ${TRANSACTION_TYPE} too large: ${text.length} bytes (max: encoded/raw ${most}/${PACKET_DATA_SIZE})`,
    );
  }
  let bytes: Uint8Array;
  if (enc === 'base64') {
    bytes = new Uint8Array(getBase64Encoder().encode(text));
  } else if (enc === 'base58') {
    try {
      bytes = fromBase58(text);
    } catch {
      throw invalidParams('invalid base58 encoding: InvalidCharacter');
    }
  } else {
    throw invalidParams(`Invalid params: unknown variant \`${String(enc)}\`, expected \`base58\` or \`base64\``);
  }
  if (bytes.length > PACKET_DATA_SIZE) {
    throw invalidParams(`decoded ${TRANSACTION_TYPE} too large: ${bytes.length} bytes (max: ${PACKET_DATA_SIZE} bytes)`);
  }
  return decodeTransactionBytes(bytes);
}

export type DecodedMessage = Omit<DecodedTransaction, 'bytes' | 'signature' | 'signatures' | 'rawSignatures'>;

const deserializeError = (detail: string) =>
  invalidParams(`failed to deserialize solana_transaction::versioned::VersionedTransaction: ${detail}`);

/** Decodes message bytes (legacy or v0); getFeeForMessage takes these alone. */
export function decodeMessage(messageBytes: Uint8Array): DecodedMessage {
  let msg;
  try {
    msg = getCompiledTransactionMessageDecoder().decode(messageBytes);
  } catch (err) {
    throw deserializeError((err as Error).message);
  }
  if (msg.version !== 'legacy' && msg.version !== 0) throw deserializeError(`unsupported version ${String(msg.version)}`);
  const lookups =
    msg.version === 0
      ? (msg.addressTableLookups ?? []).map((l) => ({
          accountKey: l.lookupTableAddress as string,
          writableIndexes: [...l.writableIndexes],
          readonlyIndexes: [...l.readonlyIndexes],
        }))
      : [];
  return {
    messageBytes,
    version: msg.version,
    header: {
      numRequiredSignatures: msg.header.numSignerAccounts,
      numReadonlySignedAccounts: msg.header.numReadonlySignerAccounts,
      numReadonlyUnsignedAccounts: msg.header.numReadonlyNonSignerAccounts,
    },
    staticAccounts: msg.staticAccounts.map(String),
    recentBlockhash: String(msg.lifetimeToken),
    instructions: msg.instructions.map((ix) => ({
      programIdIndex: ix.programAddressIndex,
      accounts: [...(ix.accountIndices ?? [])],
      data: new Uint8Array(ix.data ?? new Uint8Array(0)),
    })),
    lookups,
  };
}

export function decodeTransactionBytes(bytes: Uint8Array): DecodedTransaction {
  let tx;
  try {
    tx = getTransactionDecoder().decode(bytes);
  } catch (err) {
    throw deserializeError((err as Error).message);
  }
  const message = decodeMessage(new Uint8Array(tx.messageBytes));
  const rawSignatures = Object.values(tx.signatures).map((s) => (s ? new Uint8Array(s) : new Uint8Array(64)));
  const signatures = rawSignatures.map(toBase58);
  if (signatures.length === 0 || signatures.length !== message.header.numRequiredSignatures)
    throw deserializeError('signature count mismatch');
  return { ...message, bytes, signature: signatures[0]!, signatures, rawSignatures };
}

/** Every signer's signature checks against the message bytes (ed25519, native). */
export function signaturesValid(tx: DecodedTransaction): boolean {
  if (tx.rawSignatures.length < tx.header.numRequiredSignatures || tx.header.numRequiredSignatures === 0) return false;
  for (let i = 0; i < tx.header.numRequiredSignatures; i++) {
    const signer = tx.staticAccounts[i];
    const sig = tx.rawSignatures[i];
    if (!signer || !sig) return false;
    const key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(addressBytes(signer)).toString('base64url') },
      format: 'jwk',
    });
    if (!verify(null, tx.messageBytes, key, sig)) return false;
  }
  return true;
}

export interface LoadedAddresses {
  writable: string[];
  readonly: string[];
}

/** Reads the addresses of a lookup table account (56-byte header, then 32-byte keys). */
export function resolveLookups(
  tx: DecodedTransaction,
  readAccount: (address: string) => { owner: string; data: Uint8Array } | null,
): LoadedAddresses | 'AddressLookupTableNotFound' | 'InvalidAddressLookupTableOwner' | 'InvalidAddressLookupTableIndex' {
  const loaded: LoadedAddresses = { writable: [], readonly: [] };
  for (const l of tx.lookups) {
    const acct = readAccount(l.accountKey);
    if (!acct) return 'AddressLookupTableNotFound';
    if (acct.owner !== LOOKUP_TABLE_PROGRAM) return 'InvalidAddressLookupTableOwner';
    const count = Math.floor((acct.data.length - 56) / 32);
    const at = (i: number) => (i < count ? addressFromBytes(acct.data.subarray(56 + i * 32, 88 + i * 32)) : undefined);
    for (const [indexes, into] of [
      [l.writableIndexes, loaded.writable],
      [l.readonlyIndexes, loaded.readonly],
    ] as const) {
      for (const i of indexes) {
        const a = at(i);
        if (!a) return 'InvalidAddressLookupTableIndex';
        into.push(a);
      }
    }
  }
  return loaded;
}

/** All account keys in message order: static, then loaded writable, then loaded readonly. */
export const accountKeys = (tx: DecodedTransaction, loaded: LoadedAddresses): string[] => [
  ...tx.staticAccounts,
  ...loaded.writable,
  ...loaded.readonly,
];

/** Which keys the transaction write-locks, by the message header rules. */
export function writableKeys(tx: DecodedTransaction, loaded: LoadedAddresses): string[] {
  const h = tx.header;
  const n = tx.staticAccounts.length;
  const out = tx.staticAccounts.filter((_, i) =>
    i < h.numRequiredSignatures ? i < h.numRequiredSignatures - h.numReadonlySignedAccounts : i < n - h.numReadonlyUnsignedAccounts,
  );
  return [...out, ...loaded.writable];
}

export interface ComputeBudget {
  /** Micro-lamports per compute unit. */
  unitPrice: bigint;
  unitLimit: bigint;
}

/** Reads SetComputeUnitLimit/Price; without a limit, the runtime's per-instruction default. */
export function computeBudget(tx: DecodedMessage): ComputeBudget {
  let unitPrice = 0n;
  let unitLimit: bigint | undefined;
  let defaultUnits = 0n;
  for (const ix of tx.instructions) {
    const program = tx.staticAccounts[ix.programIdIndex];
    if (program === COMPUTE_BUDGET_PROGRAM) {
      const view = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
      if (ix.data[0] === 2 && ix.data.length >= 5) unitLimit = BigInt(view.getUint32(1, true));
      if (ix.data[0] === 3 && ix.data.length >= 9) unitPrice = view.getBigUint64(1, true);
    }
    defaultUnits += program && BUILTINS.has(program) ? DEFAULT_BUILTIN_UNITS : DEFAULT_INSTRUCTION_UNITS;
  }
  const limit = unitLimit ?? defaultUnits;
  return { unitPrice, unitLimit: limit > MAX_COMPUTE_UNIT_LIMIT ? MAX_COMPUTE_UNIT_LIMIT : limit };
}

/** Base fee per signature plus the prioritization fee, rounded up to whole lamports. */
export function transactionFee(tx: DecodedMessage): bigint {
  const { unitPrice, unitLimit } = computeBudget(tx);
  const micro = unitPrice * unitLimit;
  const priority = (micro + 999_999n) / 1_000_000n;
  return LAMPORTS_PER_SIGNATURE * BigInt(tx.header.numRequiredSignatures) + priority;
}
