/**
 * Every `wallet …` command README.md and docs/*.md show in their code blocks works as
 * written (test/support/doc-commands.ts finds them), in document order, through bash and
 * `npx` as a reader runs them: against the real service with the embedded default's demo
 * data (a credentials.json in DATA_DIR), a fresh config file, and a webhook receiver where
 * the docs forward to :4000. One-off commands must exit 0; `webhooks listen` and `events
 * tail` (and lines run in the background) must come up and stop on Ctrl-C with exit 0.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';
import { chainOf } from '../support/chain.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { killAll, ROOT, runToEnd, spawnProc, terminate, waitUntil } from '../support/cli.js';
import { extractClientCommands } from '../support/doc-commands.js';
import { ensureSdkBuilt, SDK_BUILD_TIMEOUT_MS, writeCredentials } from '../support/sdk.js';

let h: Harness;
let w: TestWallet;
let home: string;
let receiver: Receiver;

/** Values for the placeholders the docs use, read when the command runs. */
async function placeholders(): Promise<Record<string, string>> {
  const txs = (await h.api('GET', `/v1/wallets/${w.id}/transactions?limit=1&type=WITHDRAW`, { key: w.apiKey })).body.data;
  return { '<transaction id>': txs[0]?.id ?? 'none-yet', '<wallet id>': w.id };
}

const env = (): NodeJS.ProcessEnv => ({
  PATH: `${path.join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`,
  HOME: home,
  DATA_DIR: path.join(home, 'data'),
  WALLET_CONFIG: path.join(home, 'config.json'),
  npm_config_update_notifier: 'false',
});

/** Commands that run until stopped. */
const longRunning = (text: string) => / (webhooks listen|events tail)(\s|$)/.test(text) && !/ (--help|-h)(\s|$)/.test(text);

beforeAll(ensureSdkBuilt, SDK_BUILD_TIMEOUT_MS);
beforeAll(async () => {
  h = await startHarness({ worker: true, services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } } });
  w = h.wallets['devnet-eth']!;
  home = mkdtempSync(path.join(os.tmpdir(), 'wallet-doc-'));
  receiver = await startReceiver();
  // What `npm start` writes for its demo data: this service's URL, keys, devnets and faucets.
  mkdirSync(path.join(home, 'data'));
  writeCredentials(path.join(home, 'data', 'credentials.json'), {
    baseUrl: h.baseUrl,
    business: { id: h.businessId, apiKey: h.businessKey },
    wallets: Object.values(h.wallets),
    devnet: h.devnet,
  });
  // The demo wallet has a webhook URL (resend needs one) and USDC to withdraw.
  expect((await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { webhookUrl: receiver.url } })).status).toBe(200);
  await chainOf(h, 'devnet-eth').sendToken('USDC', w.address, '20');
});
afterAll(async () => {
  await killAll();
  await receiver?.close();
  await h?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

const commands = extractClientCommands(ROOT);

describe('documented wallet commands', () => {
  it("finds the README's quick start and the CLI reference", () => {
    const texts = commands.map((c) => c.text);
    expect(texts).toEqual(expect.arrayContaining(['npx wallet login --credentials', 'npx wallet balances', 'npx wallet events tail']));
    expect(commands.filter((c) => c.where.startsWith('README.md')).map((c) => c.text)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^npx wallet webhooks listen /), expect.stringMatching(/^npx wallet withdraw /)]),
    );
  });

  for (const command of commands) {
    it(`${command.text}  (${command.where})`, { timeout: 180_000 }, async () => {
      let text = command.text.replaceAll('127.0.0.1:4000', new URL(receiver.url).host);
      for (const [placeholder, value] of Object.entries(await placeholders())) text = text.split(placeholder).join(value);
      expect(text, `no value for a placeholder in "${command.text}"`).not.toMatch(/<[^>]+>|…/);
      // Standard input answers the one question the docs leave to the reader (withdraw's).
      const proc = spawnProc('bash', ['-c', text], { env: env(), stdin: 'y\n' });
      if (!command.background && !longRunning(text)) {
        const done = await runToEnd(proc, 150_000);
        expect(done.code, `${done.stdout}\n${done.stderr}`).toBe(0);
        return;
      }
      await waitUntil(
        'it to be ready',
        () => /Ready|Listening/.test(proc.stderr()),
        60_000,
        () => proc.describe(),
      );
      // Ctrl-C in the terminal: SIGINT to the whole foreground process group. `wallet` stops
      // with exit code 0; npx, which gets the signal too, ends by it (as npm exec does).
      const exit = await terminate(proc, { signal: 'SIGINT', group: true, ms: 30_000 });
      expect(exit.code === 0 || (text.startsWith('npx ') && exit.signal === 'SIGINT'), `${JSON.stringify(exit)}\n${proc.describe()}`).toBe(
        true,
      );
      expect(proc.stderr()).not.toMatch(/^error:/m);
    });
  }
});
