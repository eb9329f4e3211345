/**
 * Envelope encryption of secrets (wallet seeds, API keys) under a key-encryption key.
 * AES-256-GCM with a fresh 12-byte nonce per message and the owner's id as associated
 * data, so a ciphertext copied onto another row does not decrypt.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';

/** Where secrets are sealed. A cloud KMS can implement the same two calls. */
export interface KeyVault {
  seal(plaintext: Uint8Array, associatedData: string): Promise<Buffer>;
  open(sealed: Buffer, associatedData: string): Promise<Buffer>;
}

const VERSION = 1;

export class LocalKeyVault implements KeyVault {
  readonly #kek: Buffer;

  constructor(kek: Buffer) {
    if (kek.length !== 32) throw new Error('the key-encryption key must be 32 bytes');
    this.#kek = Buffer.from(kek);
  }

  async seal(plaintext: Uint8Array, associatedData: string): Promise<Buffer> {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#kek, nonce);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), nonce, cipher.getAuthTag(), body]);
  }

  async open(sealed: Buffer, associatedData: string): Promise<Buffer> {
    if (sealed.length < 29 || sealed[0] !== VERSION) throw new Error('unknown sealed secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.#kek, sealed.subarray(1, 13));
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(sealed.subarray(13, 29));
    return Buffer.concat([decipher.update(sealed.subarray(29)), decipher.final()]);
  }
}

/** MASTER_KEY is 32 bytes in base64; anything else is refused with a clear message. */
export function parseMasterKey(value: string): Buffer {
  const key = Buffer.from(value.trim(), 'base64');
  if (key.length !== 32 || key.toString('base64') !== value.trim()) {
    throw new Error('MASTER_KEY must be exactly 32 bytes encoded in base64 (generate one with: openssl rand -base64 32)');
  }
  return key;
}

/**
 * The embedded default keeps a generated key file in the data directory. Convenient for a
 * demo, unsafe for money: whoever reads the data directory reads the keys.
 */
export async function loadOrCreateKeyFile(dataDir: string): Promise<{ key: Buffer; created: boolean; file: string }> {
  const file = path.join(dataDir, 'master.key');
  try {
    return { key: parseMasterKey(await readFile(file, 'utf8')), created: false, file };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(dataDir, { recursive: true });
  const key = randomBytes(32);
  await writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  return { key, created: true, file };
}
