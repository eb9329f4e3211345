/**
 * A master key file or data directory open to other users (issue 24, item 5): the real CLI
 * refuses to start (exit code 2) naming the path and the chmod that fixes it, before it
 * starts anything or writes a byte; ALLOW_INSECURE_KEY_FILE_PERMISSIONS=1 lets it start with
 * a warning; and the embedded default makes what it creates private (a fresh data directory
 * 0700 whatever the umask, the key file 0600), so a fresh clone's start is never refused.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../src/lib/data-dir-lock.js';
import { loadOrCreateKeyFile } from '../../src/keys/vault.js';
import { cleanEnv, runCli } from './support.js';

let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'wallet-key-modes-'));
  // Run as root, the embedded PostgreSQL runs as its own user, which must traverse to the data directories.
  await chmod(tmp, 0o711);
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const modeOf = async (p: string) => (await stat(p)).mode & 0o777;

/** A data directory of the embedded default holding a key file, with the given modes. */
async function dataDir(name: string, dirMode: number, keyMode: number | null): Promise<string> {
  const dir = path.join(tmp, name);
  await mkdir(dir);
  if (keyMode !== null) {
    await writeFile(path.join(dir, 'master.key'), `${randomBytes(32).toString('base64')}\n`);
    await chmod(path.join(dir, 'master.key'), keyMode);
  }
  await chmod(dir, dirMode);
  return dir;
}

/** The embedded default's settings: nothing configured but the data directory. */
const embedded = (dir: string, extra: Record<string, string> = {}) =>
  cleanEnv({ DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'warn', ALLOW_INSECURE_KEY_FILE_PERMISSIONS: '', ...extra });

describe('a start with a key file or data directory open to other users', () => {
  it('a world-readable master.key: exit 2 naming the file and chmod 600; nothing started or written', async () => {
    const dir = await dataDir('readable-key', 0o700, 0o644);
    const file = path.join(dir, 'master.key');
    const run = await runCli(['start'], embedded(dir));
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`the master key file ${file} is readable by other users (mode 0644)`);
    expect(run.stderr).toContain(`chmod 600 ${file}`);
    expect(run.stderr).toContain('ALLOW_INSECURE_KEY_FILE_PERMISSIONS=1');
    expect(run.stderr).not.toContain('fatal');
    expect(run.stdout).not.toContain('running');
    // Refused before the embedded PostgreSQL or the devnets: the directory holds the key alone.
    expect(await readdir(dir)).toEqual(['master.key']);
    expect(await modeOf(file)).toBe(0o644);
    // A group-readable key is refused the same way.
    await chmod(file, 0o640);
    expect((await runCli(['start'], embedded(dir))).code).toBe(2);
  }, 180_000);

  it('a data directory others can read: exit 2 naming it and chmod 700 (also for rotate-master-key)', async () => {
    const dir = await dataDir('readable-dir', 0o755, 0o600);
    for (const command of [['start'], ['rotate-master-key', '--status']]) {
      const run = await runCli(command, embedded(dir));
      expect(run.code, `${command.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toContain(`the data directory ${dir} is open to other users (mode 0755)`);
      expect(run.stderr).toContain(`chmod 700 ${dir}`);
      expect(run.stderr).not.toContain('master key file');
    }
    expect(await readdir(dir)).toEqual(['master.key']);
  }, 180_000);

  it('ALLOW_INSECURE_KEY_FILE_PERMISSIONS=1 starts anyway, with a warning naming what is open', async () => {
    const dir = await dataDir('allowed', 0o755, 0o644);
    const run = await runCli(['rotate-master-key', '--status'], embedded(dir, { ALLOW_INSECURE_KEY_FILE_PERMISSIONS: '1' }));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('ALLOW_INSECURE_KEY_FILE_PERMISSIONS is set');
    expect(run.stdout).toContain(`chmod 600 ${path.join(dir, 'master.key')}`);
    // The status printed: the key file was used.
    expect(run.stdout).toMatch(/"state": "active"/);
  }, 180_000);
});

describe('what the embedded default creates', () => {
  it('a missing data directory is made 0700 whatever the umask, and the key file 0600', async () => {
    const dir = path.join(tmp, 'fresh', 'nested');
    const previous = process.umask(0o022);
    try {
      const lock = await lockDataDir(dir);
      await lock.release();
      const { file } = await loadOrCreateKeyFile(dir);
      expect(await modeOf(dir)).toBe(0o700);
      expect(await modeOf(path.join(tmp, 'fresh'))).toBe(0o700);
      expect(await modeOf(file)).toBe(0o600);
    } finally {
      process.umask(previous);
    }
  });
});
