/**
 * The service's command line as child processes, the way an operator or a person runs it:
 * the built CLI (`node dist/main.js …`), `npm start` / `npm run …`, or a shell command line.
 * Each process leads a process group of its own, so a test can press Ctrl-C (SIGINT to the
 * whole group, as a terminal does) and clean up everything below it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { BUILT_CLI, ROOT } from './build.js';

export { BUILT_CLI, ROOT };

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface LogLine {
  level: number;
  msg: string;
  time?: number;
  [k: string]: unknown;
}

export interface Proc {
  child: ChildProcess;
  /** Also the id of its process group. */
  pid: number;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<Exit>;
  /** Set once it exited. */
  exit: () => Exit | undefined;
  /** The JSON (pino) log lines printed on stdout so far, with the time each arrived. */
  logs: () => (LogLine & { seenAt: number })[];
  describe: () => string;
}

const procs: Proc[] = [];

export function spawnProc(command: string, args: string[], opts: { env: NodeJS.ProcessEnv; stdin?: string }): Proc {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: opts.env,
    detached: true,
    stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
  let out = '';
  let err = '';
  const lines: (LogLine & { seenAt: number })[] = [];
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    partial += d;
    const complete = partial.split('\n');
    partial = complete.pop()!;
    for (const line of complete) {
      if (!line.startsWith('{')) continue;
      try {
        lines.push({ ...(JSON.parse(line) as LogLine), seenAt: Date.now() });
      } catch {
        /* not a log line */
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  let exit: Exit | undefined;
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    }),
  );
  const proc: Proc = {
    child,
    pid: child.pid!,
    stdout: () => out,
    stderr: () => err,
    exited,
    exit: () => exit,
    logs: () => lines,
    describe: () => `${[command, ...args].join(' ')}\nstdout:\n${out.slice(-6000)}\nstderr:\n${err.slice(-4000)}`,
  };
  procs.push(proc);
  return proc;
}

/** The built CLI, as production runs it: plain node, no wrapper. */
export const builtCli = (args: string[], env: NodeJS.ProcessEnv, stdin?: string): Proc =>
  spawnProc(process.execPath, [BUILT_CLI, ...args], { env, ...(stdin === undefined ? {} : { stdin }) });

export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms: number,
  context: () => string = () => '',
): Promise<void> {
  for (const deadline = Date.now() + ms; !(await check()); await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}\n${context()}`);
  }
}

/** A command that runs to completion. */
export async function runToEnd(proc: Proc, ms = 60_000): Promise<Exit & { stdout: string; stderr: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still running after ${ms} ms\n${proc.describe()}`)), ms);
  });
  try {
    const exit = await Promise.race([proc.exited, timeout]);
    return { ...exit, stdout: proc.stdout(), stderr: proc.stderr() };
  } finally {
    clearTimeout(timer);
  }
}

/** Waits for the "running" banner; returns it. */
export async function waitForBanner(proc: Proc, ms = 60_000): Promise<string> {
  await waitUntil(
    'the "running" banner',
    () => {
      if (proc.exit()) throw new Error(`exited during start (${JSON.stringify(proc.exit())})\n${proc.describe()}`);
      return proc.stdout().includes('Stop with Ctrl-C.');
    },
    ms,
    proc.describe,
  );
  const out = proc.stdout();
  const banner = out.slice(out.indexOf('Stablecoin wallet service running'));
  return banner.slice(0, banner.indexOf('Stop with Ctrl-C.'));
}

/** A URL printed in the banner on the line `label:`. */
export const bannerUrl = (banner: string, label: string): string | undefined =>
  new RegExp(`^\\s*${label}:\\s+([^\\s,]+)`, 'm').exec(banner)?.[1];

/**
 * Signals the process (or with `group`, its whole process group, as a terminal's Ctrl-C
 * does) and resolves with its exit once every process that was below it is gone too.
 */
export async function terminate(proc: Proc, opts: { signal?: NodeJS.Signals; group?: boolean; ms?: number } = {}): Promise<Exit> {
  const tree = descendants(proc.pid);
  process.kill(opts.group ? -proc.pid : proc.pid, opts.signal ?? 'SIGTERM');
  const exit = await runToEnd(proc, opts.ms ?? 30_000);
  await waitUntil(
    'the processes below it to exit',
    () => !tree.some(isAlive),
    10_000,
    () =>
      tree
        .filter(isAlive)
        .map((pid) => `${pid}: ${cmdline(pid)}`)
        .join('\n'),
  );
  return { code: exit.code, signal: exit.signal };
}

/** Resolves with the exit of a process already told to stop, once everything below it is gone too. */
export async function exitOf(proc: Proc, ms = 30_000): Promise<Exit> {
  const tree = descendants(proc.pid);
  const exit = await runToEnd(proc, ms);
  await waitUntil('the processes below it to exit', () => !tree.some(isAlive), 10_000);
  return { code: exit.code, signal: exit.signal };
}

/** Every process started here that still runs, with its group, is killed (afterAll). */
export async function killAll(): Promise<void> {
  for (const p of procs) {
    if (p.exit()) continue;
    try {
      process.kill(-p.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  await Promise.all(procs.map((p) => Promise.race([p.exited, new Promise((r) => setTimeout(r, 5_000))])));
}

/** Levels 50 (error) and 60 (fatal) among a process's log lines. */
export const errorLogs = (p: Proc): string[] =>
  p
    .logs()
    .filter((l) => l.level >= 50)
    .map((l) => l.msg);

// ---------------------------------------------------------------------------------------
// Linux /proc

export function procStat(pid: number): { state: string; ppid: number; pgid: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, ppid: Number(fields[1]), pgid: Number(fields[2]) };
  } catch {
    return null;
  }
}

/** Running (a zombie waiting to be reaped holds no port and no files: it counts as gone). */
export function isAlive(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== null && stat.state !== 'Z';
}

export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

export function allPids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/** Every live process below `root` (children, grandchildren...). */
export function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const pid of allPids()) {
    const stat = procStat(pid);
    if (stat && stat.state !== 'Z') parent.set(pid, stat.ppid);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const [child, ppid] of parent) {
      if (ppid === pid) {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(root);
  return out;
}

/** The outer environment minus every setting of the service (tests configure it explicitly). */
export function cleanEnv(): NodeJS.ProcessEnv {
  const ours =
    /^(DATABASE_URL|MASTER_KEY|CHAINS_FILE|PUBLIC_URL|HOST|PORT|HEALTH_PORT|DATA_DIR|LOG_LEVEL|ADDRESS_LIMIT|SHUTDOWN_TIMEOUT_MS|INDEXER_.*|ALLOW_KEY_EXPORT_.*|DEVNET|DEVNET_.*|RPC_.*|DASHBOARD_PASSWORD|WALLET_API_KEY|npm_.*)$/;
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!ours.test(k)) env[k] = v;
  return env;
}
