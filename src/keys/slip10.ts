/**
 * SLIP-0010 key derivation for ed25519 (m/44'/<coin>'/i'/0' and the like). Unlike BIP32 on
 * secp256k1, ed25519 has no public child derivation: every level is hardened, so a child's
 * public key needs its parent's private key, hence the seed (an ed25519 family's derivation,
 * chains/<family>/derivation.ts, says how the service lives with that). As in hd.ts, the seed stays the caller's, and every
 * intermediate secret (HMAC output, parent keys and chain codes, the HMAC input) is zeroed
 * as soon as the next level is derived.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { hmac } from '@noble/hashes/hmac';
import { sha512 } from '@noble/hashes/sha2';

export const HARDENED_OFFSET = 0x80000000;

/** A private node: a 32-byte ed25519 private key (RFC 8032 seed) and its chain code. */
export interface Slip10Node {
  privateKey: Uint8Array;
  chainCode: Uint8Array;
}

const MASTER_KEY = new TextEncoder().encode('ed25519 seed');

/** I = HMAC-SHA512(key, data) split into the node's key (left) and chain code (right); I is zeroed. */
function split(key: Uint8Array, data: Uint8Array): Slip10Node {
  const i = hmac(sha512, key, data);
  try {
    return { privateKey: i.slice(0, 32), chainCode: i.slice(32) };
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

/** The 32-byte ed25519 public key of a node's private key. */
export function ed25519PublicKey(privateKey: Uint8Array): Uint8Array {
  return ed25519.getPublicKey(privateKey);
}
