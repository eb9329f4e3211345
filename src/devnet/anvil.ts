// Runs a local anvil node as a child process for the embedded default and the tests.
// The hard parts are lifecycle ones: a SIGKILLed parent leaves anvil holding its port and
// its unsaved state, so a pid file lets the next run find it, stop it cleanly (anvil dumps
// its state on SIGTERM) and take over.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';

export interface AnvilLogger {
  info(...a: unknown[]): void;
  warn(...a: unknown[]): void;
}

export interface StartAnvilOptions {
  chainId: number;
  /** 0 lets anvil pick a free port; the chosen one is in the handle. */
  port: number;
  /** Load from and dump to this file; survives restarts. */
  stateFile?: string;
  /** Seconds between blocks; undefined mines one block per transaction. */
  blockTime?: number;
  /** Records the child's pid so a later run can reclaim an orphan left by a killed parent. */
  pidFile?: string;
  logger?: AnvilLogger;
  /** How long to wait for the RPC to answer; default 15 s. */
  startTimeoutMs?: number;
}

export interface AnvilHandle {
  rpcUrl: string;
  port: number;
  chainId: number;
  pid: number;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
// Short enough that a SIGKILLed run loses only seconds of chain, long enough that dumping a
// large state does not keep a core busy.
const STATE_INTERVAL_SECONDS = 3;
// Dumping state happens inside the SIGTERM handler; give it time before resorting to SIGKILL.
const TERM_GRACE_MS = 10_000;

export const ANVIL_BIN = createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/bin/anvil');

const silent: AnvilLogger = { info() {}, warn() {} };
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// One process-wide exit hook instead of one per child: tests start many nodes, and a
// listener each would trip Node's MaxListeners warning.
const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;
function trackChild(child: ChildProcess): void {
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    // SIGTERM, not SIGKILL: anvil outlives us long enough to dump its state file, and it
    // tolerates the closed stdout pipe (verified with 1.7.1).
    for (const c of liveChildren) c.kill('SIGTERM');
  });
}

/** Alive and not a zombie: a zombie still answers kill(pid, 0) but holds no port. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Guards against pid reuse: only ever signal a process that really is an anvil. */
/**
 * Whether `pid` is an anvil of ours. With a state file, the process must be using that
 * very file: a recycled pid belonging to someone else's anvil is left alone.
 */
function isOurAnvil(pid: number, stateFile: string | undefined): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (path.basename(argv[0] ?? '') !== 'anvil') return false;
    if (!stateFile) return true;
    const at = argv.indexOf('--state');
    return at >= 0 && argv[at + 1] === stateFile;
  } catch {
    return false;
  }
}

/** Signals, then waits for the process to be gone; false if it outlived the timeout. */
async function signalAndWait(pid: number, sig: NodeJS.Signals, timeoutMs: number): Promise<boolean> {
  try {
    process.kill(pid, sig);
  } catch {
    // exited on its own in the meantime
  }
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(50)) {
    if (!isAlive(pid)) return true;
  }
  return !isAlive(pid);
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host: HOST, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/** Stops the anvil recorded in the pid file, if it still runs; true when one was stopped. */
async function reclaimStale(pidFile: string, stateFile: string | undefined, log: AnvilLogger): Promise<boolean> {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(pidFile, 'utf8').trim(), 10);
  } catch {
    return false; // no pid file: nothing was left behind
  }
  let stopped = false;
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid) && isOurAnvil(pid, stateFile)) {
    log.warn({ pid, pidFile }, 'anvil: stopping an orphaned anvil left by a previous run');
    if (!(await signalAndWait(pid, 'SIGTERM', TERM_GRACE_MS))) {
      log.warn({ pid }, 'anvil: orphan ignored SIGTERM, killing it');
      await signalAndWait(pid, 'SIGKILL', 2_000);
    }
    stopped = true;
  }
  rmSync(pidFile, { force: true });
  return stopped;
}

async function rpcChainId(url: string): Promise<number | undefined> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    const body = (await res.json()) as { result?: string };
    return body.result === undefined ? undefined : Number.parseInt(body.result, 16);
  } catch {
    return undefined; // not listening yet
  }
}

