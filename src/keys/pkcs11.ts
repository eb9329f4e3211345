/**
 * The master key inside an HSM, through PKCS#11 (pkcs11js). The key is an AES-256 secret
 * key object created in the token as sensitive and non-extractable: secrets are encrypted
 * and decrypted by the token (CKM_AES_GCM, 96-bit nonce from this process, 128-bit tag,
 * the sealed value's header and owner id as associated data) and the key never enters
 * this process. Tested against SoftHSM2 (test/keys/pkcs11.test.ts).
 *
 * One PKCS#11 library is initialised once per process and shared (C_Initialize may be
 * called once); each token keeps one logged-in session open for the life of the process
 * (closing a token's last session logs it out) and runs operations one at a time on a
 * second session, replaced after any failure (a failed C_Encrypt can leave its operation
 * active).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as Pkcs11Js from 'pkcs11js';
import type { Pkcs11Settings } from '../config/keys.js';
import { KEY_ID_LABEL, MasterKeyError, type MasterKey } from './vault.js';
import { secretBuffer } from './secret-bytes.js';

type Lib = typeof Pkcs11Js;
type Handle = Pkcs11Js.Handle;

let pkcs11js: Lib | null = null;
/** Loaded only when an HSM is configured: a plain installation never opens the addon. */
function lib(): Lib {
  pkcs11js ??= createRequire(import.meta.url)('pkcs11js') as Lib;
  return pkcs11js;
}

interface Loaded {
  module: Pkcs11Js.PKCS11;
  users: number;
}
const loaded = new Map<string, Loaded>();

function acquireModule(path: string): Pkcs11Js.PKCS11 {
  let entry = loaded.get(path);
  if (!entry) {
    const module = new (lib().PKCS11)();
    try {
      module.load(path);
      module.C_Initialize();
    } catch (err) {
      throw new MasterKeyError(`PKCS11_MODULE ${path} cannot be loaded: ${(err as Error).message}`);
    }
    entry = { module, users: 0 };
    loaded.set(path, entry);
  }
  entry.users++;
  return entry.module;
}

function releaseModule(path: string): void {
  const entry = loaded.get(path);
  if (!entry || --entry.users > 0) return;
  loaded.delete(path);
  try {
    entry.module.C_Finalize();
    entry.module.close();
  } catch {
    /* finalising at exit: nothing left to do */
  }
}

const NONCE = 12;
const TAG_BITS = 128;

