/**
 * The embedded PostgreSQL's recovery from a previous run's `postmaster.pid`, when the pid in
 * it no longer is that run's postmaster. Pids are reused (after a reboot, or on a busy
 * machine running other clusters), so the file may name an unrelated live process, or even
 * another cluster's postgres: the start must neither fail nor signal that process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded.js';
import { createLogger } from '../../src/lib/logger.js';

const logger = createLogger('silent');
const dirs: string[] = [];
const servers: EmbeddedPostgres[] = [];
let bystander: ChildProcess | undefined;

async function newCluster(): Promise<{ dir: string; server: EmbeddedPostgres }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-pg-recovery-'));
  dirs.push(dir);
  const server = await startEmbeddedPostgres({ dir, port: 0, durable: false, logger });
  servers.push(server);
  return { dir, server };
}

async function query(server: EmbeddedPostgres, sql: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: server.url() });
  await client.connect();
  try {
    return (await client.query(sql)).rows[0];
  } finally {
    await client.end();
  }
}

const postmasterPid = async (dir: string) => Number((await readFile(path.join(dir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);

/** The victim's lock file as its running postmaster wrote it (postgres parses more than the pid). */
let liveLockFile: string;

/** Leaves `postmaster.pid` behind as a SIGKILLed run would, but naming `pid`. */
async function staleLockFile(dir: string, pid: number): Promise<void> {
  const lines = liveLockFile.split('\n');
  lines[0] = String(pid);
  await writeFile(path.join(dir, 'postgres', 'postmaster.pid'), lines.join('\n'));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let victim: { dir: string; server: EmbeddedPostgres };
let other: { dir: string; server: EmbeddedPostgres };

beforeAll(async () => {
  victim = await newCluster();
  other = await newCluster();
  liveLockFile = await readFile(path.join(victim.dir, 'postgres', 'postmaster.pid'), 'utf8');
  await victim.server.stop();
});

afterAll(async () => {
  bystander?.kill('SIGKILL');
  for (const s of servers) await s.stop().catch(() => undefined);
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe.sequential('a stale postmaster.pid whose pid was reused', () => {
  it('by an unrelated process: the start succeeds and leaves that process alone', async () => {
    bystander = spawn('sleep', ['300'], { stdio: 'ignore' });
    await staleLockFile(victim.dir, bystander.pid!);

    const server = await startEmbeddedPostgres({ dir: victim.dir, port: 0, durable: false, logger });
    servers.push(server);
    expect(await query(server, 'SELECT 1 AS ok')).toEqual({ ok: 1 });
    expect(isAlive(bystander.pid!)).toBe(true);
    expect(await postmasterPid(victim.dir)).not.toBe(bystander.pid);
    await server.stop();
  });

  it("by another cluster's postgres: the start succeeds and the other cluster keeps running", async () => {
    const otherPid = await postmasterPid(other.dir);
    await staleLockFile(victim.dir, otherPid);

    const server = await startEmbeddedPostgres({ dir: victim.dir, port: 0, durable: false, logger });
    servers.push(server);
    expect(await query(server, 'SELECT 1 AS ok')).toEqual({ ok: 1 });
    expect(isAlive(otherPid)).toBe(true);
    expect(await query(other.server, 'SELECT 2 AS ok')).toEqual({ ok: 2 });
    await server.stop();
  });
});
