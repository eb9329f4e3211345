/**
 * Signing. Modules ask a Signer for a signed EIP-1559 transaction by (wallet, index), so a
 * KMS or HSM signer can replace the local one without touching them. The local signer
 * decrypts the wallet's mnemonic, derives from it with the wallet's chain family's key
 * derivation (chains/families.ts) and signs in this process.
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import {
  hashTypedData,
  hexToBytes,
  keccak256,
  numberToHex,
  parseSignature,
  serializeSignature,
  serializeTransaction,
  type Address,
  type Hex,
  type TransactionSerializableEIP1559,
  type TypedDataDefinition,
} from 'viem';
import { derivationFor, familyOf } from '../chains/families.js';
import { messageDigest } from '../chains/messages.js';
import type { AddressCodec, KeyDerivation, MessagePayload, SigningAccount, SigningKey, TypedDataPayload } from '../chains/types.js';
import { BusinessRuleError } from '../lib/errors.js';
import { seedFromMnemonic } from './hd.js';

/** An EIP-1559 (type 2) transaction ready to sign. */
export interface UnsignedTx {
  to: string;
  value: bigint;
  data?: string;
  nonce: number;
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  /** When given, signing is refused unless the derived key is this address (a guard against a wrong path or index). */
  from?: string;
}

export interface SignedTx {
  /** Serialized signed transaction, 0x-prefixed hex. */
  raw: string;
  hash: string;
}

export interface Signer {
  /**
   * Lends the key of (wallet, index) to `use` for one synchronous use: the chain family
   * decides what is signed (chains/types.ts, Sender.sign), the key never leaves the signer.
   * `index` null: the key the wallet imported for `from`. `from`, when given, is the
   * address the key must have (a guard against a wrong path or index).
   */
  withKey<T>(walletId: string, index: number | null, from: string | undefined, use: (key: SigningKey) => T): Promise<T>;
  /** `index` null: the key the wallet imported for `tx.from` (an outside address made sweepable). */
  signTransaction(walletId: string, index: number | null, chainId: number, tx: UnsignedTx): Promise<SignedTx>;
  /**
   * EIP-712 signature of validated typed data (chains' prepareTypedData). `from`, when
   * given, is the address the key must have, as in UnsignedTx.
   */
  signTypedData(walletId: string, index: number, data: TypedDataPayload, from?: string): Promise<TypedDataSignature>;
  /** EIP-191 personal-message signature of a validated message (chains' prepareMessage); `from` as above. */
  signMessage(walletId: string, index: number, data: MessagePayload, from?: string): Promise<TypedDataSignature>;
}

/** An EIP-712 signature: 65 bytes r || s || v, and its parts (v is 27 or 28). */
export interface TypedDataSignature {
  signature: string;
  r: string;
  s: string;
  v: number;
}

/** A wallet's keys: its chain family's derivation (at the chain's account path) and address codec. */
export interface SignerWalletKeys {
  derivation: KeyDerivation;
  codec: AddressCodec;
}

export interface LocalSignerOptions {
  /**
   * The keys of a wallet's chain family (services.ts: WalletService.keysOf). Default: EVM at
   * `accountPath`.
   */
  keysOf?: (walletId: string) => Promise<SignerWalletKeys>;
  /** Without `keysOf`: the EVM account node path; children are `accountPath/index`. */
  accountPath?: string;
  /** How long a decrypted account node stays in memory. */
  ttlMs?: number;
  /** Wallets whose account node is kept at once; the least recently used goes first. */
  maxWallets?: number;
  /** How often expired entries are dropped and wiped (default: min(ttlMs, 30 s)). */
  sweepMs?: number;
  now?: () => number;
  /** The key a wallet imported for an address (fresh bytes: zeroed here after signing). */
  openImported?: (walletId: string, address: string) => Promise<Uint8Array>;
}

/** A child's private key, in a buffer of its own that is zeroed when the entry goes. */
interface ChildKey {
  privateKey: Uint8Array;
  /** Its address in the family's canonical form. */
  address: string;
  codec: AddressCodec;
}

interface CacheEntry {
  node: Promise<SigningAccount>;
  /** The node once derived, so that dropping the entry can wipe it at once. */
  resolved: SigningAccount | null;
  /** The family's codec (set with `resolved`): children's addresses, the sender guard. */
  codec: AddressCodec | null;
  expiresAt: number;
  /** Keys of the children signed with lately (least recently used first), gone with the entry. */
  children: Map<number, ChildKey>;
  wiped: boolean;
}

