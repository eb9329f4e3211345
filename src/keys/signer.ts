/**
 * Signing. Modules ask a Signer for a signed EIP-1559 transaction by (wallet, index), so a
 * KMS or HSM signer can replace the local one without touching them. The local signer
 * decrypts the wallet's mnemonic, derives from it and signs in this process.
 */
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { getAddress, hashTypedData, keccak256, parseSignature, toHex, type Address, type Hex, type TypedDataDefinition } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { TypedDataPayload } from '../chains/types.js';

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
  signTransaction(walletId: string, index: number, chainId: number, tx: UnsignedTx): Promise<SignedTx>;
  /**
   * EIP-712 signature of validated typed data (chains' prepareTypedData). `from`, when
   * given, is the address the key must have, as in UnsignedTx.
   */
  signTypedData(walletId: string, index: number, data: TypedDataPayload, from?: string): Promise<TypedDataSignature>;
}

/** An EIP-712 signature: 65 bytes r || s || v, and its parts (v is 27 or 28). */
export interface TypedDataSignature {
  signature: string;
  r: string;
  s: string;
  v: number;
}

export interface LocalSignerOptions {
  /** Account node path; children are `accountPath/index`. */
  accountPath?: string;
  /** How long a decrypted account node stays in memory. */
  ttlMs?: number;
  /** Wallets whose account node is kept at once; the least recently used goes first. */
  maxWallets?: number;
  now?: () => number;
}

interface CacheEntry {
  node: Promise<HDKey>;
  expiresAt: number;
  /** Accounts of the children signed with lately (least recently used first), gone with the entry. */
  children: Map<number, PrivateKeyAccount>;
}

/** Children kept per wallet: a master address and the child addresses of a sweep burst. */
const MAX_CHILDREN = 64;

export const EVM_ACCOUNT_PATH = "m/44'/60'/0'/0";

/**
 * Keeps each wallet's *private* account node (m/44'/60'/0'/0) for a short while: turning a
 * mnemonic into a seed is PBKDF2 with 2048 rounds (~15 ms, measured 53-66 derivations/s),
 * while a child of a cached node costs ~0.5 ms. A sweep or a batch signs many transactions
 * of one wallet in a burst, so the cache turns N PBKDF2 runs into one. The TTL is absolute
 * (not refreshed on use) and the cache is small, bounding how long and how many decrypted
 * keys sit in memory; JavaScript cannot promise to erase them, so less time is the defence.
 * The accounts of the children it signed with lately stay with the node, under the same
 * TTL and at most MAX_CHILDREN per wallet: a child's key and address cost two elliptic-curve
 * multiplications, more than the signature itself, and a burst of withdrawals signs from
 * one address again and again.
 */
export class LocalSigner implements Signer {
  readonly #open: (walletId: string) => Promise<string>;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #accountPath: string;
  readonly #ttlMs: number;
  readonly #maxWallets: number;
  readonly #now: () => number;

  constructor(openMnemonic: (walletId: string) => Promise<string>, opts: LocalSignerOptions = {}) {
    this.#open = openMnemonic;
    this.#accountPath = opts.accountPath ?? EVM_ACCOUNT_PATH;
    this.#ttlMs = opts.ttlMs ?? 5 * 60_000;
    this.#maxWallets = opts.maxWallets ?? 256;
    this.#now = opts.now ?? Date.now;
  }

  async signTransaction(walletId: string, index: number, chainId: number, tx: UnsignedTx): Promise<SignedTx> {
    if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) throw new Error('non-hardened index out of range');
    if (!Number.isSafeInteger(tx.nonce) || tx.nonce < 0) throw new Error('nonce out of range');
    const account = await this.#account(walletId, index);
    if (tx.from !== undefined && getAddress(tx.from) !== account.address) {
      throw new Error(`the key of wallet ${walletId} index ${index} is not the sender ${tx.from}`);
    }
    const raw = await account.signTransaction({
      type: 'eip1559',
      chainId,
      to: tx.to as Address,
      value: tx.value,
      ...(tx.data ? { data: tx.data as Hex } : {}),
      nonce: tx.nonce,
      gas: tx.gas,
      maxFeePerGas: tx.maxFeePerGas,
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
    });
    return { raw, hash: keccak256(raw) };
  }

  async signTypedData(walletId: string, index: number, data: TypedDataPayload, from?: string): Promise<TypedDataSignature> {
    if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) throw new Error('non-hardened index out of range');
    const account = await this.#account(walletId, index);
    if (from !== undefined && getAddress(from) !== account.address) {
      throw new Error(`the key of wallet ${walletId} index ${index} is not the signer ${from}`);
    }
    // The digest is hashed again here, from the same payload, and must equal the one the
    // caller recorded: what is signed is exactly what the transaction row says was signed.
    const digest = hashTypedData({
      domain: data.domain,
      types: data.types,
      primaryType: data.primaryType,
      message: data.message,
    } as unknown as TypedDataDefinition);
    if (digest !== data.digest) throw new Error('typed data digest mismatch: the payload changed after validation');
    const signature = await account.sign({ hash: digest });
    const { r, s, v } = parseSignature(signature);
    return { signature, r, s, v: Number(v) };
  }

  /** Drops every cached key (e.g. on shutdown). */
  clear(): void {
    this.#cache.clear();
  }

  /** The child's account, from the wallet's entry or derived (and kept there). */
  async #account(walletId: string, index: number): Promise<PrivateKeyAccount> {
    const entry = this.#entry(walletId);
    const hit = entry.children.get(index);
    if (hit) {
      entry.children.delete(index);
      entry.children.set(index, hit); // re-inserted: Map order is the LRU order
      return hit;
    }
    const child = (await entry.node).deriveChild(index);
    try {
      if (!child.privateKey) throw new Error('derivation produced no private key');
      const account = privateKeyToAccount(toHex(child.privateKey));
      entry.children.set(index, account);
      while (entry.children.size > MAX_CHILDREN) entry.children.delete(entry.children.keys().next().value!);
      return account;
    } finally {
      child.wipePrivateData();
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
    // The promise is cached, so concurrent first signatures of a wallet share one derivation.
    // The node itself is not wiped on eviction: a signature in flight may still be using it.
    const node = this.#open(walletId).then((mnemonic) => HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive(this.#accountPath));
    const entry: CacheEntry = { node, expiresAt: now + this.#ttlMs, children: new Map() };
    this.#cache.set(walletId, entry);
    // A failure (wallet missing, vault unavailable) is not remembered.
    node.catch(() => {
      if (this.#cache.get(walletId) === entry) this.#cache.delete(walletId);
    });
    while (this.#cache.size > this.#maxWallets) {
      const oldest = this.#cache.keys().next().value;
      if (oldest === undefined) break;
      this.#cache.delete(oldest);
    }
    return entry;
  }
}
