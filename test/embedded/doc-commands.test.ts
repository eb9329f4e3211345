/**
 * Every CLI command README.md and docs/*.md show works as written (test/support/doc-commands.ts
 * finds them): each runs through bash in this checkout, against an external PostgreSQL (a
 * fresh database from the test cluster), MASTER_KEY and a chains file for local devnets
 * (what the production settings above them set), with `wallet-service` on the PATH as a
 * package install puts it. One-off commands must exit 0; `start` and the roles must print
 * their banner and stop on Ctrl-C (SIGINT to the process group) with exit code 0. A doc edit
 * that breaks a command, or a placeholder this test has no value for, fails here.
 */
import { chmodSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBuilt, withBuildLock } from '../support/build.js';
import { BUILT_CLI, builtCli, killAll, ROOT, runToEnd, spawnProc, terminate, waitForBanner } from '../support/cli.js';
import { cliArgs, extractCommands, longRunning } from '../support/doc-commands.js';
import { startInstallation, type Installation } from '../support/installation.js';

const PASSWORD = 'a long test passphrase';
let inst: Installation;
let bin: string;
let businessId: string;
let keyId: string;

/** Values for the placeholders the docs use. */
const placeholders = (): Record<string, string> => ({
  '<email>': 'ops@example.com',
  '<business id>': businessId,
  '<business id or name>': businessId,
  '<key id>': keyId,
  '<role>': 'worker',
});

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);

beforeAll(async () => {
  inst = await startInstallation();
  // What `npm install -g` / `npm link` make of package.json's bin entry.
  bin = mkdtempSync(path.join(os.tmpdir(), 'wallet-bin-'));
  chmodSync(BUILT_CLI, 0o755);
  symlinkSync(BUILT_CLI, path.join(bin, 'wallet-service'));
  const created = await runToEnd(builtCli(['create-business', 'Doc Business'], inst.env({ LOG_LEVEL: 'warn' })));
  expect(created.code, created.stderr).toBe(0);
  businessId = /"id": "([0-9a-f-]{36})"/.exec(created.stdout)![1]!;
  // A key for `api-key revoke <key id>` to revoke.
  const key = await runToEnd(
    builtCli(['api-key', 'create', '--business', businessId, '--name', 'to revoke'], inst.env({ LOG_LEVEL: 'warn' })),
  );
  expect(key.code, key.stderr).toBe(0);
  keyId = /"id": "([0-9a-f-]{36})"/.exec(key.stdout)![1]!;
});
afterAll(async () => {
  await killAll();
  await inst?.stop();
  if (bin) rmSync(bin, { recursive: true, force: true });
});

const commands = extractCommands(ROOT);

describe('documented CLI commands', () => {
  it('finds the commands of the README and the docs', () => {
    expect(commands.map((c) => c.text)).toEqual(
      expect.arrayContaining(['npm run build', 'node dist/main.js migrate', 'node dist/main.js start api', 'npm start -- indexer']),
    );
  });

  for (const command of commands) {
    it(`${command.text}  (${command.where})`, { timeout: 180_000 }, async () => {
      let text = command.text;
      for (const [placeholder, value] of Object.entries(placeholders())) text = text.split(placeholder).join(value);
      expect(text, `no value for a placeholder in "${command.text}": add it to placeholders()`).not.toMatch(/<[^>]+>|…/);
      const { kind, args } = cliArgs(text);
      const env = inst.env({ LOG_LEVEL: 'warn', HOST: '127.0.0.1', PATH: `${bin}:${process.env.PATH}` });
      if (kind === 'build') {
        // The build rewrites dist/, which other test files run: never while they build.
        const built = await withBuildLock(() => runToEnd(spawnProc('bash', ['-c', text], { env }), 170_000));
        expect(built.code, built.stdout + built.stderr).toBe(0);
        return;
      }
      const proc = spawnProc('bash', ['-c', text], { env, stdin: `${PASSWORD}\n` });
      if (!longRunning(args)) {
        const done = await runToEnd(proc, 120_000);
        expect(done.code, `${done.stdout}\n${done.stderr}`).toBe(0);
        return;
      }
      await waitForBanner(proc, 120_000);
      // Ctrl-C in the terminal: SIGINT to the whole foreground process group.
      expect(await terminate(proc, { signal: 'SIGINT', group: true, ms: 60_000 }), proc.describe()).toEqual({ code: 0, signal: null });
    });
  }
});
