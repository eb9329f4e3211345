/**
 * The SDK package as its users get it: built JavaScript (`npm install` builds it; a test
 * rebuilds it first when a source is newer than its build) and the `wallet` command run as
 * a child process, with its own config file, as a person or a script runs it.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { newestInput, ROOT, withBuildLock } from './build.js';
import type { Devnet } from '../../src/devnet/devnet.js';
import { runToEnd, spawnProc, type Proc } from './cli.js';

export const SDK_DIR = path.join(ROOT, 'packages/sdk');
export const WALLET_BIN = path.join(SDK_DIR, 'bin/wallet.js');
const STAMP = path.join(SDK_DIR, 'dist/.build-stamp');
const INPUTS = ['src', 'scripts', 'bin', 'tsconfig.json', 'tsconfig.cjs.json', 'package.json'];

const fresh = () => existsSync(STAMP) && statSync(STAMP).mtimeMs >= newestInput(SDK_DIR, INPUTS);

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

/**
 * Writes a credentials.json like the one `npm start` writes for its demo data (`wallet login
 * --credentials` and `wallet faucet` read it), for a service and devnets started by a test.
 */
export function writeCredentials(
  file: string,
  c: {
    baseUrl: string;
    business?: { id: string; apiKey: string };
    wallets?: { id: string; slug: string; address: string; apiKey: string }[];
    devnet: Devnet;
  },
): void {
  writeFileSync(
    file,
    JSON.stringify({
      baseUrl: c.baseUrl,
      business: { id: c.business?.id ?? '', name: 'Test Business', apiKey: c.business?.apiKey ?? '' },
      wallets: (c.wallets ?? []).map((w) => ({
        id: w.id,
        name: w.slug,
        network: 'testnet',
        blockchain: w.slug,
        address: w.address,
        apiKey: w.apiKey,
      })),
      chains: c.devnet.chains.map((ch) => ({
        slug: ch.config.blockchain.slug,
        chainId: ch.config.chainId,
        rpcUrl: ch.config.rpcUrl,
        assets: ch.config.assets
          .filter((a) => !a.isNative)
          .map((a) => ({ id: '', symbol: a.symbol, address: a.address, decimals: a.decimals })),
        faucet: ch.faucet,
      })),
    }),
  );
}
