/**
 * Master key commands (docs/configuration.md, "Master keys"; docs/architecture.md, "Key custody"):
 *
 *   npm start -- rotate-master-key [--status]
 *       Makes the newest configured key (MASTER_KEY, or the HSM's PKCS11_KEY_LABEL) the
 *       active one and re-seals every sealed secret under it, online and resumably; the
 *       older keys come from MASTER_KEY_PREVIOUS / PKCS11_KEY_LABEL_PREVIOUS. --status only
 *       prints the recorded keys and how many values each one seals.
 *   npm start -- create-hsm-key [--label <label>]
 *       Creates the AES-256 master key inside the HSM (sensitive, non-extractable).
 *
 * Like `migrate`, they need only the database and the key settings (no chains). Exit codes:
 * 0 done, 2 a setting or a key refused (nothing written), 1 anything else.
 */
import path from 'node:path';
import { loadKeySettings, KeySettingError, type KeySettings } from '../config/keys.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { migrate } from '../db/migrate.js';
import { createDatabase } from '../db/pool.js';
import { startEmbeddedPostgres } from '../db/embedded.js';
import { lockDataDir } from '../lib/data-dir-lock.js';
import { EMBEDDED_DATABASE, ensureDatabase } from '../runtime.js';
import { openCustody } from '../modules/custody/service.js';
import { custodyStatus, rotateMasterKey } from '../modules/custody/rotation.js';
import { Pkcs11Token } from '../keys/pkcs11.js';
import { MasterKeyError } from '../keys/vault.js';
import { checkKeyFilePermissions } from '../keys/key-file-modes.js';

const fail = (message: string, code = 2): never => {
  process.stderr.write(`${message}\n`);
  process.exit(code);
};

/** A refusal the operator must fix: its message, exit code 2, after the cleanups run. */
function refused(err: MasterKeyError): void {
  process.stderr.write(`${err.message}\n`);
  process.exitCode = err.exitCode;
}

function settings(env: NodeJS.ProcessEnv): KeySettings {
  try {
    return loadKeySettings(env);
  } catch (err) {
    if (err instanceof KeySettingError) fail(err.message);
    throw err;
  }
}

/** The database: DATABASE_URL, or the embedded default's (the service must be stopped). */
async function database(env: NodeJS.ProcessEnv, logger: Logger): Promise<{ url: string; embedded: boolean; stop(): Promise<void> }> {
  if (env.DATABASE_URL) return { url: env.DATABASE_URL, embedded: false, stop: async () => undefined };
  // The running service owns the data directory: refuse (DataDirInUseError) rather than
  // stop its PostgreSQL as "left over" (docs/configuration.md, "The data directory lock").
  const lock = await lockDataDir(path.resolve(env.DATA_DIR || '.data'));
  const keys = settings(env);
  await checkKeyFilePermissions(path.resolve(env.DATA_DIR || '.data'), {
    keyFile: keys.vault === 'local' && !keys.masterKey,
    allowInsecure: keys.allowInsecureKeyFilePermissions ?? false,
    logger,
  }).catch(async (err: unknown) => {
    await lock.release();
    throw err;
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => process.exit(130));
  try {
    const server = await startEmbeddedPostgres({ dir: path.resolve(env.DATA_DIR || '.data'), logger });
    await ensureDatabase(server.url(), EMBEDDED_DATABASE);
    return { url: server.url(EMBEDDED_DATABASE), embedded: true, stop: () => server.stop().finally(() => lock.release()) };
  } catch (err) {
    await lock.release();
    throw err;
  }
}

export async function rotateMasterKeyCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const unknown = args.filter((a) => a !== '--status');
  if (unknown.length) fail('usage: npm start -- rotate-master-key [--status]   (settings: docs/configuration.md, "Master keys")');
  const keys = settings(env);
  const logger = createLogger(env.LOG_LEVEL || 'info');
  const db = await database(env, logger);
  try {
    await migrate(db.url, logger);
    const pool = createDatabase(db.url, logger, 4);
    try {
      const custody = await openCustody({
        db: pool.db,
        keys,
        keyFileDir: db.embedded ? path.resolve(env.DATA_DIR || '.data') : null,
        logger,
      });
      try {
        if (args.includes('--status')) {
          process.stdout.write(`${JSON.stringify(await custodyStatus(pool.db), null, 2)}\n`);
          return;
        }
        const report = await rotateMasterKey(pool.db, custody.vault, custody.primary, {
          batchSize: keys.rotateBatchSize,
          pauseMs: keys.rotatePauseMs,
          logger,
        });
        const moved = Object.entries(report.resealed)
          .map(([column, n]) => `${column}: ${n}`)
          .join(', ');
        process.stdout.write(
          `master key ${report.keyId} (${custody.primary.source}) is active and seals every secret (re-sealed now: ${moved}).\n` +
            (report.retired.length
              ? `retired: ${report.retired.join(', ')}; nothing is sealed under them any more: remove them from MASTER_KEY_PREVIOUS / PKCS11_KEY_LABEL_PREVIOUS (restart each process), then destroy them.\n`
              : 'no other key holds anything.\n'),
        );
      } finally {
        await custody.close();
      }
    } finally {
      await pool.close();
    }
  } catch (err) {
    if (!(err instanceof MasterKeyError)) throw err;
    refused(err);
  } finally {
    await db.stop();
  }
}

export async function createHsmKeyCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  // Only the PKCS11_* settings matter here.
  const keys = settings({ ...env, KEY_VAULT: 'pkcs11', MASTER_KEY: '', MASTER_KEY_PREVIOUS: '' });
  const i = args.indexOf('--label');
  const label = i >= 0 ? args[i + 1] : keys.pkcs11!.keyLabel;
  if (!label || args.some((a, j) => a !== '--label' && j !== i + 1)) fail('usage: npm start -- create-hsm-key [--label <label>]');
  let token: Pkcs11Token;
  try {
    token = Pkcs11Token.open(keys.pkcs11!);
  } catch (err) {
    if (!(err instanceof MasterKeyError)) throw err;
    return refused(err);
  }
  try {
    await token.createKey(label!);
    const key = await token.key(label!);
    process.stdout.write(`created AES-256 key "${label}" (master key id ${key.id}) in ${token.description}: sensitive, not extractable.\n`);
  } catch (err) {
    if (!(err instanceof MasterKeyError)) throw err;
    refused(err);
  } finally {
    await token.close();
  }
}

/** main.ts dispatches these names here. */
export const keyCommands: Record<string, (args: string[]) => Promise<void>> = {
  'rotate-master-key': (args) => rotateMasterKeyCommand(args),
  'create-hsm-key': (args) => createHsmKeyCommand(args),
};
