/**
 * Master key settings: where the key-encryption key lives (a local key or an HSM) and the
 * older keys still needed to open secrets during a rotation. Read by the service and by
 * the `rotate-master-key` and `create-hsm-key` commands (which need nothing else).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export class KeySettingError extends Error {
  constructor(
    readonly setting: string,
    readonly problem: string,
  ) {
    super(`Invalid configuration: ${setting} ${problem}`);
    this.name = 'KeySettingError';
  }
}

export interface Pkcs11Settings {
  /** Path of the PKCS#11 library (SoftHSM2: /usr/lib/softhsm/libsofthsm2.so). */
  module: string;
  /** The token, by label (preferred: slot ids can change) or by slot id. */
  tokenLabel: string | null;
  slot: number | null;
  /** The user PIN, from PKCS11_PIN or the file PKCS11_PIN_FILE names. */
  pin: string;
  /** Label of the AES key that seals new secrets. */
  keyLabel: string;
  /** Labels of older keys in the same token, needed while a rotation moves off them. */
  previousKeyLabels: string[];
}

export interface KeySettings {
  vault: 'local' | 'pkcs11';
  /** MASTER_KEY: the newest local key (null: the HSM key, or the embedded default's key file). */
  masterKey: Buffer | null;
  /** MASTER_KEY_PREVIOUS: older local keys, only to open what they sealed. */
  previous: Buffer[];
  pkcs11: Pkcs11Settings | null;
  /** ALLOW_INSECURE_KEY_FILE_PERMISSIONS: start although others can read the key file or data directory (keys/key-file-modes.ts). */
  allowInsecureKeyFilePermissions?: boolean;
  /** rotate-master-key: rows per batch and pause between batches (a throttle). */
  rotateBatchSize: number;
  rotatePauseMs: number;
}

export const DEFAULT_KEY_LABEL = 'wallet-master-key';

export function loadKeySettings(env: NodeJS.ProcessEnv): KeySettings {
  const vault = env.KEY_VAULT || 'local';
  if (vault !== 'local' && vault !== 'pkcs11') throw new KeySettingError('KEY_VAULT', `must be local or pkcs11 (got "${vault}")`);

  const masterKey = env.MASTER_KEY ? keySetting(env.MASTER_KEY, 'MASTER_KEY') : null;
  const previous = (env.MASTER_KEY_PREVIOUS ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean)
    .map((v, i) => keySetting(v, `MASTER_KEY_PREVIOUS (key ${i + 1})`));
  if (masterKey && previous.some((k) => k.equals(masterKey))) {
    throw new KeySettingError('MASTER_KEY_PREVIOUS', 'repeats MASTER_KEY: list only the older keys');
  }

  let pkcs11: Pkcs11Settings | null = null;
  if (vault === 'pkcs11') {
    if (masterKey) {
      throw new KeySettingError(
        'MASTER_KEY',
        'cannot be combined with KEY_VAULT=pkcs11 (the HSM key seals); to move a local key into the HSM, list it in MASTER_KEY_PREVIOUS and run rotate-master-key',
      );
    }
    pkcs11 = loadPkcs11(env);
  }

  return {
    vault,
    masterKey,
    previous,
    pkcs11,
    allowInsecureKeyFilePermissions: flagSetting(env, 'ALLOW_INSECURE_KEY_FILE_PERMISSIONS'),
    rotateBatchSize: intSetting(env, 'ROTATE_BATCH_SIZE', 100, 1, 10_000),
    rotatePauseMs: intSetting(env, 'ROTATE_PAUSE_MS', 0, 0, 60_000),
  };
}

function loadPkcs11(env: NodeJS.ProcessEnv): Pkcs11Settings {
  const module = env.PKCS11_MODULE;
  if (!module) throw new KeySettingError('PKCS11_MODULE', 'is required with KEY_VAULT=pkcs11 (the path of the PKCS#11 library)');
  const tokenLabel = env.PKCS11_TOKEN_LABEL || null;
  const slotRaw = env.PKCS11_SLOT || null;
  if (!tokenLabel && !slotRaw) throw new KeySettingError('PKCS11_TOKEN_LABEL', 'is required with KEY_VAULT=pkcs11 (or PKCS11_SLOT)');
  if (tokenLabel && slotRaw) throw new KeySettingError('PKCS11_SLOT', 'cannot be combined with PKCS11_TOKEN_LABEL: name the token one way');
  if (slotRaw && !/^\d+$/.test(slotRaw)) throw new KeySettingError('PKCS11_SLOT', `must be a slot id (a whole number; got "${slotRaw}")`);
  let pin = env.PKCS11_PIN || '';
  if (env.PKCS11_PIN && env.PKCS11_PIN_FILE) throw new KeySettingError('PKCS11_PIN_FILE', 'cannot be combined with PKCS11_PIN');
  if (env.PKCS11_PIN_FILE) {
    const file = path.resolve(env.PKCS11_PIN_FILE);
    try {
      pin = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      throw new KeySettingError(
        'PKCS11_PIN_FILE',
        `(${file}) cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
  }
  if (!pin) throw new KeySettingError('PKCS11_PIN', 'is required with KEY_VAULT=pkcs11 (or PKCS11_PIN_FILE)');
  const keyLabel = env.PKCS11_KEY_LABEL || DEFAULT_KEY_LABEL;
  const previousKeyLabels = (env.PKCS11_KEY_LABEL_PREVIOUS ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  if (previousKeyLabels.includes(keyLabel)) {
    throw new KeySettingError('PKCS11_KEY_LABEL_PREVIOUS', 'repeats PKCS11_KEY_LABEL: list only the older keys');
  }
  return { module, tokenLabel, slot: slotRaw ? Number(slotRaw) : null, pin, keyLabel, previousKeyLabels };
}

/** MASTER_KEY is 32 bytes in base64; anything else is refused with a clear message. */
export function parseMasterKey(value: string, setting = 'MASTER_KEY'): Buffer {
  const text = value.trim();
  // Decoded into a buffer of its own (Buffer.alloc never uses the shared pool, see
  // keys/secret-bytes.ts): Buffer.from(text, 'base64') would use the shared pool.
  const key = Buffer.alloc(Buffer.byteLength(text, 'base64'));
  key.write(text, 'base64');
  if (key.length !== 32 || key.toString('base64') !== text) {
    key.fill(0);
    throw new Error(`${setting} must be exactly 32 bytes encoded in base64 (generate one with: openssl rand -base64 32)`);
  }
  return key;
}

function keySetting(value: string, setting: string): Buffer {
  try {
    return parseMasterKey(value, setting);
  } catch (err) {
    throw new KeySettingError(setting, (err as Error).message.replace(`${setting} `, ''));
  }
}

function flagSetting(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || /^(0|false|no)$/i.test(raw)) return false;
  if (/^(1|true|yes)$/i.test(raw)) return true;
  throw new KeySettingError(name, `must be 1 or 0 (got "${raw}")`);
}

function intSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new KeySettingError(name, `must be a whole number from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}
