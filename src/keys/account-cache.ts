/**
 * The signer's cache of open account nodes (keys/signer.ts, LocalSigner).
 *
 * Keeps each wallet's *private* account node (the family's SigningAccount: on a bip32
 * family the account node, m/44'/<coin>'/0'/0) for a short while: turning a mnemonic into a seed is PBKDF2 with 2048 rounds
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
import type { Curve, SignerWalletKeys, SigningAccount } from './types.js';
import { seedFromMnemonic } from './hd.js';

/** The vault's plaintext: bytes (zeroed here once derived from) or, from older callers, a string. */
export type OpenMnemonic = (walletId: string) => Promise<Uint8Array | string>;

export type { SignerWalletKeys } from './types.js';

/** A child's private key, in a buffer of its own that is zeroed when the entry goes. */
export interface ChildKey {
  privateKey: Uint8Array;
  curve: Curve;
  /** Its address in the family's canonical form. */
  address: string;
  codec: SignerWalletKeys['codec'];
}

interface CacheEntry {
  node: Promise<SigningAccount>;
  /** The node once derived, so that dropping the entry can wipe it at once. */
  resolved: SigningAccount | null;
  /** The family's codec (set with `resolved`): children's addresses, the sender guard. */
  codec: SignerWalletKeys['codec'] | null;
  /** The family's curve (set with `resolved`): what a lent key signs. */
  curve: Curve | null;
  expiresAt: number;
  /** Keys of the children signed with lately (least recently used first), gone with the entry. */
  children: Map<number, ChildKey>;
  wiped: boolean;
}

/** Children kept per wallet: a master address and the child addresses of a sweep burst. */
const MAX_CHILDREN = 64;

export class AccountKeyCache {
  readonly #cache = new Map<string, CacheEntry>();
  #sweeper: NodeJS.Timeout | null = null;

  constructor(
    private readonly open: OpenMnemonic,
    private readonly keysOf: (walletId: string) => Promise<SignerWalletKeys>,
    private readonly opts: { ttlMs: number; maxWallets: number; sweepMs: number; now: () => number },
  ) {}

  /** Drops and wipes every cached key (e.g. on shutdown); the sweeper stops with it. */
  clear(): void {
    for (const entry of this.#cache.values()) discard(entry);
    this.#cache.clear();
    this.#stopSweeper();
  }

  /** Drops and wipes the expired entries (the sweeper's work; callable directly). */
  sweep(): void {
    const now = this.opts.now();
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
   * Runs `use` with the children's keys, synchronously right after they are found or
   * derived, so that no sweep can zero a key while it is in use.
   */
  async withChildKeys<T>(walletId: string, indexes: number[], use: (keys: ChildKey[]) => T): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const entry = this.#entry(walletId);
      const node = await entry.node;
      // Dropped while its derivation was under way (swept, evicted, cleared): derive again.
      if (entry.wiped) {
        if (attempt < 3) continue;
        throw new Error('the signing key was dropped from memory repeatedly while in use');
      }
      return use(indexes.map((index) => this.#childKey(entry, node, index)));
    }
  }

  /** A child's key from the entry (most recently used now), derived when it is not there. */
  #childKey(entry: CacheEntry, node: SigningAccount, index: number): ChildKey {
    const hit = entry.children.get(index);
    if (hit) {
      entry.children.delete(index);
      entry.children.set(index, hit); // re-inserted: Map order is the LRU order
      return hit;
    }
    const child = node.child(index);
    let key: ChildKey;
    try {
      key = {
        privateKey: child.privateKey,
        address: entry.codec!.fromPublicKey(child.publicKey),
        codec: entry.codec!,
        curve: entry.curve!,
      };
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
    return key;
  }

  #entry(walletId: string): CacheEntry {
    const now = this.opts.now();
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
      curve: null,
      expiresAt: now + this.opts.ttlMs,
      children: new Map(),
      wiped: false,
    };
    entry.node = this.keysOf(walletId).then(async ({ derivation, codec }) => {
      const mnemonic = await this.open(walletId);
      let seed: Buffer | undefined;
      try {
        seed = seedFromMnemonic(mnemonic);
        const node = derivation.openSigningAccount(seed);
        if (entry.wiped) node.wipe();
        else {
          entry.resolved = node;
          entry.codec = codec;
          entry.curve = derivation.curve;
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
    while (this.#cache.size > this.opts.maxWallets) {
      const [oldest, evicted] = this.#cache.entries().next().value!;
      this.#cache.delete(oldest);
      discard(evicted);
    }
    this.#startSweeper();
    return entry;
  }

  #startSweeper(): void {
    if (this.#sweeper) return;
    this.#sweeper = setInterval(() => this.sweep(), this.opts.sweepMs);
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