/** The vault's plaintext: bytes (zeroed here once derived from) or, from older callers, a string. */
export type OpenMnemonic = (walletId: string) => Promise<Uint8Array | string>;

/** Children kept per wallet: a master address and the child addresses of a sweep burst. */
const MAX_CHILDREN = 64;

export const EVM_ACCOUNT_PATH = "m/44'/60'/0'/0";

/** The key lent to a family is secp256k1 (SigningKey); ed25519 signing comes with Solana. */
function assertSecp256k1(derivation: KeyDerivation): void {
  if (derivation.curve !== 'secp256k1') {
    throw new BusinessRuleError('NOT_SUPPORTED', `Signing with ${derivation.curve} keys (${derivation.family}) is not available yet`);
  }
}

/** Throws unless the key is the one of `expected` (a guard against a wrong path, index or family). */
function assertKeyOf(key: ChildKey, expected: string | undefined, what: string): void {
  if (expected !== undefined && !key.codec.equals(expected, key.address)) throw new Error(`${what} ${expected}`);
}

/**
 * Keeps each wallet's *private* account node (the family's SigningAccount: m/44'/60'/0'/0
 * on EVM) for a short while: turning a mnemonic into a seed is PBKDF2 with 2048 rounds
 * (~15 ms, measured 53-66 derivations/s), while a child of a cached node costs ~0.5 ms. A sweep or a batch signs many transactions
 * of one wallet in a burst, so the cache turns N PBKDF2 runs into one. The TTL is absolute
 * (not refreshed on use) and the cache is small, bounding how long and how many decrypted
 * keys sit in memory. The keys of the children it signed with lately stay with the node,
 * under the same TTL and at most MAX_CHILDREN per wallet: a child's key and address cost
 * two elliptic-curve multiplications, more than the signature itself.
 *
 * What leaves the cache is wiped: a sweeper (an unref'd timer, running only while the cache
 * holds something) drops expired entries, and every dropped entry (expired, evicted or
 * cleared) has its node's private key and chain code and its children's keys zeroed. The
 * seed and the intermediate nodes are zeroed as soon as the account node is derived.
 * Signing is synchronous once the node is there, so no signature can be using a key that
 * a sweep zeroes. What JavaScript cannot wipe (the bigints inside the curve library) is
 * left to the garbage collector; less time in memory is the defence there.
 */
export class LocalSigner implements Signer {
  readonly #open: OpenMnemonic;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #keysOf: (walletId: string) => Promise<SignerWalletKeys>;
  readonly #ttlMs: number;
  readonly #maxWallets: number;
  readonly #sweepMs: number;
  readonly #now: () => number;
  readonly #openImported: LocalSignerOptions['openImported'];
  #sweeper: NodeJS.Timeout | null = null;

  constructor(openMnemonic: OpenMnemonic, opts: LocalSignerOptions = {}) {
    this.#open = openMnemonic;
    const evm: SignerWalletKeys = { derivation: derivationFor('evm', opts.accountPath ?? EVM_ACCOUNT_PATH), codec: familyOf('evm').codec };
    this.#keysOf = opts.keysOf ?? (() => Promise.resolve(evm));
    this.#ttlMs = opts.ttlMs ?? 5 * 60_000;
    this.#maxWallets = opts.maxWallets ?? 256;
    this.#sweepMs = opts.sweepMs ?? Math.min(this.#ttlMs, 30_000);
    this.#now = opts.now ?? Date.now;
    this.#openImported = opts.openImported;
  }

