/**
 * Signing. Modules and chain families ask a Signer for a key of (wallet, index) lent for one
 * signature, or for a signed typed-data payload or message, so a KMS or HSM signer can
 * replace the local one without touching them. The local signer decrypts the wallet's
 * mnemonic, derives from it with the wallet's chain family's key derivation (handed in:
 * `keysOf`, the family's own, chains/<family>/) and signs in this process. keys/ knows
 * curves, not families: what a family's message standard signs is handed in too
 * (`messages`).
 */
import { ed25519 } from '@noble/curves/ed25519';
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
import { base58 } from '@scure/base';
import { BusinessRuleError } from '../lib/errors.js';
import { AccountKeyCache, type ChildKey, type OpenMnemonic } from './account-cache.js';
import type { MessageSigning, SignableMessage, SignerWalletKeys, SigningKey, TypedDataPayload } from './types.js';

export type { OpenMnemonic, SignerWalletKeys } from './account-cache.js';

/** An EIP-1559 (type 2) transaction ready to sign (secp256k1 keys only). */
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
  /**
   * Lends several keys of one wallet at once, in `picks` order, for one synchronous use (a
   * transaction with two signers: a fee payer and an owner). At most one imported key, lent
   * beside derived ones (an imported address swept with the master as fee payer).
   */
  withKeys<T>(walletId: string, picks: KeyPick[], use: (keys: SigningKey[]) => T): Promise<T>;
  /** `index` null: the key the wallet imported for `tx.from` (an outside address made sweepable). */
  signTransaction(walletId: string, index: number | null, chainId: number, tx: UnsignedTx): Promise<SignedTx>;
  /**
   * EIP-712 signature of validated typed data (chains' prepareTypedData). `from`, when
   * given, is the address the key must have, as in UnsignedTx.
   */
  signTypedData(walletId: string, index: number, data: TypedDataPayload, from?: string): Promise<TypedDataSignature>;
  /**
   * The signature of a validated personal message (chains' prepareMessage) under its
   * standard: secp256k1 r, s, v over a digest, or ed25519 over the message bytes; `from` as
   * above.
   */
  signMessage(walletId: string, index: number, data: SignableMessage, from?: string): Promise<MessageSignature>;
}

/** One key of withKeys: (index, or null for an imported key named by `from`) and the address it must have. */
export interface KeyPick {
  index: number | null;
  from?: string;
}

/** An EIP-712 signature: 65 bytes r || s || v, and its parts (v is 27 or 28). */
export interface TypedDataSignature {
  signature: string;
  r: string;
  s: string;
  v: number;
}

/** An ed25519 message signature as wallets of ed25519 chains give it: 64 bytes in base58, and the signer's address. */
export interface Ed25519MessageSignature {
  signature: string;
  publicKey: string;
}

export type MessageSignature = TypedDataSignature | Ed25519MessageSignature;

export interface LocalSignerOptions {
  /** The keys of a wallet's chain family (services.ts: WalletService.keysOf). */
  keysOf: (walletId: string) => Promise<SignerWalletKeys>;
  /** How a message's standard is signed (services.ts: chains/messages.ts messageSigning); without it, messages are refused. */
  messages?: MessageSigning;
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

/** EIP-1559 transactions, typed data and digest-signed messages are secp256k1 only. */
function assertSecp256k1(derivation: SignerWalletKeys['derivation']): void {
  if (derivation.curve !== 'secp256k1') {
    throw new BusinessRuleError('NOT_SUPPORTED', `Signing with ${derivation.curve} keys (${derivation.family}) is not available here`);
  }
}

function assertSecp256k1Key(key: ChildKey): void {
  if (key.curve !== 'secp256k1') throw new BusinessRuleError('NOT_SUPPORTED', `This signature needs a secp256k1 key, not ${key.curve}`);
}

/**
 * A child's key lent for one synchronous call, signing as its curve does (chains/types.ts
 * SigningKey): a kept reference cannot sign after `close`, when a sweep may zero the key.
 */
function lentKey(key: ChildKey): { key: SigningKey; close(): void } {
  let open = true;
  const check = () => {
    if (!open) throw new Error('a lent key was used after its turn');
  };
  const lent: SigningKey = {
    signDigest(digest: Uint8Array) {
      check();
      if (key.curve !== 'secp256k1') throw new Error(`an ${key.curve} key signs messages, not digests`);
      if (digest.length !== 32) throw new Error('a digest is 32 bytes');
      const { r, s, recovery } = secp256k1.sign(digest, key.privateKey, { lowS: true });
      return { r, s, recovery };
    },
    ...(key.curve === 'ed25519'
      ? {
          signMessage(message: Uint8Array) {
            check();
            return ed25519.sign(message, key.privateKey);
          },
        }
      : {}),
  };
  return { key: lent, close: () => (open = false) };
}

/** Throws unless the key is the one of `expected` (a guard against a wrong path, index or family). */
function assertKeyOf(key: ChildKey, expected: string | undefined, what: string): void {
  if (expected !== undefined && !key.codec.equals(expected, key.address)) throw new Error(`${what} ${expected}`);
}

/**
 * Signs in this process with keys derived from the wallet's mnemonic (opened through the
 * vault), kept open for a short while in an AccountKeyCache (keys/account-cache.ts: why and
 * how long). Keys are lent for one synchronous call and never leave it.
 */
export class LocalSigner implements Signer {
  readonly #cache: AccountKeyCache;
  readonly #keysOf: (walletId: string) => Promise<SignerWalletKeys>;
  readonly #openImported: LocalSignerOptions['openImported'];
  readonly #messages: MessageSigning | undefined;

