/**
 * README's quick start as a newcomer runs it: `npm start` in one terminal (the embedded
 * default, a fresh data directory), then, in a second one, the lines of the SDK and CLI
 * block in order: log in as the demo wallet, a receiver that verifies with the SDK,
 * `webhooks listen` forwarding to it, a real deposit from the faucet, balances, and a
 * withdrawal confirmed on standard input and followed to withdraw.success.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, killAll, ROOT, runToEnd, spawnProc, terminate, waitForBanner, waitUntil, type Proc } from '../support/cli.js';
import { shellBlock } from '../support/doc-commands.js';
import { ensureSdkBuilt, SDK_BUILD_TIMEOUT_MS } from '../support/sdk.js';

let tmp: string;
let service: Proc;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

beforeAll(ensureSdkBuilt, SDK_BUILD_TIMEOUT_MS);
beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'wallet-quickstart-'));
  // The embedded PostgreSQL runs as the postgres user when the tests run as root.
  chmodSync(tmp, 0o755);
}, 60_000);
afterAll(async () => {
  await killAll();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("README's quick start", () => {
  it(
    'npm start, then the SDK and CLI lines: a deposit seen by webhooks listen, a withdrawal made with withdraw',
    { timeout: 600_000 },
    async () => {
      const env = {
        ...cleanEnv(),
        DATA_DIR: path.join(tmp, 'data'),
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        DEVNET_PORT: String(await freePort()),
        HOME: tmp,
        WALLET_CONFIG: path.join(tmp, 'wallet.json'),
        npm_config_update_notifier: 'false',
      };
      service = spawnProc('npm', ['start'], { env });
      await waitForBanner(service, 300_000);

      const lines = shellBlock(ROOT, 'README.md', 'npx wallet login');
      expect(lines.some((l) => l.startsWith('npx wallet webhooks listen'))).toBe(true);
      expect(lines.some((l) => l.startsWith('npx wallet withdraw'))).toBe(true);
      const port = String(await freePort());
      // As a person does: each line in the second terminal, the next once the previous one is
      // done, or, for one sent to the background, once it says it is ready.
      const background: Proc[] = [];
      let out = '';
      let err = '';
      for (const raw of lines) {
        const line = raw.replaceAll('4000', port); // a free port for the receiver's 4000
        if (line.endsWith('&')) {
          const job = spawnProc('bash', ['-c', line.slice(0, -1)], { env });
          background.push(job);
          await waitUntil(
            `"${line}" to be ready`,
            () => /listening on|Ready/.test(job.stdout() + job.stderr()),
            60_000,
            () => job.describe(),
          );
          continue;
        }
        const done = await runToEnd(spawnProc('bash', ['-c', line], { env, stdin: 'y\n' }), 300_000);
        expect(done.code, `${line}\n${done.stdout}\n${done.stderr}`).toBe(0);
        out += done.stdout;
        err += done.stderr;
      }
      const jobs = () => background.map((j) => j.stdout() + j.stderr()).join('\n');
      // withdraw: the fee shown, the question asked, the outcome awaited.
      expect(err).toMatch(/Network fee: /);
      expect(err).toMatch(/Send it\? \[y\/N\]/);
      expect(out).toMatch(/^withdraw\.success$/m);
      expect(out).toMatch(/USDC\s+100\b/);
      // listen saw the deposit and the withdrawal and forwarded them to the receiver, which verified their signatures.
      await waitUntil(
        'the events at the receiver',
        () =>
          /deposit\.success\s+100 USDC.* -> 200/.test(jobs()) &&
          /receiver: verified deposit\.success 100 USDC/.test(jobs()) &&
          /receiver: verified withdraw\.success 5 USDC/.test(jobs()),
        120_000,
        jobs,
      );
      // The background jobs stop with Ctrl-C; so does the service.
      for (const job of background) await terminate(job, { signal: 'SIGINT', group: true, ms: 30_000 });
      expect(await terminate(service, { signal: 'SIGINT', group: true, ms: 120_000 })).toEqual({ code: 0, signal: null });
    },
  );
});
