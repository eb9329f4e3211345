/**
 * SLIP-0010 key derivation for ed25519 (m/44'/<coin>'/i'/0' and the like). Unlike BIP32 on
 * secp256k1, ed25519 has no public child derivation: every level is hardened, so a child's
 * public key needs its parent's private key, hence the seed (an ed25519 family's derivation,
 * chains/<family>/derivation.ts, says how the service lives with that). As in hd.ts, the seed stays the caller's, and every
 * intermediate secret (HMAC output, parent keys and chain codes, the HMAC input) is zeroed
 * as soon as the next level is derived.
 */
import { createHmac, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';

export const HARDENED_OFFSET = 0x80000000;

/** A private node: a 32-byte ed25519 private key (RFC 8032 seed) and its chain code. */
export interface Slip10Node {
  privateKey: Uint8Array;
  chainCode: Uint8Array;
}

const MASTER_KEY = new TextEncoder().encode('ed25519 seed');

/**
 * I = HMAC-SHA512(key, data) split into the node's key (left) and chain code (right); I is
 * zeroed. Node's own HMAC (OpenSSL): a few times cheaper than in JavaScript, and a Solana
 * address costs two (OpenSSL clears its copies of the key and state as it frees them).
 */
function split(key: Uint8Array, data: Uint8Array): Slip10Node {
  const i = createHmac('sha512', key).update(data).digest();
  try {
    // Copies (a Buffer's slice is a view of it, zeroed below).
    return { privateKey: Uint8Array.from(i.subarray(0, 32)), chainCode: Uint8Array.from(i.subarray(32)) };
  } finally {
    i.fill(0);
  }
}

/** The master node of a seed (16 to 64 bytes, as BIP32 allows). */
export function slip10Master(seed: Uint8Array): Slip10Node {
  if (seed.length < 16 || seed.length > 64) throw new Error('seed must be 16 to 64 bytes');
  return split(MASTER_KEY, seed);
}

/**
 * The hardened child `index` (given with or without the hardened offset: 0 and 0x80000000
 * both name 0'). The parent is left as it is; the caller wipes it when done.
 */
export function slip10Child(parent: Slip10Node, index: number): Slip10Node {
  if (!Number.isInteger(index) || index < 0 || index > 0xffffffff) throw new Error('child index out of range');
  const hardened = index >= HARDENED_OFFSET ? index : index + HARDENED_OFFSET;
  const data = new Uint8Array(37); // 0x00 || k_par || ser32(i)
  data.set(parent.privateKey, 1);
  new DataView(data.buffer).setUint32(33, hardened, false);
  try {
    return split(parent.chainCode, data);
  } finally {
    data.fill(0);
  }
}

/** Zeroes a node's private key and chain code. */
export function wipeSlip10(node: Slip10Node): void {
  node.privateKey.fill(0);
  node.chainCode.fill(0);
}

/**
 * Indexes of a path such as m/44'/501'/0'/0' (hardened offset added). Every level must be
 * marked hardened: ed25519 has no other kind, and accepting an unmarked one would derive a
 * different key than the path reads to a human.
 */
export function parseHardenedPath(path: string): number[] {
  if (!/^m(\/\d+')*$/.test(path)) throw new Error(`invalid ed25519 derivation path ${path} (every level hardened)`);
  return path
    .split('/')
    .slice(1)
    .map((part) => {
      const n = Number.parseInt(part, 10);
      if (n >= HARDENED_OFFSET) throw new Error(`invalid ed25519 derivation path ${path}`);
      return n + HARDENED_OFFSET;
    });
}

/** Derives `indexes` below `from`, wiping every node but the last; `from` itself is kept. */
export function slip10DerivePath(from: Slip10Node, indexes: readonly number[]): Slip10Node {
  let node = from;
  for (const index of indexes) {
    const child = slip10Child(node, index);
    if (node !== from) wipeSlip10(node);
    node = child;
  }
  return node === from ? { privateKey: from.privateKey.slice(), chainCode: from.chainCode.slice() } : node;
}

/** The private node at `path` from a seed; the master and every intermediate node are zeroed. */
export function slip10FromSeed(seed: Uint8Array, path: string): Slip10Node {
  const indexes = parseHardenedPath(path);
  const master = slip10Master(seed);
  try {
    return slip10DerivePath(master, indexes);
  } finally {
    wipeSlip10(master);
  }
}

/**
 * PKCS#8 (RFC 8410) wrapping of a 32-byte ed25519 private key: SEQUENCE { version 0,
 * AlgorithmIdentifier { id-Ed25519 }, OCTET STRING { OCTET STRING { key } } }. The key follows.
 */
const PKCS8_ED25519_PREFIX = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);

/** The private-key import Node 24 and later have for raw keys (not in Node 22's types). */
type RawPrivateKeyInput = { key: Uint8Array; format: 'raw-private'; asymmetricKeyType: 'ed25519' };
const importRaw = (key: Uint8Array) =>
  createPrivateKey({ key, format: 'raw-private', asymmetricKeyType: 'ed25519' } satisfies RawPrivateKeyInput as never);

/**
 * Node 24 and later take a raw 32-byte key (no DER decoding: about a third cheaper); Node 22
 * refuses the format, and gets the key wrapped in PKCS#8.
 */
const RAW_KEYS = (() => {
  try {
    importRaw(new Uint8Array(32));
    return true;
  } catch {
    return false;
  }
})();

/** The private key as OpenSSL's KeyObject; a DER copy made for it is zeroed at once. */
function ed25519KeyObject(privateKey: Uint8Array, raw: boolean): KeyObject {
  if (raw) return importRaw(privateKey);
  // Buffer.alloc, not allocUnsafe: a buffer of its own, not a slice of Node's shared pool.
  const der = Buffer.alloc(PKCS8_ED25519_PREFIX.length + 32);
  der.set(PKCS8_ED25519_PREFIX, 0);
  der.set(privateKey, PKCS8_ED25519_PREFIX.length);
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } finally {
    der.fill(0);
  }
}

/**
 * The 32-byte ed25519 public key of a node's private key, by Node's own ed25519 (OpenSSL):
 * several times faster than in JavaScript on Node 22 and later, and issuance of Solana
 * addresses spends most of its time here (one key per address, no public derivation).
 * OpenSSL's copy of the key lives in native memory until the short-lived KeyObject is
 * collected, and OpenSSL clears an ed25519 key as it frees it (the JavaScript implementation,
 * too, left its intermediate values, the hashed scalar among them, to the garbage collector).
 * `raw` false takes Node 22's way on any Node (its tests).
 */
export function ed25519PublicKey(privateKey: Uint8Array, raw = RAW_KEYS): Uint8Array {
  if (privateKey.length !== 32) throw new Error('ed25519 private key must be 32 bytes');
  // The public half as JWK, not DER: OpenSSL 3's DER encoder costs about 50 us a key, as
  // much as the scalar multiplication itself; the JWK's `x` is the raw key in base64url.
  // The public KeyObject's JWK holds no private part (the private one's would put `d`, the
  // secret, into an immutable JavaScript string).
  const { x } = createPublicKey(ed25519KeyObject(privateKey, raw)).export({ format: 'jwk' });
  const publicKey = x === undefined ? undefined : Buffer.from(x, 'base64url');
  if (publicKey?.length !== 32) throw new Error('ed25519 public key export failed');
  return new Uint8Array(publicKey);
}
