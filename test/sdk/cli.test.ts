/**
 * `wallet`, the SDK package's command (its built bin), against the real service: help and
 * usage errors, profiles (0600 config, --profile, the environment), --json and tables,
 * exit codes, the commands of a wallet's day, and shell completion.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDevnetSanctioned } from '../../src/devnet/sanctions.js';
import { buildProgram } from '../../packages/sdk/src/cli/program.js';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';
import { chainOf } from '../support/chain.js';
import { killAll } from '../support/cli.js';
import { ensureSdkBuilt, SDK_BUILD_TIMEOUT_MS, walletRun, writeCredentials } from '../support/sdk.js';
import { randomAddress } from '../withdrawals/world.js';
import { eventually } from '../support/fixtures.js';

let h: Harness;
let w: TestWallet;
let home: string;
let credentials: string;

const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: home,
  WALLET_CONFIG: path.join(home, 'config', 'wallet.json'),
  ...extra,
});
const run = (args: string[], extra: Record<string, string> = {}, stdin?: string) => walletRun(args, env(extra), stdin);
const json = async (args: string[], extra: Record<string, string> = {}) => {
  const r = await run([...args, '--json'], extra);
  expect(r.code, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
};

/** Every command path of the tree, e.g. ['webhooks', 'listen']. */
type Command = ReturnType<typeof buildProgram>;
function commandPaths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands.flatMap((c) => [[...prefix, c.name()], ...commandPaths(c, [...prefix, c.name()])]);
}