  async signTransaction(walletId: string, index: number | null, chainId: number, tx: UnsignedTx): Promise<SignedTx> {
    if (index !== null && (!Number.isInteger(index) || index < 0 || index >= 0x80000000))
      throw new Error('non-hardened index out of range');
    if (index === null && (tx.from === undefined || !this.#openImported))
      throw new Error('an imported key is named by its address (tx.from)');
    if (!Number.isSafeInteger(tx.nonce) || tx.nonce < 0) throw new Error('nonce out of range');
    const unsigned: TransactionSerializableEIP1559 = {
      type: 'eip1559',
      chainId,
      to: tx.to as Address,
      value: tx.value,
      ...(tx.data ? { data: tx.data as Hex } : {}),
      nonce: tx.nonce,
      gas: tx.gas,
      maxFeePerGas: tx.maxFeePerGas,
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
    };
    const sign = (key: ChildKey) => {
      assertKeyOf(key, tx.from, `the key of wallet ${walletId} index ${index} is not the sender`);
      const { r, s, recovery } = secp256k1.sign(hexToBytes(keccak256(serializeTransaction(unsigned))), key.privateKey, { lowS: true });
      return serializeTransaction(unsigned, { r: numberToHex(r, { size: 32 }), s: numberToHex(s, { size: 32 }), yParity: recovery });
    };
    const raw = index === null ? await this.#withImportedKey(walletId, tx.from!, sign) : await this.#withChildKey(walletId, index, sign);
    return { raw, hash: keccak256(raw) };
  }

  async withKey<T>(walletId: string, index: number | null, from: string | undefined, use: (key: SigningKey) => T): Promise<T> {
    if (index !== null && (!Number.isInteger(index) || index < 0 || index >= 0x80000000))
      throw new Error('non-hardened index out of range');
    if (index === null && (from === undefined || !this.#openImported)) throw new Error('an imported key is named by its address (from)');
    const lend = (key: ChildKey) => {
      assertKeyOf(key, from, `the key of wallet ${walletId} index ${index} is not the sender`);
      let open = true;
      try {
        return use({
          signDigest(digest: Uint8Array) {
            // Lent for the synchronous call only: a kept reference cannot sign later, after a sweep zeroed the key.
            if (!open) throw new Error('a lent key was used after its turn');
            if (digest.length !== 32) throw new Error('a digest is 32 bytes');
            const { r, s, recovery } = secp256k1.sign(digest, key.privateKey, { lowS: true });
            return { r, s, recovery };
          },
        });
      } finally {
        open = false;
      }
    };
    return index === null ? this.#withImportedKey(walletId, from!, lend) : this.#withChildKey(walletId, index, lend);
  }

  async signTypedData(walletId: string, index: number, data: TypedDataPayload, from?: string): Promise<TypedDataSignature> {
    if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) throw new Error('non-hardened index out of range');
    // The digest is hashed again here, from the same payload, and must equal the one the
    // caller recorded: what is signed is exactly what the transaction row says was signed.
    const digest = hashTypedData({
      domain: data.domain,
      types: data.types,
      primaryType: data.primaryType,
      message: data.message,
    } as unknown as TypedDataDefinition);
    if (digest !== data.digest) throw new Error('typed data digest mismatch: the payload changed after validation');
    return this.#signDigest(walletId, index, digest, from);
  }

  /** Signs a digest computed here from a validated payload (never one a caller hands in). */
  async #signDigest(walletId: string, index: number, digest: Hex, from?: string): Promise<TypedDataSignature> {
    const signature = await this.#withChildKey(walletId, index, (key) => {
      assertKeyOf(key, from, `the key of wallet ${walletId} index ${index} is not the signer`);
      const { r, s, recovery } = secp256k1.sign(hexToBytes(digest), key.privateKey, { lowS: true });
      return serializeSignature({ r: numberToHex(r, { size: 32 }), s: numberToHex(s, { size: 32 }), yParity: recovery });
    });
    const { r, s, v } = parseSignature(signature);
    return { signature, r, s, v: Number(v) };
  }

