// The few protobuf messages the stand-in encodes or splits itself (Tron.proto): a block
// header's raw part (its sha256 is the block hash), and a whole Transaction (its sha256 is
// the merkle leaf; broadcasthex sends one). Contract parameters go through tronweb's own
// generated codec instead (transactions.ts), so raw_data bytes match what tronweb checks.

class Writer {
  private readonly parts: Uint8Array[] = [];

  varint(field: number, value: number | bigint): this {
    const v = BigInt(value);
    if (v === 0n) return this; // proto3: a default value is not written
    this.tag(field, 0);
    this.rawVarint(v);
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    if (value.length === 0) return this;
    this.tag(field, 2);
    this.rawVarint(BigInt(value.length));
    this.parts.push(value);
    return this;
  }

  finish(): Uint8Array {
    return Buffer.concat(this.parts);
  }

  private tag(field: number, wire: number): void {
    this.rawVarint(BigInt((field << 3) | wire));
  }

  private rawVarint(v: bigint): void {
    // int64 negatives are written as their 64-bit two's complement (10 bytes), as protobuf does.
    let x = v < 0n ? v + (1n << 64n) : v;
    const out: number[] = [];
    while (x > 0x7fn) {
      out.push(Number(x & 0x7fn) | 0x80);
      x >>= 7n;
    }
    out.push(Number(x));
    this.parts.push(Uint8Array.from(out));
  }
}

export interface Field {
  field: number;
  wire: number;
  varint?: bigint;
  bytes?: Uint8Array;
}

export class ProtobufError extends Error {}

/** Splits a message into its fields; throws ProtobufError on truncated or unsupported input. */
export function readFields(buf: Uint8Array): Field[] {
  const fields: Field[] = [];
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new ProtobufError('truncated varint');
      const b = buf[pos++] as number;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw new ProtobufError('varint too long');
    }
  };
  while (pos < buf.length) {
    const key = Number(varint());
    const field = key >>> 3;
    const wire = key & 7;
    if (field === 0) throw new ProtobufError('field number 0');
    if (wire === 0) fields.push({ field, wire, varint: varint() });
    else if (wire === 2) {
      const len = Number(varint());
      if (pos + len > buf.length) throw new ProtobufError('truncated length-delimited field');
      fields.push({ field, wire, bytes: buf.subarray(pos, pos + len) });
      pos += len;
    } else if (wire === 1 || wire === 5) {
      const len = wire === 1 ? 8 : 4;
      if (pos + len > buf.length) throw new ProtobufError('truncated fixed field');
      fields.push({ field, wire, bytes: buf.subarray(pos, pos + len) });
      pos += len;
    } else throw new ProtobufError(`unsupported wire type ${wire}`);
  }
  return fields;
}

export interface BlockHeaderRaw {
  timestamp: number;
  txTrieRoot: Uint8Array;
  parentHash: Uint8Array;
  number: number;
  witnessAddress: Uint8Array;
  version: number;
}

export function encodeBlockHeaderRaw(h: BlockHeaderRaw): Uint8Array {
  return new Writer()
    .varint(1, h.timestamp)
    .bytes(2, h.txTrieRoot)
    .bytes(3, h.parentHash)
    .varint(7, h.number)
    .bytes(9, h.witnessAddress)
    .varint(10, h.version)
    .finish();
}

/** Transaction.Result.contractResult, by name. */
export const CONTRACT_RESULTS = [
  'DEFAULT',
  'SUCCESS',
  'REVERT',
  'BAD_JUMP_DESTINATION',
  'OUT_OF_MEMORY',
  'PRECOMPILED_CONTRACT',
  'STACK_TOO_SMALL',
  'STACK_TOO_LARGE',
  'ILLEGAL_OPERATION',
  'STACK_OVERFLOW',
  'OUT_OF_ENERGY',
  'OUT_OF_TIME',
  'JVM_STACK_OVER_FLOW',
  'UNKNOWN',
  'TRANSFER_FAILED',
  'INVALID_CODE',
] as const;
export type ContractResult = (typeof CONTRACT_RESULTS)[number];

/** A whole Transaction: raw_data, signatures and (in blocks) the contract result. */
export function encodeTransaction(raw: Uint8Array, signatures: Uint8Array[], contractRet?: ContractResult): Uint8Array {
  const w = new Writer().bytes(1, raw);
  for (const s of signatures) w.bytes(2, s);
  if (contractRet) w.bytes(5, new Writer().varint(3, CONTRACT_RESULTS.indexOf(contractRet)).finish());
  return w.finish();
}

export function decodeTransaction(buf: Uint8Array): { raw: Uint8Array; signatures: Uint8Array[] } {
  let raw: Uint8Array | undefined;
  const signatures: Uint8Array[] = [];
  for (const f of readFields(buf)) {
    if (f.field === 1 && f.bytes) raw = f.bytes;
    else if (f.field === 2 && f.bytes) signatures.push(f.bytes);
  }
  if (!raw) throw new ProtobufError('transaction has no raw_data');
  return { raw, signatures };
}

/** Transaction.raw: the contract type number of each contract (field 11 -> Contract.type). */
export function contractTypesOfRaw(raw: Uint8Array): number[] {
  return readFields(raw)
    .filter((f) => f.field === 11 && f.bytes)
    .map((f) => Number(readFields(f.bytes as Uint8Array).find((c) => c.field === 1)?.varint ?? 0n));
}
