/**
 * The SDK package as its users get it: built JavaScript (`npm install` builds it; a test
 * rebuilds it first when a source is newer than its build) and the `wallet` command run as
 * a child process, with its own config file, as a person or a script runs it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { ROOT, withBuildLock } from './build.js';
import { runToEnd, spawnProc, type Proc } from './cli.js';

export const SDK_DIR = path.join(ROOT, 'packages/sdk');
export const WALLET_BIN = path.join(SDK_DIR, 'bin/wallet.js');
const STAMP = path.join(SDK_DIR, 'dist/.build-stamp');
const INPUTS = ['src', 'scripts', 'bin', 'tsconfig.json', 'tsconfig.cjs.json', 'package.json'];

function newestInput(): number {
  let newest = 0;
  const visit = (p: string) => {
    const st = statSync(p);
    if (st.isDirectory()) for (const name of readdirSync(p)) visit(path.join(p, name));
    else newest = Math.max(newest, st.mtimeMs);
  };
  for (const input of INPUTS) if (existsSync(path.join(SDK_DIR, input))) visit(path.join(SDK_DIR, input));
  return newest;
}

const fresh = () => existsSync(STAMP) && statSync(STAMP).mtimeMs >= newestInput();

export const SDK_BUILD_TIMEOUT_MS = 300_000;

/** Builds packages/sdk when its build is missing or older than a source (one build at a time). */
export async function ensureSdkBuilt(): Promise<void> {
  if (fresh()) return;
  await withBuildLock(async () => {
    if (fresh()) return;
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, ['scripts/build.mjs'], { cwd: SDK_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the SDK build failed (${code}):\n${out}`))));
    });
  }, 'sdk-build-lock');
}

/** `wallet …` as a child process; `env` replaces the environment (add PATH yourself if needed). */
export const wallet = (args: string[], env: NodeJS.ProcessEnv, stdin?: string): Proc =>
  spawnProc(process.execPath, [WALLET_BIN, ...args], { env, ...(stdin === undefined ? {} : { stdin }) });

/** Runs `wallet …` to its end. */
export const walletRun = (args: string[], env: NodeJS.ProcessEnv, stdin?: string) => runToEnd(wallet(args, env, stdin), 120_000);