export async function startAnvil(opts: StartAnvilOptions): Promise<AnvilHandle> {
  const log = opts.logger ?? silent;
  const started = performance.now();
  const reclaimed = opts.pidFile ? await reclaimStale(opts.pidFile, opts.stateFile, log) : false;
  // The orphan just stopped may need a moment to release the socket; otherwise fail fast.
  if (opts.port !== 0 && !(await waitForFreePort(opts.port, reclaimed ? 2_000 : 0))) {
    throw new Error(
      `anvil: port ${opts.port} on ${HOST} is in use by another process` +
        (opts.pidFile ? ` (not the anvil recorded in ${opts.pidFile})` : '') +
        '; stop it or configure another port',
    );
  }

  const args = ['--host', HOST, '--port', String(opts.port), '--chain-id', String(opts.chainId)];
  if (opts.blockTime !== undefined) args.push('--block-time', String(opts.blockTime));
  if (opts.stateFile) {
    guardStateFile(opts.stateFile, log);
    args.push('--state', opts.stateFile, '--state-interval', String(STATE_INTERVAL_SECONDS));
  }
  // Detached: a Ctrl-C in the terminal reaches only our process, which stops anvil after
  // everything that uses the chain has stopped (the exit hook still kills it if we die).
  const child = spawn(ANVIL_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  trackChild(child);

  // anvil logs every RPC method to stdout; keep draining (a full pipe would stall it) but
  // remember only the tail, for error messages.
  let output = '';
  let listenPort: number | undefined = opts.port || undefined;
  const remember = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-8_000);
    listenPort ??= parseListenPort(output);
  };
  child.stdout.on('data', remember);
  child.stderr.on('data', remember);

  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exitPromise = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      resolve();
    });
    // A failed spawn (missing or non-executable binary) emits 'error' and never 'exit'.
    child.once('error', (err) => {
      output += `\n${err.message}`;
      if (child.pid === undefined) {
        exited = { code: null, signal: null };
        resolve();
      }
    });
  });
  const fail = async (why: string): Promise<never> => {
    if (!exited) {
      child.kill('SIGKILL');
      await exitPromise;
    }
    throw new Error(`anvil: ${why}\n--- anvil output (tail) ---\n${output.trim() || '(none)'}`);
  };
  if (child.pid === undefined) {
    await exitPromise;
    return fail(`could not spawn ${ANVIL_BIN}`);
  }
  const pid = child.pid;

  const deadline = Date.now() + (opts.startTimeoutMs ?? 15_000);
  let rpcUrl = '';
  for (;;) {
    if (exited) return fail(`exited during start (code ${exited.code}, signal ${exited.signal})`);
    if (Date.now() > deadline) return fail(`no answer to eth_chainId within ${opts.startTimeoutMs ?? 15_000} ms`);
    if (listenPort !== undefined) {
      rpcUrl = `http://${HOST}:${listenPort}`;
      const id = await rpcChainId(rpcUrl);
      if (id === opts.chainId) break;
      if (id !== undefined) return fail(`answers chain id ${id}, expected ${opts.chainId}`);
    }
    await sleep(20);
  }
  const port = listenPort as number;
  if (opts.pidFile) {
    mkdirSync(path.dirname(opts.pidFile), { recursive: true });
    writeFileSync(opts.pidFile, `${pid}\n`);
  }
  log.info(
    { rpcUrl, pid, chainId: opts.chainId, stateFile: opts.stateFile, ms: Math.round(performance.now() - started) },
    'anvil: started',
  );

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (!exited) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => {
          log.warn({ pid }, 'anvil: did not exit after SIGTERM, killing it');
          child.kill('SIGKILL');
        }, TERM_GRACE_MS);
        await exitPromise;
        clearTimeout(timer);
      }
      if (opts.pidFile) removePidFileIfOurs(opts.pidFile, pid);
      log.info({ pid, exit: exited }, 'anvil: stopped');
    })();
    return stopping;
  };
  return { rpcUrl, port, chainId: opts.chainId, pid, stop };
}

/**
 * anvil rewrites its state file in place (open with O_TRUNC, then write), so a kill during a
 * dump leaves a torn file that anvil then refuses to load. Keep the last file that loaded as a
 * backup and fall back to it, losing one session rather than the whole chain.
 */
function guardStateFile(file: string, log: AnvilLogger): void {
  mkdirSync(path.dirname(file), { recursive: true });
  if (!existsSync(file)) return;
  const backup = `${file}.bak`;
  if (isJsonFile(file)) {
    copyFileSync(file, backup);
    return;
  }
  if (!isJsonFile(backup)) {
    throw new Error(
      `anvil: state file ${file} is not valid JSON (probably torn by a kill during a dump) and there is no usable ${backup}; move it aside to start a fresh chain`,
    );
  }
  const aside = `${file}.torn-${Date.now()}`;
  renameSync(file, aside);
  copyFileSync(backup, file);
  log.warn({ file, aside, backup }, 'anvil: state file was torn; restored the state from the previous start');
}

const isJsonFile = (file: string): boolean => {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) !== undefined;
  } catch {
    return false;
  }
};

function parseListenPort(text: string): number | undefined {
  // The trailing newline matters: a pipe chunk may end in the middle of the port number.
  const m = /Listening on [^\s:]+:(\d+)\r?\n/.exec(text);
  return m?.[1] ? Number(m[1]) : undefined;
}

async function waitForFreePort(port: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await portIsFree(port)) return true;
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
}

// Another run may already have taken over the file; never delete its record.
function removePidFileIfOurs(pidFile: string, pid: number): void {
  try {
    if (readFileSync(pidFile, 'utf8').trim() === String(pid)) rmSync(pidFile, { force: true });
  } catch {
    // already gone
  }
}
