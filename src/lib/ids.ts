import { randomFillSync, randomUUID } from 'node:crypto';

/**
 * Random bytes drawn from the CSPRNG 4 KB at a time (as crypto.randomUUID does): a deposit
 * range needs thousands of ids, and a call into OpenSSL per id cost more than the id.
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomInto(target: Buffer, offset: number, length: number): void {
  if (poolOffset + length > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  pool.copy(target, offset, poolOffset, poolOffset + length);
  // Used bytes are never handed out twice.
  poolOffset += length;
}

/**
 * UUID v7: time-ordered, so new rows land at the end of B-tree indexes instead of at
 * random pages (RFC 9562). 48-bit millisecond timestamp, version, then a 12-bit counter
 * that makes ids from this process strictly increasing even within one millisecond (RFC
 * 9562 method 1): rows created in one transaction (a block's deposits) keep their order.
 */
let lastMs = 0;
let counter = 0;

export function uuidv7(now: number = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else if (++counter > 0xfff) {
    // 4,096 ids in one millisecond: borrow the next millisecond rather than repeat.
    lastMs += 1;
    counter = 0;
  }
  const bytes = Buffer.allocUnsafe(16);
  randomInto(bytes, 6, 10);
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const UUID_RE = new RegExp(UUID_PATTERN);

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

export { randomUUID };

/** A short, human-quotable transaction reference (spec: "service-generated short reference"). */
export function shortReference(): string {
  const bytes = Buffer.allocUnsafe(9);
  randomInto(bytes, 0, 9);
  return bytes.toString('base64url');
}
