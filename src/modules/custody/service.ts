/**
 * Key custody at start: the master keys this process holds (MASTER_KEY, the embedded
 * default's key file, an HSM key, and MASTER_KEY_PREVIOUS), checked against the keys the
 * database records before anything is written, and the vault built from them. A process
 * with a wrong key, or a lost key file, is refused (MasterKeyError, exit code 2) instead of
 * sealing new secrets under a key that opens none of the old ones.
 * See docs/architecture.md, "Key custody".
 */
import type { Db, DbConn } from '../../db/pool.js';
import type { Logger } from '../../lib/logger.js';
import type { KeySettings } from '../../config/keys.js';
import {
  KeyRing,
  LocalMasterKey,
  MasterKeyError,
  loadOrCreateKeyFile,
  readKeyFile,
  keyFilePath,
  type MasterKey,
} from '../../keys/vault.js';
import { Pkcs11Token } from '../../keys/pkcs11.js';
import { SEALED_COLUMNS, WALLET_XPUB, columnName } from '../../keys/sealed-columns.js';
import { secretFromString } from '../../keys/secret-bytes.js';
import * as store from './store.js';

export interface CustodyOptions {
  db: Db;
  keys: KeySettings;
  /** The embedded default's data directory, whose key file is the key when MASTER_KEY is unset. */
  keyFileDir: string | null;
  logger: Logger;
}

export interface Custody {
  /** Opens with any configured key; seals with the key the database marks active. */
  vault: KeyRing;
  /** The newest configured key: MASTER_KEY, the key file, or the HSM's PKCS11_KEY_LABEL. */
  primary: MasterKey;
  close(): Promise<void>;
}

/** Values sampled per sealed column when a database without key records meets its first key. */
const SAMPLE = 20;
const XPUB_BATCH = 100;

export async function openCustody(opts: CustodyOptions): Promise<Custody> {
  const { db, logger } = opts;
  const held = await loadKeys(opts);
  try {
    await checkKeys(db, held.keys, held.primary, logger);
    // Read on the sealing caller's transaction (KeyVault.seal), and held to its COMMIT so a
    // rotation cannot activate another key, re-seal, count and retire this one while a value
    // sealed under it is still uncommitted (store.activeKeyIdForSealing). Writers seal inside
    // the transaction that stores the value; a seal outside any is read unheld.
    const vault = new KeyRing(held.keys, async (within) => {
      const id = within ? await store.activeKeyIdForSealing(within as DbConn) : await store.activeKeyId(db);
      if (!id) throw new MasterKeyError('no active master key is recorded in the database');
      return id;
    });
    await sealClearXpubs(db, vault, logger);
    return { vault, primary: held.primary, close: held.close };
  } catch (err) {
    await held.close();
    throw err;
  }
}

interface HeldKeys {
  keys: MasterKey[];
  primary: MasterKey;
  close(): Promise<void>;
}