  /** An imported key is opened for one signature and wiped at once (never cached). */
  async #withImportedKey<T>(walletId: string, address: string, use: (key: ChildKey) => T): Promise<T> {
    const { derivation, codec } = await this.#keysOf(walletId);
    assertSecp256k1(derivation);
    const privateKey = await this.#openImported!(walletId, address);
    try {
      return use({ privateKey, address: codec.fromPublicKey(secp256k1.getPublicKey(privateKey, false)), codec });
    } finally {
      privateKey.fill(0);
    }
  }

  async signMessage(walletId: string, index: number, data: MessagePayload, from?: string): Promise<TypedDataSignature> {
    if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) throw new Error('non-hardened index out of range');
    // As for typed data: the digest signed is recomputed from the message the row records,
    // under its standard (EIP-191 or TIP-191, chains/messages.ts), as prepareMessage computed it.
    const digest = messageDigest(data);
    if (digest !== data.digest) throw new Error('message digest mismatch: the payload changed after validation');
    return this.#signDigest(walletId, index, digest as Hex, from);
  }

  /** Drops and wipes every cached key (e.g. on shutdown); the sweeper stops with it. */
  clear(): void {
    for (const entry of this.#cache.values()) discard(entry);
    this.#cache.clear();
    this.#stopSweeper();
  }

  /** Drops and wipes the expired entries (the sweeper's work; callable directly). */
  sweep(): void {
    const now = this.#now();
    for (const [walletId, entry] of this.#cache) {
      if (entry.expiresAt > now) continue;
      this.#cache.delete(walletId);
      discard(entry);
    }
    if (this.#cache.size === 0) this.#stopSweeper();
  }

  /** Whether the sweeper's timer is running (for tests). */
  get sweeping(): boolean {
    return this.#sweeper !== null;
  }

  /**
   * The key material cached for a wallet, by reference (for tests and diagnostics: they
   * check that what leaves the cache is zeroed). Undefined when nothing is cached.
   */
  cachedSecrets(walletId: string): Uint8Array[] | undefined {
    const entry = this.#cache.get(walletId);
    if (!entry) return undefined;
    const out: Uint8Array[] = entry.resolved ? entry.resolved.secrets() : [];
    for (const child of entry.children.values()) out.push(child.privateKey);
    return out;
  }

  /**
   * Runs `use` with the child's key, synchronously right after it is found or derived, so
   * that no sweep can zero the key while it is in use.
   */
  async #withChildKey<T>(walletId: string, index: number, use: (key: ChildKey) => T): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const entry = this.#entry(walletId);
      const node = await entry.node;
      // Dropped while its derivation was under way (swept, evicted, cleared): derive again.
      if (entry.wiped) {
        if (attempt < 3) continue;
        throw new Error('the signing key was dropped from memory repeatedly while in use');
      }
      const hit = entry.children.get(index);
      if (hit) {
        entry.children.delete(index);
        entry.children.set(index, hit); // re-inserted: Map order is the LRU order
        return use(hit);
      }
      const child = node.child(index);
      let key: ChildKey;
      try {
        key = { privateKey: child.privateKey, address: entry.codec!.fromPublicKey(child.publicKey), codec: entry.codec! };
      } catch (err) {
        child.privateKey.fill(0);
        throw err;
      }
      entry.children.set(index, key);
      while (entry.children.size > MAX_CHILDREN) {
        const oldest = entry.children.keys().next().value!;
        entry.children.get(oldest)!.privateKey.fill(0);
        entry.children.delete(oldest);
      }
      return use(key);
    }
  }

  #entry(walletId: string): CacheEntry {
    const now = this.#now();
    const hit = this.#cache.get(walletId);
    this.#cache.delete(walletId);
    if (hit && hit.expiresAt > now) {
      this.#cache.set(walletId, hit); // re-inserted: Map order is the LRU order
      return hit;
    }
    if (hit) discard(hit);
    // The promise is cached, so concurrent first signatures of a wallet share one derivation.
    const entry: CacheEntry = {
      node: undefined as unknown as Promise<SigningAccount>,
      resolved: null,
      codec: null,
      expiresAt: now + this.#ttlMs,
      children: new Map(),
      wiped: false,
    };
    entry.node = this.#keysOf(walletId).then(async ({ derivation, codec }) => {
      assertSecp256k1(derivation); // before the mnemonic is opened
      const mnemonic = await this.#open(walletId);
      let seed: Buffer | undefined;
      try {
        seed = seedFromMnemonic(mnemonic);
        const node = derivation.openSigningAccount(seed);
        if (entry.wiped) node.wipe();
        else {
          entry.resolved = node;
          entry.codec = codec;
        }
        return node;
      } finally {
        seed?.fill(0);
        if (typeof mnemonic !== 'string') mnemonic.fill(0);
      }
    });
    this.#cache.set(walletId, entry);
    // A failure (wallet missing, vault unavailable) is not remembered.
    entry.node.catch(() => {
      if (this.#cache.get(walletId) === entry) this.#cache.delete(walletId);
    });
    while (this.#cache.size > this.#maxWallets) {
      const [oldest, evicted] = this.#cache.entries().next().value!;
      this.#cache.delete(oldest);
      discard(evicted);
    }
    this.#startSweeper();
    return entry;
  }

  #startSweeper(): void {
    if (this.#sweeper) return;
    this.#sweeper = setInterval(() => this.sweep(), this.#sweepMs);
    // Never what keeps a process alive.
    this.#sweeper.unref();
  }

  #stopSweeper(): void {
    if (this.#sweeper) clearInterval(this.#sweeper);
    this.#sweeper = null;
  }
}

/** Zeroes an entry's keys; a node still being derived is zeroed as soon as it exists. */
function discard(entry: CacheEntry): void {
  entry.wiped = true;
  if (entry.resolved) entry.resolved.wipe();
  entry.resolved = null;
  for (const child of entry.children.values()) child.privateKey.fill(0);
  entry.children.clear();
}
