/**
 * Envelope encryption of secrets (wallet seeds, account xpubs, API keys) under a master
 * key (the key-encryption key). AES-256-GCM with a fresh 12-byte nonce per message and the
 * owner's id as associated data, so a ciphertext copied onto another row does not decrypt.
 *
 * Every sealed value names the master key that sealed it:
 *   v2: 0x02 | key id (8 bytes) | the key's payload (local keys: nonce 12 | tag 16 | body)
 *   v1: 0x01 | nonce 12 | tag 16 | body (written before key ids existed; local keys only)
 * In v2 the 9-byte header is part of the authenticated data, ahead of the owner's id.
 * A KeyRing holds several master keys (old and new during a rotation, a file key and an
 * HSM key while moving into the HSM): it opens with whichever key the value names and
 * seals with the one the database marks active (docs/architecture.md, "Key custody").
 */
import { createCipheriv, createDecipheriv, createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { parseMasterKey } from '../config/keys.js';

// Parsing the setting is config's; the vault reads key files with the same rule.
export { parseMasterKey };

/** Where secrets are sealed. A cloud KMS can implement the same two calls. */
export interface KeyVault {
  /**
   * `within`: the caller's open database transaction, the one that stores the value. It is
   * handed as is to the ring's `sealingKeyId`, which reads the active key on it and holds it
   * to that transaction's end, so a rotation cannot retire the key while the value is on its
   * way (modules/custody): a value stored must be sealed inside the transaction storing it.
   * Opaque here: keys/ knows no database.
   */
  seal(plaintext: Uint8Array, associatedData: string, within?: unknown): Promise<Buffer>;
  /** The plaintext, in a buffer of its own (never Node's shared pool): zero it after use. */
  open(sealed: Buffer, associatedData: string): Promise<Buffer>;
}

/** A master key of some kind (a local AES key, or a key inside an HSM). */
export interface MasterKey {
  /** 16 hex digits, derived from the key itself (a key check value). */
  readonly id: string;
  readonly kind: 'local' | 'pkcs11';
  /** Where it comes from, for messages ("MASTER_KEY", "PKCS11_KEY_LABEL wallet-kek", ...). */
  readonly source: string;
  encrypt(plaintext: Uint8Array, aad: Buffer): Promise<Buffer>;
  decrypt(payload: Buffer, aad: Buffer): Promise<Buffer>;
  close?(): Promise<void>;
}

/** A refusal about master keys that the operator must fix; the CLI exits with code 2. */
export class MasterKeyError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'MasterKeyError';
  }
}

const V1 = 1;
const V2 = 2;
const HEADER = 9;
/** The label every key kind MACs to produce its id. */
export const KEY_ID_LABEL = 'stablecoin-wallet master key id v1';

/** The id of the master key that sealed a value: its hex id, 'legacy' for v1, null if unknown. */
export function sealedKeyId(sealed: Buffer): string | 'legacy' | null {
  if (sealed.length >= 29 && sealed[0] === V1) return 'legacy';
  if (sealed.length > HEADER && sealed[0] === V2) return sealed.subarray(1, HEADER).toString('hex');
  return null;
}

/** The 9 bytes a value sealed under `keyId` starts with (rotation finds the others by it). */
export function sealedHeader(keyId: string): Buffer {
  const id = Buffer.from(keyId, 'hex');
  if (id.length !== 8) throw new Error('a master key id is 8 bytes');
  return Buffer.concat([Buffer.from([V2]), id]);
}

/** A 32-byte AES-256 key held by this process (MASTER_KEY or the embedded default's file). */
export class LocalMasterKey implements MasterKey {
  readonly id: string;
  readonly kind = 'local' as const;
  readonly #key: KeyObject;

  constructor(
    kek: Uint8Array,
    readonly source = 'MASTER_KEY',
  ) {
    if (kek.length !== 32) throw new Error('the key-encryption key must be 32 bytes');
    // A KeyObject keeps the key in native memory, not in a JavaScript buffer of ours.
    this.#key = createSecretKey(kek);
    this.id = createHmac('sha256', this.#key).update(KEY_ID_LABEL).digest().subarray(0, 8).toString('hex');
  }

  async encrypt(plaintext: Uint8Array, aad: Buffer): Promise<Buffer> {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce);
    cipher.setAAD(aad);
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([nonce, cipher.getAuthTag(), body]);
  }