beforeAll(ensureSdkBuilt, SDK_BUILD_TIMEOUT_MS);
beforeAll(async () => {
  h = await startHarness({ worker: true, services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } } });
  w = h.wallets['devnet-eth']!;
  home = mkdtempSync(path.join(os.tmpdir(), 'wallet-cli-'));
  credentials = path.join(home, 'credentials.json');
  // What `npm start` writes, for this service.
  writeCredentials(credentials, {
    baseUrl: h.baseUrl,
    business: { id: h.businessId, apiKey: h.businessKey },
    wallets: Object.values(h.wallets),
    devnet: h.devnet,
  });
});
afterAll(async () => {
  await killAll();
  await h?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('help and usage', () => {
  const paths = [[], ...commandPaths(buildProgram())];

  it.each(paths.map((p) => [p.join(' ') || '(none)', p]))('`wallet %s --help` prints its usage and exits 0', async (_name, p) => {
    const r = await run([...(p as string[]), '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Usage: wallet ${(p as string[]).join(' ')}`.trim());
  });

  it.each([
    [['nonsense']],
    [['wallets', 'nonsense']],
    [['wallets']],
    [['tx', 'show']],
    [['tx', 'list', '--status', 'DONE']],
    [['addresses', 'list', '--limit', '0']],
    [['addresses', 'create', '--metadata', '[1]']],
    [['withdraw', '--to', '0x1']],
    [['webhooks', 'listen', '--forward-to', 'ftp://x']],
    [['completion', 'fish']],
    [['balances', '--bogus']],
  ])('`wallet %j` is a usage error: exit 2', async (args) => {
    const r = await run(args);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).not.toBe('');
  });

  it('says how to log in when no profile exists: exit 3', async () => {
    const r = await run(['balances']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/wallet login/);
  });
});

describe('profiles', () => {
  it("logs in from the embedded default's credentials into a file only its owner can read", async () => {
    const r = await json(['login', '--credentials', credentials, '--chain', 'devnet-eth']);
    expect(r).toMatchObject({ profile: 'default', baseUrl: h.baseUrl, walletId: w.id });
    expect(JSON.stringify(r)).not.toContain(w.apiKey);
    const file = env().WALLET_CONFIG!;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default).toEqual({ baseUrl: h.baseUrl, apiKey: w.apiKey, walletId: w.id });
  });

  it('keeps other profiles apart (--profile), reads a key from stdin, and lets the environment override', async () => {
    const biz = await run(['login', '--profile', 'biz', '--base-url', h.baseUrl], {}, `${h.businessKey}\n`);
    expect(biz.code, biz.stderr).toBe(0);
    const profiles = await json(['profiles']);
    expect(profiles.map((p: { name: string }) => p.name).sort()).toEqual(['biz', 'default']);
    expect(JSON.stringify(profiles)).not.toContain(h.businessKey);
    const listed = await json(['wallets', 'list', '--profile', 'biz']);
    expect(listed.map((x: { id: string }) => x.id)).toEqual(expect.arrayContaining(Object.values(h.wallets).map((x) => x.id)));
    expect((await json(['wallets', 'list'])).map((x: { id: string }) => x.id)).toEqual([w.id]);
    expect((await json(['wallets', 'list'], { WALLET_PROFILE: 'biz' })).length).toBeGreaterThan(1);
    // A bad key in the environment wins over the profile's good one.
    const refused = await run(['wallets', 'show'], { WALLET_API_KEY: 'sk_test_not_a_key' });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/UNAUTHORIZED/);
    // A profile named with --profile brings its own key: one left in the environment (for
    // another service) is not sent to that profile's URL.
    expect((await json(['wallets', 'list', '--profile', 'biz'], { WALLET_API_KEY: 'sk_test_not_a_key' })).length).toBeGreaterThan(1);
    // A key the service refuses is never stored.
    const bad = await run(['login', '--profile', 'bad', '--base-url', h.baseUrl, '--api-key', 'sk_test_wrong']);
    expect(bad.code).toBe(3);
    expect(Object.keys(JSON.parse(readFileSync(env().WALLET_CONFIG!, 'utf8')).profiles)).not.toContain('bad');
  });
});

describe('commands', () => {
  it('addresses create and list, balances, tables and --json', async () => {
    const created = await json(['addresses', 'create', '--name', 'cli-customer', '--metadata', '{"customerId":"7"}']);
    expect(created).toMatchObject({ name: 'cli-customer', metadata: { customerId: '7' } });
    const table = await run(['addresses', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+ADDRESS\s+NAME/);
    expect(table.stdout).toContain(created.address);
    expect((await json(['addresses', 'list', '--limit', '1'])).length).toBe(1);
    await chainOf(h, 'devnet-eth').sendToken('USDC', w.address, '40');
    const balances = await json(['balances']);
    expect(balances.find((b: any) => b.asset.asset.symbol === 'USDC').balance).toBe('40');
    expect((await run(['balances'])).stdout).toMatch(/USDC\s+40/);
  });

  it("aml lookup: a clean address on the wallet's chain, a sanctioned one FLAGGED, a bad one refused (exit 1)", async () => {
    const clean = randomAddress();
    expect(await json(['aml', 'lookup', clean])).toMatchObject({ address: clean, blockchain: 'devnet-eth', isBlacklisted: false });
    const sanctioned = randomAddress();
    const c = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    await setDevnetSanctioned(c.config.rpcUrl, c.config.chainId, [sanctioned]);
    const table = await run(['aml', 'lookup', sanctioned, '--blockchain', 'devnet-eth', '--network', 'testnet']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/STATUS\s+FLAGGED/i);
    expect(table.stdout).toContain('sanctions-oracle');
    const bad = await run(['aml', 'lookup', 'not-an-address']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/address/i);
  });

  it('withdraw: shows the fee, asks, and does nothing when not confirmed (exit 6)', async () => {
    const to = randomAddress();
    const declined = await run(['withdraw', '--to', to, '--amount', '1', '--asset', 'USDC'], {}, 'n\n');
    expect(declined.code).toBe(6);
    expect(declined.stderr).toMatch(/Network fee: \d/);
    expect(declined.stderr).toMatch(/Send it\? \[y\/N\]/);
    expect((await json(['tx', 'list', '--type', 'WITHDRAW'])).filter((t: any) => t.recipientAddress === to)).toEqual([]);
  });

  it('withdraw --yes --wait: sent and followed to withdraw.success; tx list and show find it', async () => {
    const to = randomAddress();
    const r = await json(['withdraw', '--to', to, '--amount', '2.5', '--asset', 'usdc', '--yes', '--wait']);
    expect(r.event).toBe('withdraw.success');
    expect(r.transaction).toMatchObject({ status: 'SUCCESS', amount: '2.5', recipientAddress: to });
    expect(await chainOf(h, 'devnet-eth').balanceOf('USDC', to)).toBe(2_500_000n);
    const listed = await json(['tx', 'list', '--type', 'WITHDRAW', '--status', 'SUCCESS']);
    expect(listed.map((t: any) => t.id)).toContain(r.transaction.id);
    const shown = await run(['tx', 'show', r.transaction.id]);
    expect(shown.stdout).toMatch(/status\s+SUCCESS/);
    // Confirmed on standard input instead of --yes.
    const typed = await run(['withdraw', '--to', to, '--amount', '0.5', '--asset', 'USDC', '--json'], {}, 'y\n');
    expect(typed.code, typed.stderr).toBe(0);
    expect(JSON.parse(typed.stdout).transaction.amount).toBe('0.5');
  });

  it('webhooks trigger and resend, events list', async () => {
    const event = await json(['webhooks', 'trigger', 'deposit.failed']);
    expect(event).toMatchObject({ event: 'deposit.failed', test: true, delivery: null });
    // Shown once no older transaction is open anywhere in the cluster (another file's may be): polled.
    const listed = await eventually(
      () => json(['events', 'list', '--types', 'deposit.failed']),
      (list: any[]) => list.some((e) => e.id === event.id),
      30_000,
    );
    expect(listed.map((e: any) => e.id)).toContain(event.id);
    // Under the business key, --wallet narrows the list to that wallet's events, as tail does.
    const other = Object.values(h.wallets).find((x) => x.id !== w.id)!;
    const asBusiness = { WALLET_API_KEY: h.businessKey, WALLET_BASE_URL: h.baseUrl, WALLET_CONFIG: path.join(home, 'no-profile.json') };
    const own = await json(['events', 'list', '--types', 'deposit.failed', '--wallet', w.id], asBusiness);
    expect(own.map((e: any) => e.id)).toContain(event.id);
    const others = await json(['events', 'list', '--types', 'deposit.failed', '--wallet', other.id], asBusiness);
    expect(others.map((e: any) => e.id)).not.toContain(event.id);
    expect(others.every((e: any) => e.walletId === other.id)).toBe(true);
    expect((await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { webhookUrl: 'http://127.0.0.1:9/hook' } })).status).toBe(
      200,
    );
    const [withdrawal] = await json(['tx', 'list', '--type', 'WITHDRAW', '--limit', '1']);
    // The withdrawal's first event comes with its outcome (withdraw.success once mined): on a
    // busy machine the tracker may not have settled it yet. Until then resend is 422 NO_EVENT.
    await eventually(
      () => h.api('GET', `/v1/wallets/${w.id}/transactions/${withdrawal.id}`, { key: w.apiKey }),
      (res) => res.body.data?.status !== 'PENDING',
      30_000,
    );
    const resent = await json(['webhooks', 'resend', withdrawal.id]);
    expect(resent.webhookLog).toMatchObject({ transactionId: withdrawal.id, status: 'pending' });
  });

  it('exit codes: 4 not found, 3 refused, 5 unreachable, 1 a business rule', async () => {
    expect((await run(['tx', 'show', '0190f0a2-7b3c-7d4e-8f00-112233445566'])).code).toBe(4);
    const other = h.wallets['devnet-bsc']!;
    expect((await run(['wallets', 'show', other.id], { WALLET_API_KEY: 'sk_test_unknown' })).code).toBe(3);
    const down = await run(['balances', '--json'], { WALLET_BASE_URL: 'http://127.0.0.1:1' });
    expect(down.code).toBe(5);
    expect(JSON.parse(down.stderr).error).toBe('ConnectionError');
    const poor = await run(['withdraw', '--to', randomAddress(), '--amount', '999999', '--asset', 'USDC', '--yes', '--json']);
    expect(poor.code).toBe(1);
    expect(JSON.parse(poor.stderr)).toMatchObject({ error: 'INSUFFICIENT_BALANCE', status: 422 });
  });

  it('webhooks listen --forward-to under a business key wants the wallet key to sign with (exit 2, nothing forwarded)', async () => {
    const r = await run(['webhooks', 'listen', '--forward-to', 'http://127.0.0.1:1/hooks'], {
      WALLET_API_KEY: h.businessKey,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--signing-key/);
    expect(r.stderr).not.toContain(h.businessKey);
    // The wallet's key without the wallet: every wallet's events would be signed with it.
    // (No profile: a profile's wallet would be the selection.)
    const unscoped = await run(['webhooks', 'listen', '--forward-to', 'http://127.0.0.1:1/hooks', '--signing-key', w.apiKey], {
      WALLET_API_KEY: h.businessKey,
      WALLET_BASE_URL: h.baseUrl,
      WALLET_CONFIG: path.join(home, 'no-profile.json'),
    });
    expect(unscoped.code).toBe(2);
    expect(unscoped.stderr).toMatch(/--wallet/);
  });
});

describe('shell completion', () => {
  it('bash completes commands, sub-commands and options', async () => {
    const script = (await run(['completion', 'bash'])).stdout;
    const complete = (line: string) => {
      const words = line.split(' ');
      const bash = `${script}\nCOMP_WORDS=(${words.map((x) => `'${x}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _wallet_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
      return execFileSync('bash', ['-c', bash], { encoding: 'utf8' }).trim().split('\n');
    };
    expect(complete('wallet we')).toEqual(['webhooks']);
    expect(complete('wallet webhooks ')).toEqual(expect.arrayContaining(['listen', 'trigger', 'resend']));
    expect(complete('wallet webhooks listen --for')).toEqual(['--forward-to']);
    expect(complete('wallet --json tx l')).toEqual(['list']);
    expect(complete('wallet withdraw --y')).toEqual(['--yes']);
  });

  it('zsh gets a script it can load', async () => {
    const result = await run(['completion', 'zsh']);
    const script = result.stdout;
    // What the CLI answered, if not the script (a README run under load once got something else).
    expect(script.startsWith('#compdef wallet'), `exit ${result.code}\n${script.slice(0, 500)}\n${result.stderr.slice(0, 2000)}`).toBe(
      true,
    );
    expect(script).toContain('"webhooks listen"');
    const zsh = ['/usr/bin/zsh', '/bin/zsh'].find((p) => existsSync(p));
    if (zsh) execFileSync(zsh, ['-n', '-c', script]);
  });
});
