/**
 * `wallet-service <command> --help` (and `help <command>`) prints that command's usage and
 * exits 0, without running it: every command `help` lists, and the role shorthands.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The CLI from source; no database or devnet is configured, so a command that ran instead of printing help would fail. */
const cli = (args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', 'src/main.ts', ...args],
      { cwd: ROOT, timeout: 60_000, env: { PATH: process.env.PATH, DATA_DIR: '/nonexistent/wallet-help-test' } },
      (_err, stdout, stderr) => resolve({ status: child.exitCode, stdout, stderr }),
    );
  });

let listed: string[] = [];
beforeAll(async () => {
  listed = ((await cli(['help'])).stdout.match(/^ {2}(\S+)/gm) ?? []).map((l) => l.trim());
});

describe('wallet-service --help', () => {
  it('lists the commands', () => {
    expect(listed).toEqual(expect.arrayContaining(['start', 'migrate', 'create-business', 'api-key']));
  });

  it('`<command> --help` prints its usage and exits 0, for every command and role', async () => {
    for (const command of [...listed, 'api', 'worker', 'indexer']) {
      const r = await cli([command, '--help']);
      expect(r.status, `${command}: ${r.stderr}`).toBe(0);
      expect(r.stdout, command).toMatch(/^usage: wallet-service \S+/);
    }
  });

  it('`-h`, `api-key create --help` and `help migrate` too; an unknown command is still a usage error', async () => {
    expect((await cli(['start', '-h'])).stdout).toMatch(/^usage: wallet-service start /);
    expect((await cli(['api-key', 'create', '--help'])).stdout).toMatch(/^usage: wallet-service api-key /);
    const r = await cli(['help', 'migrate']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: wallet-service migrate/);
    expect((await cli(['nonsense', '--help'])).status).toBe(2);
  });
});