async function loadKeys({ db, keys: settings, keyFileDir, logger }: CustodyOptions): Promise<HeldKeys> {
  const keys: MasterKey[] = [];
  let token: Pkcs11Token | null = null;
  const close = async () => token?.close();
  try {
    if (settings.vault === 'pkcs11') {
      token = Pkcs11Token.open(settings.pkcs11!);
      keys.push(await token.key(settings.pkcs11!.keyLabel, `PKCS11_KEY_LABEL "${settings.pkcs11!.keyLabel}"`));
      for (const label of settings.pkcs11!.previousKeyLabels) keys.push(await token.key(label, `PKCS11_KEY_LABEL_PREVIOUS "${label}"`));
    } else if (settings.masterKey) {
      keys.push(new LocalMasterKey(settings.masterKey, 'MASTER_KEY'));
    } else if (keyFileDir) {
      keys.push(new LocalMasterKey(await keyFile(db, keyFileDir, logger), keyFilePath(keyFileDir)));
    } else {
      throw new MasterKeyError('MASTER_KEY is required (32 bytes, base64; openssl rand -base64 32)');
    }
    settings.previous.forEach((k, i) => keys.push(new LocalMasterKey(k, `MASTER_KEY_PREVIOUS (key ${i + 1})`)));
    const seen = new Map<string, string>();
    for (const key of keys) {
      const twin = seen.get(key.id);
      if (twin) throw new MasterKeyError(`${key.source} is the same key as ${twin}: list each key once`);
      seen.set(key.id, key.source);
    }
    return { keys, primary: keys[0]!, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * The embedded default's key file. Created only for a database that holds no sealed
 * secret: once wallets exist, a missing file means a lost key, and a new key would seal
 * new secrets beside old ones that nothing opens any more.
 */
async function keyFile(db: Db, dir: string, logger: Logger): Promise<Buffer> {
  const found = await readKeyFile(dir);
  if (!found && (await store.holdsSealedValues(db))) {
    const active = await store.activeKeyId(db);
    throw new MasterKeyError(
      `the master key file ${keyFilePath(dir)} is missing, but this database holds secrets sealed under ` +
        `${active ? `master key ${active}` : 'it'}. Restore the file from a backup, or set MASTER_KEY to that key. ` +
        'No new key file was generated: a new key would not open the existing wallets.',
    );
  }
  const { key, file, created } = found ? { ...found, created: false } : await loadOrCreateKeyFile(dir);
  logger.warn(
    { file, created },
    'MASTER_KEY not set: wallet seeds are encrypted with a key file in the data directory (fine for a demo, not for real money)',
  );
  return key;
}

/**
 * The configured keys against the database's record. Writes only to register the first
 * key of a database; a refusal writes nothing (the transaction rolls back).
 */
async function checkKeys(db: Db, keys: MasterKey[], primary: MasterKey, logger: Logger): Promise<void> {
  const configured = new Map(keys.map((k) => [k.id, k]));
  const sources = keys.map((k) => `${k.source} (id ${k.id})`).join(', ');
  await db.transaction().execute(async (tx) => {
    // Two processes starting at once on a new database register one key, not two.
    await store.lockMasterKeys(tx);
    const rows = await store.listMasterKeys(tx);
    if (rows.length === 0) {
      const active = await firstKey(tx, keys, primary);
      await store.activate(tx, active.id, active.kind);
      logger.info({ keyId: active.id, source: active.source }, 'master key recorded: it seals every new secret');
      return;
    }
    const active = rows.find((r) => r.state === 'active');
    if (!active || !configured.has(active.id)) {
      throw new MasterKeyError(
        `the configured master key does not match this database: its secrets are sealed under master key ${active?.id ?? '(none active)'}, ` +
          `but this process holds ${sources}. Start with the right key (MASTER_KEY, the key file, or the HSM key); nothing was written.`,
      );
    }
    const missing = rows.filter((r) => r.state === 'retiring' && !configured.has(r.id));
    if (missing.length) {
      throw new MasterKeyError(
        `rotate-master-key has not finished moving secrets off master key ${missing.map((r) => r.id).join(', ')}: ` +
          'keep it configured (MASTER_KEY_PREVIOUS or PKCS11_KEY_LABEL_PREVIOUS) until it reports done; nothing was written.',
      );
    }
    if (primary.id !== active.id) {
      logger.info(
        { keyId: primary.id, activeKeyId: active.id },
        `${primary.source} is not active yet: new secrets are sealed under ${active.id} until rotate-master-key activates it`,
      );
    }
  });
}

/**
 * The key to record for a database that has none recorded: a new database takes the
 * primary key; one written before key ids existed takes the configured key that opens its
 * newest secrets, and is refused if any sampled secret opens with none of them.
 */
async function firstKey(db: DbConn, keys: MasterKey[], primary: MasterKey): Promise<MasterKey> {
  const opened = new Map<MasterKey, number>();
  let sampled = 0;
  const failed: string[] = [];
  for (const column of SEALED_COLUMNS) {
    for (const value of await store.newestSealed(db, column, SAMPLE)) {
      sampled++;
      const aad = column.associatedData(value.id);
      let opener: MasterKey | undefined;
      for (const key of keys) {
        try {
          (await new KeyRing([key], () => key.id).open(value.sealed, aad)).fill(0);
          opener = key;
          break;
        } catch {
          /* not this key */
        }
      }
      if (opener) opened.set(opener, (opened.get(opener) ?? 0) + 1);
      else failed.push(columnName(column));
    }
  }
  if (sampled === 0) return primary;
  if (failed.length) {
    throw new MasterKeyError(
      `the configured master key does not open ${failed.length} of ${sampled} secrets sampled in this database (${[...new Set(failed)].join(', ')}): ` +
        `it is not the key they were sealed with. This process holds ${keys.map((k) => k.source).join(', ')}; nothing was written.`,
    );
  }
  return opened.has(primary) ? primary : [...opened.keys()][0]!;
}

/**
 * Seals the account xpubs that rows written before 016_key_custody.sql hold in clear, and
 * clears them. Runs at every start (a migration has no key); a no-op once done.
 */
async function sealClearXpubs(db: Db, vault: KeyRing, logger: Logger): Promise<void> {
  let sealed = 0;
  for (;;) {
    const n = await db.transaction().execute(async (tx) => {
      const rows = await store.clearXpubs(tx, XPUB_BATCH);
      for (const row of rows) {
        const plain = secretFromString(row.account_xpub!);
        try {
          await store.sealXpub(tx, row.id, await vault.seal(plain, WALLET_XPUB.associatedData(row.id), tx));
        } finally {
          plain.fill(0);
        }
      }
      return rows.length;
    });
    sealed += n;
    if (n < XPUB_BATCH) break;
  }
  if (sealed) logger.info({ wallets: sealed }, 'account xpubs sealed with the master key (they were stored in clear)');
}