  async decrypt(payload: Buffer, aad: Buffer): Promise<Buffer> {
    if (payload.length < 28) throw new Error('unknown sealed secret format');
    return gcmOpen(this.#key, payload.subarray(0, 12), payload.subarray(12, 28), payload.subarray(28), aad);
  }

  /** A v1 value (no key id): the owner's id alone was the associated data. */
  openLegacy(sealed: Buffer, associatedData: string): Buffer {
    return gcmOpen(this.#key, sealed.subarray(1, 13), sealed.subarray(13, 29), sealed.subarray(29), Buffer.from(associatedData, 'utf8'));
  }
}

/** AES-256-GCM decryption into a dedicated buffer, wiped if authentication fails. */
function gcmOpen(key: KeyObject, nonce: Buffer, tag: Buffer, body: Buffer, aad: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  // update() returns a buffer of its own (measured: not from the pool); Buffer.concat would
  // copy the plaintext into the shared pool, where nobody can wipe it.
  const plain = decipher.update(body);
  try {
    decipher.final();
  } catch (err) {
    plain.fill(0);
    throw err;
  }
  return plain;
}

/**
 * Several master keys: opens a value with the key it names, seals with the active one.
 * `sealingKeyId` is asked at every seal (the database's active key in a running service),
 * so every process switches to a new key as soon as a rotation activates it.
 */
export class KeyRing implements KeyVault {
  readonly keys: readonly MasterKey[];
  readonly #byId = new Map<string, MasterKey>();
  readonly #sealingKeyId: (within?: unknown) => string | Promise<string>;

  constructor(keys: MasterKey[], sealingKeyId: (within?: unknown) => string | Promise<string>) {
    this.keys = keys;
    for (const key of keys) if (!this.#byId.has(key.id)) this.#byId.set(key.id, key);
    this.#sealingKeyId = sealingKeyId;
  }

  key(id: string): MasterKey | undefined {
    return this.#byId.get(id);
  }

  async seal(plaintext: Uint8Array, associatedData: string, within?: unknown): Promise<Buffer> {
    const id = await this.#sealingKeyId(within);
    const key = this.#byId.get(id);
    if (!key) {
      throw new MasterKeyError(
        `the active master key (id ${id}) is not configured in this process: start it with that key (MASTER_KEY, MASTER_KEY_PREVIOUS or the HSM key)`,
      );
    }
    return this.sealWith(key, plaintext, associatedData);
  }

  async sealWith(key: MasterKey, plaintext: Uint8Array, associatedData: string): Promise<Buffer> {
    const header = sealedHeader(key.id);
    const payload = await key.encrypt(plaintext, Buffer.concat([header, Buffer.from(associatedData, 'utf8')]));
    return Buffer.concat([header, payload]);
  }

  async open(sealed: Buffer, associatedData: string): Promise<Buffer> {
    const id = sealedKeyId(sealed);
    if (id === null) throw new Error('unknown sealed secret format');
    if (id === 'legacy') {
      // v1 values carry no key id: only local keys wrote them, and GCM tells the right one.
      for (const key of this.keys) {
        if (!(key instanceof LocalMasterKey)) continue;
        try {
          return key.openLegacy(sealed, associatedData);
        } catch {
          /* not this key */
        }
      }
      throw new Error('no configured master key opens this secret (sealed before key ids)');
    }
    const key = this.#byId.get(id);
    if (!key) throw new Error(`this secret is sealed under master key ${id}, which is not configured in this process`);
    return key.decrypt(sealed.subarray(HEADER), Buffer.concat([sealed.subarray(0, HEADER), Buffer.from(associatedData, 'utf8')]));
  }

  async close(): Promise<void> {
    for (const key of this.keys) await key.close?.();
  }
}

/** One local key that always seals: tests, tools, and the first start of an installation. */
export class LocalKeyVault extends KeyRing {
  constructor(kek: Buffer) {
    const key = new LocalMasterKey(kek);
    super([key], () => key.id);
  }
}

export function keyFilePath(dataDir: string): string {
  return path.join(dataDir, 'master.key');
}

/** The embedded default's key file, or null when there is none (never created here). */
export async function readKeyFile(dataDir: string): Promise<{ key: Buffer; file: string } | null> {
  const file = keyFilePath(dataDir);
  try {
    return { key: parseMasterKey(await readFile(file, 'utf8')), file };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * The embedded default keeps a generated key file in the data directory. Convenient for a
 * demo, unsafe for money: whoever reads the data directory reads the keys. Callers create
 * it only for a database that holds no sealed secret (modules/custody checks that first).
 */
export async function loadOrCreateKeyFile(dataDir: string): Promise<{ key: Buffer; created: boolean; file: string }> {
  const found = await readKeyFile(dataDir);
  if (found) return { ...found, created: false };
  const file = keyFilePath(dataDir);
  await mkdir(dataDir, { recursive: true });
  const key = randomBytes(32);
  await writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  return { key, created: true, file };
}
