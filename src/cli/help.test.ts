/**
 * `wallet-service <command> --help` (and `help <command>`) prints that command's usage and
 * exits 0, without running it: every command of the table, and the role shorthands.
 *
 * The sweep over every command calls the dispatcher in this process with the real table (a
 * command that ran instead of printing help would find no database and fail, or call
 * process.exit); two real processes then prove the exit status a shell sees. Each process
 * starts tsx, which takes seconds on a busy machine: one process per command would make the
 * test's duration depend on the machine's load.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ALL_ROLES } from '../roles/names.js';
import { runCli } from './command.js';
import { COMMANDS } from './commands.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** What `wallet-service <args>` prints and how it ends, dispatched in this process. */
async function dispatch(args: string[]): Promise<{ exit: number | undefined; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  class Exit {
    constructor(readonly code: number | undefined) {}
  }
  const exit = vi.spyOn(process, 'exit').mockImplementation((code) => {
    throw new Exit(code === undefined || code === null ? undefined : Number(code));
  });
  try {
    await runCli(COMMANDS, args, ALL_ROLES);
    return { exit: process.exitCode === undefined ? 0 : Number(process.exitCode), stdout, stderr };
  } catch (e) {
    if (e instanceof Exit) return { exit: e.code, stdout, stderr };
    throw e;
  } finally {
    out.mockRestore();
    err.mockRestore();
    exit.mockRestore();
  }
}

/** The CLI from source in a process of its own; no database or devnet is configured. */
const cli = (args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', 'src/main.ts', ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH, DATA_DIR: '/nonexistent/wallet-help-test' } },
      (_err, stdout, stderr) => resolve({ status: child.exitCode, stdout, stderr }),
    );
  });

let exitCodeBefore: typeof process.exitCode;
beforeEach(() => {
  exitCodeBefore = process.exitCode;
  process.exitCode = undefined;
});
afterEach(() => {
  process.exitCode = exitCodeBefore;
});

describe('wallet-service --help', () => {
  it('lists every command of the table', async () => {
    const r = await dispatch(['help']);
    const listed = (r.stdout.match(/^ {2}(\S+)/gm) ?? []).map((l) => l.trim());
    expect(listed).toEqual(Object.keys(COMMANDS));
    expect(listed).toEqual(expect.arrayContaining(['start', 'migrate', 'create-business', 'api-key']));
  });

  it("README's list of commands names only commands of the table", () => {
    // The bullet under "Production" an operator reads to learn what `help` lists.
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const list = /`node dist\/main\.js help` lists the commands \(([^)]*)\)/.exec(readme.replace(/\s+/g, ' '));
    expect(list, 'README names the commands `help` lists').not.toBeNull();
    const named = [...list![1]!.matchAll(/`([a-z-]+)[^`]*`/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(3);
    expect(named.filter((n) => !Object.hasOwn(COMMANDS, n))).toEqual([]);
  });

  it('`<command> --help` prints its usage and exits 0, for every command and role', async () => {
    for (const command of [...Object.keys(COMMANDS), ...ALL_ROLES]) {
      const r = await dispatch([command, '--help']);
      expect(r.exit, `${command}: ${r.stderr}`).toBe(0);
      expect(r.stdout, command).toMatch(/^usage: wallet-service \S+/);
    }
  });

  it('`-h`, `api-key create --help` and `help migrate` too; an unknown command is still a usage error', async () => {
    expect((await dispatch(['start', '-h'])).stdout).toMatch(/^usage: wallet-service start /);
    expect((await dispatch(['api-key', 'create', '--help'])).stdout).toMatch(/^usage: wallet-service api-key /);
    const r = await dispatch(['help', 'migrate']);
    expect(r.exit).toBe(0);
    expect(r.stdout).toMatch(/^usage: wallet-service migrate/);
    const unknown = await dispatch(['nonsense', '--help']);
    expect(unknown.exit).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "nonsense"/);
  });

  it('as a process: `start --help` exits 0 without starting, an unknown command exits 2', { timeout: 300_000 }, async () => {
    const [help, unknown] = await Promise.all([cli(['start', '--help']), cli(['nonsense', '--help'])]);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^usage: wallet-service start /);
    expect(unknown.status).toBe(2);
  });
});
