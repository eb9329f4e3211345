/**
 * More than one API replica on a test's (or a benchmark's) database: another `api` process
 * (test/support/api-process.ts), and the revocation window as a client of a replica sees it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChainConfig } from '../../src/config/index.js';

const API_PROCESS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'api-process.ts');

export interface ApiReplica {
  baseUrl: string;
  stop(): Promise<void>;
}

/** Starts an `api` process on `databaseUrl`; resolves once it serves. */
export async function startApiReplica(opts: { databaseUrl: string; kek: Buffer; chains: ChainConfig[] }): Promise<ApiReplica> {
  const proc: ChildProcess = spawn(process.execPath, ['--import', 'tsx', API_PROCESS], {
    env: { ...process.env, DATABASE_URL: opts.databaseUrl, KEK: opts.kek.toString('hex'), CHAINS: JSON.stringify(opts.chains) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const seen = (d: Buffer) => {
      output = (output + d.toString()).slice(-10_000);
      const m = /listening (\S+)/.exec(output);
      if (m) resolve(m[1]!);
    };
    proc.stdout!.on('data', seen);
    proc.stderr!.on('data', seen);
    proc.once('exit', (code, signal) => reject(new Error(`api process exited (${code ?? signal}) before serving: ${output}`)));
  });
  return {
    baseUrl,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * How long a replica went on accepting a key after its revocation was answered (`revokedAt`,
 * performance.now()): `request` (one authenticated call to the replica, resolving to its HTTP
 * status) runs back to back until it is refused (401). The window is from `revokedAt` to the
 * moment the last accepted request was sent (0 when the first was refused already): a
 * request sent later than that was refused. Throws past `giveUpMs`.
 */
export async function revocationWindow(revokedAt: number, request: () => Promise<number>, giveUpMs = 10_000): Promise<number> {
  let lastAccepted: number | null = null;
  for (;;) {
    const sent = performance.now();
    const status = await request();
    if (status === 401) return lastAccepted === null ? 0 : Math.max(0, lastAccepted - revokedAt);
    if (status !== 200) throw new Error(`the replica answered ${status}`);
    lastAccepted = sent;
    if (sent - revokedAt > giveUpMs) throw new Error(`the replica still accepts the revoked key after ${giveUpMs} ms`);
  }
}
