/**
 * Helpers of the key-custody tests: the real CLI as a child process (its own process group,
 * so a test can kill -9 it whole), key settings, and a look at every sealed value.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Db } from '../../src/db/pool.js';
import type { KeySettings } from '../../src/config/keys.js';
import { SEALED_COLUMNS, columnName } from '../../src/keys/sealed-columns.js';
import { sealedKeyId, type KeyRing } from '../../src/keys/vault.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TSX_CLI = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');

export interface Cli {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** kill -9 of the whole process group (tsx and the node process running main.ts). */
  kill9(): void;
}

/** The outer environment minus every setting of the service. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const ours =
    /^(DATABASE_URL|MASTER_KEY.*|KEY_VAULT|PKCS11_.*|ROTATE_.*|CHAINS_FILE|PUBLIC_URL|HOST|PORT|DATA_DIR|LOG_LEVEL|DEVNET.*|RPC_.*)$/;
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!ours.test(k)) env[k] = v;
  return { ...env, ...extra };
}

export function spawnCli(args: string[], env: NodeJS.ProcessEnv): Cli {
  const child = spawn(process.execPath, [TSX_CLI, 'src/main.ts', ...args], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    kill9() {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    },
  };
}

export async function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 90_000) {
  const cli = spawnCli(args, env);
  const timer = setTimeout(() => cli.kill9(), timeoutMs);
  try {
    const exit = await cli.exited;
    return { ...exit, stdout: cli.stdout(), stderr: cli.stderr() };
  } finally {
    clearTimeout(timer);
  }
}

export function localKeys(masterKey: Buffer | null, previous: Buffer[] = []): KeySettings {
  return { vault: 'local', masterKey, previous, pkcs11: null, rotateBatchSize: 100, rotatePauseMs: 0 };
}

export interface SealedCell {
  column: string;
  id: string;
  aad: string;
  sealed: Buffer;
  keyId: string | 'legacy' | null;
}

/** Every non-null value of every registered sealed column. */
export async function sealedCells(db: Db): Promise<SealedCell[]> {
  const out: SealedCell[] = [];
  for (const c of SEALED_COLUMNS) {
    const { rows } = await sql<{ id: string; sealed: Buffer }>`
      SELECT ${sql.ref(c.idColumn)}::text AS id, ${sql.ref(c.column)} AS sealed FROM ${sql.table(c.table)} WHERE ${sql.ref(c.column)} IS NOT NULL`.execute(
      db,
    );
    for (const r of rows)
      out.push({ column: columnName(c), id: r.id, aad: c.associatedData(r.id), sealed: r.sealed, keyId: sealedKeyId(r.sealed) });
  }
  return out;
}

/** Opens every sealed value with the ring; returns the cells that do not open. */
export async function unreadable(db: Db, ring: KeyRing): Promise<SealedCell[]> {
  const bad: SealedCell[] = [];
  for (const cell of await sealedCells(db)) {
    try {
      (await ring.open(cell.sealed, cell.aad)).fill(0);
    } catch {
      bad.push(cell);
    }
  }
  return bad;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
