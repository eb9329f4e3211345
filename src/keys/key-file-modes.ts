/**
 * The embedded default keeps its master key in a file of the data directory
 * (`<DATA_DIR>/master.key`): whoever reads that file reads every wallet's seed. A key file
 * that other users can read, or a data directory they can read or write (where the key file
 * can be read, swapped or planted), stops the start with exit code 2, naming the path and
 * the `chmod` that fixes it, unless ALLOW_INSECURE_KEY_FILE_PERMISSIONS says otherwise.
 * The service creates both private (data-dir-lock.ts, vault.ts), so only a directory or
 * file made or changed by hand trips this.
 *
 * Execute bits alone are fine on the directory: as root, the embedded PostgreSQL runs as its
 * own user, which must traverse it (db/embedded.ts adds o+x), without listing it.
 */
import { stat } from 'node:fs/promises';
import type { Logger } from '../lib/logger.js';
import { keyFilePath } from './vault.js';

export const ALLOW_INSECURE_SETTING = 'ALLOW_INSECURE_KEY_FILE_PERMISSIONS';

/** Group or other may read or write the directory (traversing it is allowed). */
const DIR_OPEN = 0o066;
/** Group or other may do anything with the key file. */
const FILE_OPEN = 0o077;

export class InsecurePermissionsError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'InsecurePermissionsError';
  }
}

/**
 * Checks the data directory and, when the process will use it (`keyFile`), its master key
 * file. Throws InsecurePermissionsError, or with `allowInsecure` logs a warning and returns.
 */
export async function checkKeyFilePermissions(
  dir: string,
  opts: { keyFile: boolean; allowInsecure: boolean; logger: Logger },
): Promise<void> {
  // Windows has no POSIX modes to read (stat reports 0666 for every file).
  if (process.platform === 'win32') return;
  const problems: string[] = [];
  const dirMode = await modeOf(dir);
  if (dirMode !== null && dirMode & DIR_OPEN) {
    problems.push(`the data directory ${dir} is open to other users (mode ${octal(dirMode)}); fix it with: chmod 700 ${dir}`);
  }
  if (opts.keyFile) {
    const file = keyFilePath(dir);
    const fileMode = await modeOf(file);
    if (fileMode !== null && fileMode & FILE_OPEN) {
      problems.push(`the master key file ${file} is readable by other users (mode ${octal(fileMode)}); fix it with: chmod 600 ${file}`);
    }
  }
  if (problems.length === 0) return;
  if (opts.allowInsecure) {
    opts.logger.warn({ problems }, `${ALLOW_INSECURE_SETTING} is set: starting although other users can read the master key`);
    return;
  }
  throw new InsecurePermissionsError(
    `refusing to start: ${problems.join('; ')}. Whoever can read the master key can read every wallet's seed. ` +
      `To start anyway (never with real money), set ${ALLOW_INSECURE_SETTING}=1.`,
  );
}

async function modeOf(path: string): Promise<number | null> {
  try {
    return (await stat(path)).mode & 0o777;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

const octal = (mode: number) => `0${mode.toString(8).padStart(3, '0')}`;