  constructor(openMnemonic: OpenMnemonic, opts: LocalSignerOptions) {
    this.#keysOf = opts.keysOf;
    this.#messages = opts.messages;
    const ttlMs = opts.ttlMs ?? 5 * 60_000;
    this.#cache = new AccountKeyCache(openMnemonic, this.#keysOf, {
      ttlMs,
      maxWallets: opts.maxWallets ?? 256,
      sweepMs: opts.sweepMs ?? Math.min(ttlMs, 30_000),
      now: opts.now ?? Date.now,
    });
    this.#openImported = opts.openImported;
  }

  /** Drops and wipes every cached key (e.g. on shutdown). */
  clear(): void {
    this.#cache.clear();
  }

  /** Drops and wipes the expired entries (the cache's sweeper does it on a timer). */
  sweep(): void {
    this.#cache.sweep();
  }

  /** Whether the cache's sweeper timer is running (for tests). */
  get sweeping(): boolean {
    return this.#cache.sweeping;
  }

  /** The key material cached for a wallet, by reference (tests check that what leaves is zeroed). */
  cachedSecrets(walletId: string): Uint8Array[] | undefined {
    return this.#cache.cachedSecrets(walletId);
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
    // An EIP-1559 transaction: refused for another curve before the mnemonic is opened.
    assertSecp256k1((await this.#keysOf(walletId)).derivation);
    const sign = (key: ChildKey) => {
      assertSecp256k1Key(key);
      assertKeyOf(key, tx.from, `the key of wallet ${walletId} index ${index} is not the sender`);
      const { r, s, recovery } = secp256k1.sign(hexToBytes(keccak256(serializeTransaction(unsigned))), key.privateKey, { lowS: true });
      return serializeTransaction(unsigned, { r: numberToHex(r, { size: 32 }), s: numberToHex(s, { size: 32 }), yParity: recovery });
    };
    const raw =
      index === null
        ? await this.#withImportedKey(walletId, tx.from!, sign)
        : await this.#cache.withChildKeys(walletId, [index], ([key]) => sign(key!));
    return { raw, hash: keccak256(raw) };
  }

  withKey<T>(walletId: string, index: number | null, from: string | undefined, use: (key: SigningKey) => T): Promise<T> {
    return this.withKeys(walletId, [{ index, from }], ([key]) => use(key!));
  }

  async withKeys<T>(walletId: string, picks: KeyPick[], use: (keys: SigningKey[]) => T): Promise<T> {
    for (const { index, from } of picks) {
      if (index !== null && (!Number.isInteger(index) || index < 0 || index >= 0x80000000))
        throw new Error('non-hardened index out of range');
      if (index === null && (from === undefined || !this.#openImported)) throw new Error('an imported key is named by its address (from)');
    }
    const lend = (keys: ChildKey[]) => {
      keys.forEach((key, i) =>
        assertKeyOf(key, picks[i]!.from, `the key of wallet ${walletId} index ${picks[i]!.index} is not the sender`),
      );
      const lent = keys.map(lentKey);
      try {
        return use(lent.map((l) => l.key));
      } finally {
        for (const l of lent) l.close();
      }
    };
    const imported = picks.findIndex((p) => p.index === null);
    if (imported >= 0) {
      // An imported key is opened for one signature; at most one per use. The others (a fee
      // payer: the master) come from the cache while it is open.
      if (picks.filter((p) => p.index === null).length > 1) throw new Error('one imported key at a time');
      const others = picks.filter((p) => p.index !== null).map((p) => p.index!);
      return this.#withImportedKey(walletId, picks[imported]!.from!, (key) =>
        others.length === 0
          ? lend([key])
          : this.#cache.withChildKeys(walletId, others, (derived) => {
              const keys = [...derived];
              keys.splice(imported, 0, key);
              return lend(keys);
            }),
      );
    }
    return this.#cache.withChildKeys(
      walletId,
      picks.map((p) => p.index!),
      lend,
    );
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
    assertSecp256k1((await this.#keysOf(walletId)).derivation); // before the mnemonic is opened
    const signature = await this.#cache.withChildKeys(walletId, [index], ([key]) => {
      assertSecp256k1Key(key!);
      assertKeyOf(key!, from, `the key of wallet ${walletId} index ${index} is not the signer`);
      const { r, s, recovery } = secp256k1.sign(hexToBytes(digest), key!.privateKey, { lowS: true });
      return serializeSignature({ r: numberToHex(r, { size: 32 }), s: numberToHex(s, { size: 32 }), yParity: recovery });
    });
    const { r, s, v } = parseSignature(signature);
    return { signature, r, s, v: Number(v) };
  }

  /**
   * An imported key is opened for one signature and wiped at once (never cached): a
   * secp256k1 scalar, or an ed25519 seed on an ed25519 family.
   */
  async #withImportedKey<T>(walletId: string, address: string, use: (key: ChildKey) => T | Promise<T>): Promise<T> {
    const { derivation, codec } = await this.#keysOf(walletId);
    const privateKey = await this.#openImported!(walletId, address);
    try {
      const publicKey = derivation.curve === 'ed25519' ? ed25519.getPublicKey(privateKey) : secp256k1.getPublicKey(privateKey, false);
      // Awaited here, so that the key is wiped only once `use` is done with it.
      return await use({ privateKey, address: codec.fromPublicKey(publicKey), codec, curve: derivation.curve });
    } finally {
      privateKey.fill(0);
    }
  }

  async signMessage(walletId: string, index: number, data: SignableMessage, from?: string): Promise<MessageSignature> {
    if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) throw new Error('non-hardened index out of range');
    if (!this.#messages) throw new Error('this signer was handed no message standards (LocalSignerOptions.messages)');
    // As for typed data: the digest signed is recomputed from the message the row records,
    // under its standard (handed in: chains/messages.ts), as prepareMessage computed it.
    const { digest, signsBytes } = this.#messages(data);
    if (digest !== data.digest) throw new Error('message digest mismatch: the payload changed after validation');
    if (signsBytes) return this.#signEd25519Message(walletId, index, hexToBytes(digest as Hex), from);
    return this.#signDigest(walletId, index, digest as Hex, from);
  }

  /**
   * ed25519 over the message bytes themselves. Refused when the bytes contain the key's
   * public key: only such bytes can be a transaction the key would authorise (namesKey).
   */
  async #signEd25519Message(walletId: string, index: number, bytes: Uint8Array, from?: string): Promise<Ed25519MessageSignature> {
    return this.#cache.withChildKeys(walletId, [index], ([key]) => {
      if (key!.curve !== 'ed25519') throw new BusinessRuleError('NOT_SUPPORTED', `This signature needs an ed25519 key, not ${key!.curve}`);
      assertKeyOf(key!, from, `the key of wallet ${walletId} index ${index} is not the signer`);
      if (namesKey(bytes, ed25519.getPublicKey(key!.privateKey))) {
        throw new BusinessRuleError(
          'MESSAGE_NAMES_SIGNER',
          "The message contains the signer's own public key, as a transaction it signs would: it is not signed",
        );
      }
      return { signature: base58.encode(ed25519.sign(bytes, key!.privateKey)), publicKey: key!.address };
    });
  }
}

/**
 * Whether `bytes` contain `publicKey` (32 bytes) anywhere. An ed25519 signature by a key over
 * bytes that do not contain the key can never authorise a transaction of a chain whose
 * transactions are ed25519 signatures over a message that lists its signers' keys in full
 * (the message standards that sign raw bytes: chains/messages.ts).
 */
export function namesKey(bytes: Uint8Array, publicKey: Uint8Array): boolean {
  const n = publicKey.length;
  outer: for (let i = 0; i + n <= bytes.length; i++) {
    for (let j = 0; j < n; j++) if (bytes[i + j] !== publicKey[j]) continue outer;
    return true;
  }
  return false;
}