/** A logged-in token: finds and creates keys, runs their operations one at a time. */
export class Pkcs11Token {
  readonly #settings: Pkcs11Settings;
  readonly #module: Pkcs11Js.PKCS11;
  readonly #slot: Handle;
  readonly #login: Handle;
  #session: Handle | null = null;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(settings: Pkcs11Settings, module: Pkcs11Js.PKCS11, slot: Handle, login: Handle) {
    this.#settings = settings;
    this.#module = module;
    this.#slot = slot;
    this.#login = login;
  }

  static open(settings: Pkcs11Settings): Pkcs11Token {
    const p = lib();
    const module = acquireModule(settings.module);
    try {
      const slot = findSlot(module, settings);
      const login = module.C_OpenSession(slot, p.CKF_SERIAL_SESSION | p.CKF_RW_SESSION);
      try {
        module.C_Login(login, p.CKU_USER, settings.pin);
      } catch (err) {
        // Another token object of this process already logged the application in.
        if ((err as { code?: number }).code !== p.CKR_USER_ALREADY_LOGGED_IN) {
          module.C_CloseSession(login);
          throw new MasterKeyError(`PKCS11_PIN was refused by the token (${(err as Error).message})`);
        }
      }
      return new Pkcs11Token(settings, module, slot, login);
    } catch (err) {
      releaseModule(settings.module);
      throw err;
    }
  }

  get description(): string {
    return this.#settings.tokenLabel !== null ? `token "${this.#settings.tokenLabel}"` : `slot ${this.#settings.slot}`;
  }

  /** The AES key labelled `label`; refused unless it is sensitive and non-extractable. */
  async key(label: string, source = `PKCS11_KEY_LABEL ${label}`): Promise<Pkcs11MasterKey> {
    const handle = await this.#run((s) => {
      const found = this.#find(s, label);
      if (found.length === 0) {
        throw new MasterKeyError(
          `no AES key labelled "${label}" in ${this.description}; create it with: npm start -- create-hsm-key (see docs/configuration.md)`,
        );
      }
      if (found.length > 1)
        throw new MasterKeyError(`${found.length} keys are labelled "${label}" in ${this.description}: labels must be unique`);
      const p = lib();
      const attrs = this.#module.C_GetAttributeValue(s, found[0]!, [
        { type: p.CKA_KEY_TYPE },
        { type: p.CKA_SENSITIVE },
        { type: p.CKA_EXTRACTABLE },
      ]);
      const [keyType, sensitive, extractable] = attrs.map((a) => a.value as Buffer);
      if (handleNumber(keyType!) !== p.CKK_AES) throw new MasterKeyError(`the key "${label}" is not an AES key`);
      if (sensitive![0] !== 1 || extractable![0] !== 0) {
        throw new MasterKeyError(
          `the key "${label}" can leave the token (CKA_SENSITIVE must be true, CKA_EXTRACTABLE false): create a new one with create-hsm-key`,
        );
      }
      return found[0]!;
    });
    const key = new Pkcs11MasterKey(this, handle, label, source);
    await key.init();
    return key;
  }

  /** Creates a sensitive, non-extractable AES-256 key in the token; refuses a taken label. */
  async createKey(label: string): Promise<void> {
    await this.#run((s) => {
      if (this.#find(s, label).length > 0) throw new MasterKeyError(`a key labelled "${label}" already exists in ${this.description}`);
      const p = lib();
      this.#module.C_GenerateKey(s, { mechanism: p.CKM_AES_KEY_GEN }, [
        { type: p.CKA_CLASS, value: p.CKO_SECRET_KEY },
        { type: p.CKA_KEY_TYPE, value: p.CKK_AES },
        { type: p.CKA_VALUE_LEN, value: 32 },
        { type: p.CKA_LABEL, value: label },
        { type: p.CKA_ID, value: randomBytes(16) },
        { type: p.CKA_TOKEN, value: true },
        { type: p.CKA_PRIVATE, value: true },
        { type: p.CKA_SENSITIVE, value: true },
        { type: p.CKA_EXTRACTABLE, value: false },
        { type: p.CKA_MODIFIABLE, value: false },
        { type: p.CKA_ENCRYPT, value: true },
        { type: p.CKA_DECRYPT, value: true },
        { type: p.CKA_WRAP, value: false },
        { type: p.CKA_UNWRAP, value: false },
        { type: p.CKA_SIGN, value: false },
        { type: p.CKA_VERIFY, value: false },
        { type: p.CKA_DERIVE, value: false },
      ]);
    });
  }

  /** AES-GCM in the token: output is body || tag. */
  gcm(kind: 'encrypt' | 'decrypt', key: Handle, iv: Buffer, aad: Buffer, input: Uint8Array): Promise<Buffer> {
    return this.#run(async (s) => {
      const p = lib();
      const mechanism = {
        mechanism: p.CKM_AES_GCM,
        parameter: { type: p.CK_PARAMS_AES_GCM_v240, iv, aad, ivBits: NONCE * 8, tagBits: TAG_BITS },
      };
      const data = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
      if (kind === 'encrypt') {
        this.#module.C_EncryptInit(s, mechanism, key);
        return Buffer.from(await this.#module.C_EncryptAsync(s, data, Buffer.alloc(input.length + TAG_BITS / 8)));
      }
      this.#module.C_DecryptInit(s, mechanism, key);
      // The plaintext lands in a buffer of its own, exactly sized, and the scratch is wiped.
      const scratch = secretBuffer(input.length);
      try {
        const plain = await this.#module.C_DecryptAsync(s, data, scratch);
        const out = secretBuffer(plain.length);
        plain.copy(out);
        return out;
      } finally {
        scratch.fill(0);
      }
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue.catch(() => undefined);
    for (const s of [this.#session, this.#login]) {
      if (!s) continue;
      try {
        this.#module.C_CloseSession(s);
      } catch {
        /* already gone */
      }
    }
    this.#session = null;
    releaseModule(this.#settings.module);
  }

  #find(session: Handle, label: string): Handle[] {
    const p = lib();
    this.#module.C_FindObjectsInit(session, [
      { type: p.CKA_CLASS, value: p.CKO_SECRET_KEY },
      { type: p.CKA_LABEL, value: label },
    ]);
    try {
      return this.#module.C_FindObjects(session, 10);
    } finally {
      this.#module.C_FindObjectsFinal(session);
    }
  }

  /** One operation at a time on the working session; a failure replaces the session. */
  #run<T>(op: (session: Handle) => T | Promise<T>): Promise<T> {
    const run = async () => {
      if (this.#closed) throw new Error('the HSM session is closed');
      const p = lib();
      this.#session ??= this.#module.C_OpenSession(this.#slot, p.CKF_SERIAL_SESSION | p.CKF_RW_SESSION);
      const session = this.#session;
      try {
        return await op(session);
      } catch (err) {
        this.#session = null;
        try {
          this.#module.C_CloseSession(session);
        } catch {
          /* the session may be gone already */
        }
        throw err;
      }
    };
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => undefined);
    return result;
  }
}

