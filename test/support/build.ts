/**
 * `npm run build`, once, for the tests that run the built CLI as production does
 * (`node dist/main.js`). Skipped when dist/ is newer than every source; serialised across
 * the test run's parallel files by an exclusive lock (the service's own data-directory lock).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataDirInUseError, lockDataDir } from '../../src/lib/data-dir-lock.js';

/**
 * For the hook that builds: a full tsc build of src/ takes minutes on a loaded 2-core machine
 * (a fresh clone's first test file that needs dist/ pays it, the others wait for it).
 */
export const BUILD_TIMEOUT_MS = 600_000;

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BUILT_CLI = path.join(ROOT, 'dist', 'main.js');
const STAMP = path.join(ROOT, 'dist', '.build-stamp');
const INPUTS = ['src', 'contracts', 'scripts', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];

/** The newest modification time among `inputs` (files or folders below `base`), tests aside. */
export function newestInput(base: string, inputs: string[]): number {
  let newest = 0;
  const visit = (p: string) => {
    const st = statSync(p);
    if (st.isDirectory()) for (const name of readdirSync(p)) visit(path.join(p, name));
    else if (!p.endsWith('.test.ts')) newest = Math.max(newest, st.mtimeMs);
  };
  for (const input of inputs) if (existsSync(path.join(base, input))) visit(path.join(base, input));
  return newest;
}

const fresh = () => existsSync(STAMP) && existsSync(BUILT_CLI) && statSync(STAMP).mtimeMs >= newestInput(ROOT, INPUTS);

/** Runs `task` holding the build lock (no two builds, and no test reading dist/ mid-build); `name`: another lock. */
export async function withBuildLock<T>(task: () => Promise<T>, name = 'build-lock'): Promise<T> {
  let lock: Awaited<ReturnType<typeof lockDataDir>> | undefined;
  while (!lock) {
    try {
      lock = await lockDataDir(path.join(ROOT, '.cache', name));
    } catch (err) {
      if (!(err instanceof DataDirInUseError)) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await task();
  } finally {
    await lock.release();
  }
}

export async function ensureBuilt(): Promise<void> {
  if (fresh()) return;
  await withBuildLock(async () => {
    if (fresh()) return; // built by the holder we waited for
    const started = Date.now();
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`npm run build failed (${code}):\n${out}`))));
    });
    writeFileSync(STAMP, output);
    // Dated from the build's start: a source saved during the build is newer than the stamp.
    utimesSync(STAMP, started / 1000, started / 1000);
  });
}
