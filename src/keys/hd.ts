/**
 * HD keys (BIP32/39/44). A wallet's account node (m/44'/<coin>'/0'/0 on a bip32 family) is derived
 * once at creation; its extended public key is stored sealed (a clear xpub plus one
 * exported child key gives the account's private key: docs/architecture.md, "Key custody")
 * and opened once per process, so child addresses are derived without the seed. Private
 * keys are derived only to sign or export; seeds and every intermediate node are zeroed
 * as soon as the derivation is done.
 */
import { createHmac, pbkdf2Sync } from 'node:crypto';
import { createRequire } from 'node:module';
import { HDKey, HARDENED_OFFSET } from '@scure/bip32';
import { generateMnemonic as bip39Generate, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { bytesToHex } from '@noble/hashes/utils';

export function generateMnemonic(): string {
  return bip39Generate(wordlist, 256);
}

export function isValidMnemonic(mnemonic: string): boolean {
  return validateMnemonic(mnemonic, wordlist);
}

export interface AccountNode {
  /** Extended public key of the account node: stored sealed, never in clear (hd.ts header). */
  xpub: string;
  accountPath: string;
}

/**
 * BIP39 seed of a mnemonic given as bytes (the vault's plaintext), in a buffer of its own:
 * PBKDF2-HMAC-SHA512, 2048 rounds, salt "mnemonic" (no passphrase), as @scure/bip39 does,
 * but without turning the secret into a string. Node's PBKDF2 output is not pooled.
 */
export function seedFromMnemonic(mnemonic: string | Uint8Array): Buffer {
  let bytes: Uint8Array;
  if (typeof mnemonic === 'string') bytes = Buffer.from(mnemonic.normalize('NFKD'), 'utf8');
  else if (mnemonic.every((b) => b < 0x80))
    bytes = mnemonic; // ASCII: NFKD leaves it as it is
  else bytes = Buffer.from(Buffer.from(mnemonic).toString('utf8').normalize('NFKD'), 'utf8');
  try {
    return pbkdf2Sync(bytes, 'mnemonic', 2048, 64, 'sha512');
  } finally {
    if (bytes !== mnemonic) bytes.fill(0);
  }
}

/** The private node at `path` from a seed; every intermediate node is zeroed on the way. */
export function deriveFromSeed(seed: Uint8Array, path: string): HDKey {
  let node = HDKey.fromMasterSeed(seed);
  for (const index of parsePath(path)) {
    const child = node.deriveChild(index);
    wipeNode(node);
    node = child;
  }
  return node;
}

/** The private node at `path` of a mnemonic; the seed is zeroed before this returns. */
export function deriveFromMnemonic(mnemonic: string | Uint8Array, path: string): HDKey {
  const seed = seedFromMnemonic(mnemonic);
  try {
    return deriveFromSeed(seed, path);
  } finally {
    seed.fill(0);
  }
}

/** Zeroes a node's private key and chain code (what the library keeps in byte arrays). */
export function wipeNode(node: HDKey): void {
  node.wipePrivateData();
  node.chainCode?.fill(0);
}

function parsePath(path: string): number[] {
  if (!/^m(\/\d+'?)*$/.test(path)) throw new Error(`invalid derivation path ${path}`);
  return path
    .split('/')
    .slice(1)
    .map((part) => {
      const n = Number.parseInt(part, 10);
      if (n >= HARDENED_OFFSET) throw new Error(`invalid derivation path ${path}`);
      return part.endsWith("'") ? n + HARDENED_OFFSET : n;
    });
}

export function accountFromMnemonic(mnemonic: string | Uint8Array, accountPath: string): AccountNode {
  const node = deriveFromMnemonic(mnemonic, accountPath);
  try {
    return { xpub: node.publicExtendedKey, accountPath };
  } finally {
    wipeNode(node);
  }
}

/** libsecp256k1's public tweak-add (~10x noble's) when the prebuilt addon loads. */
type TweakAdd = (publicKey: Uint8Array, tweak: Uint8Array, compressed: boolean) => Uint8Array;
const nativeTweakAdd: TweakAdd | null = (() => {
  try {
    const addon = createRequire(import.meta.url)('secp256k1/bindings') as { publicKeyTweakAdd: TweakAdd };
    return addon.publicKeyTweakAdd.bind(addon);
  } catch {
    return null; // no prebuilt binary for this platform: the pure-JS path below is used
  }
})();

export const derivationBackend = nativeTweakAdd ? 'libsecp256k1' : 'noble';

/**
 * Derives child public keys from a cached account node (non-hardened BIP32 public
 * derivation: child = parent + HMAC-SHA512(chainCode, parent || index)[0..32] * G).
 * Parsing the xpub once and doing one point operation per address is what makes
 * issuance fast; the seed is never touched. The family's codec names each key's address
 * (chains/bip32-derivation.ts).
 */
/** A deriver used after its chain code was zeroed: it would derive addresses of no key. */
export class WipedDeriverError extends Error {
  constructor() {
    super('this account xpub was wiped (dropped from memory); open it again');
    this.name = 'WipedDeriverError';
  }
}

export class PublicKeyDeriver {
  readonly #account: HDKey;
  readonly #publicKey: Uint8Array;
  readonly #chainCode: Buffer;
  #wiped = false;

  constructor(xpub: string) {
    this.#account = HDKey.fromExtendedKey(xpub);
    if (!this.#account.publicKey || !this.#account.chainCode) throw new Error('invalid extended public key');
    this.#publicKey = this.#account.publicKey;
    this.#chainCode = Buffer.from(this.#account.chainCode);
  }

  /**
   * The secp256k1 public key of child `index`: uncompressed (65 bytes) on the libsecp256k1
   * path, compressed (33) on the fallback; address formatters take either.
   */
  publicKey(index: number): Uint8Array {
    if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) throw new Error('non-hardened index out of range');
    // A zeroed chain code still "derives": keys nobody holds. Refused, never answered.
    if (this.#wiped) throw new WipedDeriverError();
    if (!nativeTweakAdd) {
      const child = this.#account.deriveChild(index);
      if (!child.publicKey) throw new Error('derivation produced no public key');
      return child.publicKey;
    }
    const data = Buffer.alloc(37);
    data.set(this.#publicKey, 0);
    data.writeUInt32BE(index, 33);
    const tweak = createHmac('sha512', this.#chainCode).update(data).digest().subarray(0, 32);
    // An out-of-range tweak (probability ~2^-127) makes the addon throw; BIP32 says to skip
    // such an index, and refusing it here is the safe equivalent.
    return nativeTweakAdd(this.#publicKey, new Uint8Array(tweak), false);
  }

  /** Zeroes the chain code (with a child's private key it gives the account's): when dropped. */
  wipe(): void {
    this.#wiped = true;
    this.#chainCode.fill(0);
    this.#account.chainCode?.fill(0);
  }
}

/**
 * Private key (hex, 0x-prefixed) of `accountPath/index`, from the decrypted mnemonic: the
 * export's answer (a string, as the API returns it). Seed and nodes are zeroed.
 */
export function derivePrivateKey(mnemonic: string | Uint8Array, accountPath: string, index: number): `0x${string}` {
  const child = deriveFromMnemonic(mnemonic, `${accountPath}/${index}`);
  try {
    if (!child.privateKey) throw new Error('derivation produced no private key');
    return `0x${bytesToHex(child.privateKey)}`;
  } finally {
    wipeNode(child);
  }
}

/**
 * Public keys (compressed, 33 bytes) of `accountPath/i` for each index, from a seed: the
 * account node is derived once; it, every child node and every intermediate are zeroed.
 */
export function publicKeysFromSeed(seed: Uint8Array, accountPath: string, indexes: readonly number[]): Uint8Array[] {
  const account = deriveFromSeed(seed, accountPath);
  try {
    return indexes.map((index) => {
      if (!Number.isInteger(index) || index < 0 || index >= HARDENED_OFFSET) throw new Error('non-hardened index out of range');
      const child = account.deriveChild(index);
      try {
        if (!child.publicKey) throw new Error('derivation produced no public key');
        return Uint8Array.from(child.publicKey);
      } finally {
        wipeNode(child);
      }
    });
  } finally {
    wipeNode(account);
  }
}

/** The 32-byte private key at `path` of a seed, in a buffer of its own (the caller zeroes it). */
export function privateKeyFromSeed(seed: Uint8Array, path: string): Uint8Array {
  const node = deriveFromSeed(seed, path);
  try {
    if (!node.privateKey) throw new Error('derivation produced no private key');
    return Uint8Array.from(node.privateKey);
  } finally {
    wipeNode(node);
  }
}

/** The extended public key of the node at `accountPath` of a seed; the node is zeroed. */
export function accountXpubFromSeed(seed: Uint8Array, accountPath: string): string {
  const node = deriveFromSeed(seed, accountPath);
  try {
    return node.publicExtendedKey;
  } finally {
    wipeNode(node);
  }
}