function findSlot(module: Pkcs11Js.PKCS11, settings: Pkcs11Settings): Handle {
  const slots = module.C_GetSlotList(true);
  for (const slot of slots) {
    if (settings.slot !== null) {
      if (handleNumber(slot) === settings.slot) return slot;
      continue;
    }
    if (module.C_GetTokenInfo(slot).label.trim() === settings.tokenLabel) return slot;
  }
  const what = settings.slot !== null ? `PKCS11_SLOT ${settings.slot}` : `PKCS11_TOKEN_LABEL "${settings.tokenLabel}"`;
  throw new MasterKeyError(`${what}: no such token in ${settings.module} (${slots.length} token(s) present)`);
}

/** A CK_ULONG (a handle, a slot id, a key type) as pkcs11js returns it: native-endian bytes. */
function handleNumber(handle: Buffer): number {
  return handle.length >= 8 ? Number(handle.readBigUInt64LE(0)) : handle.readUInt32LE(0);
}

/** A master key in the token. Its id is a MAC of a fixed label computed by the token. */
export class Pkcs11MasterKey implements MasterKey {
  readonly kind = 'pkcs11' as const;
  #id = '';

  constructor(
    private readonly token: Pkcs11Token,
    private readonly handle: Handle,
    readonly label: string,
    readonly source: string,
  ) {}

  get id(): string {
    return this.#id;
  }

  /**
   * The key id: GCM with the all-zero nonce over 16 zero bytes and the id label, hashed.
   * Deterministic, so every process computes the same id without the database; the zero
   * nonce is used for this one fixed message only (seals use random nonces), which reveals
   * nothing about the key.
   */
  async init(): Promise<void> {
    const out = await this.token.gcm('encrypt', this.handle, Buffer.alloc(NONCE), Buffer.from(KEY_ID_LABEL), Buffer.alloc(16));
    this.#id = createHash('sha256').update(out).digest().subarray(0, 8).toString('hex');
  }

  async encrypt(plaintext: Uint8Array, aad: Buffer): Promise<Buffer> {
    const nonce = randomBytes(NONCE);
    return Buffer.concat([nonce, await this.token.gcm('encrypt', this.handle, nonce, aad, plaintext)]);
  }

  async decrypt(payload: Buffer, aad: Buffer): Promise<Buffer> {
    if (payload.length < NONCE + TAG_BITS / 8) throw new Error('unknown sealed secret format');
    return this.token.gcm('decrypt', this.handle, payload.subarray(0, NONCE), aad, payload.subarray(NONCE));
  }
}
