/**
 * `wallet withdraw --wait` run again after the first run's answer was lost: with the same
 * --idempotency-key (or reference) the service answers the first withdrawal instead of
 * paying again. When that withdrawal has already ended, its withdraw.success is in the past
 * of the event stream the retry opens: the retry waited for it for good, and a script that
 * gives up on a hung command and sends it with a new key pays twice. And once the first
 * withdrawal spent the balance, the fee quote the command asks for first (judged as a new
 * request) was refused: exit 1 INSUFFICIENT_BALANCE for a payout that was made.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';
import { chainOf } from '../support/chain.js';
import { killAll } from '../support/cli.js';
import { ensureSdkBuilt, SDK_BUILD_TIMEOUT_MS, wallet as walletCli } from '../support/sdk.js';
import { runToEnd } from '../support/cli.js';
import { randomAddress } from '../withdrawals/world.js';

let h: Harness;
let w: TestWallet;
let home: string;

beforeAll(ensureSdkBuilt, SDK_BUILD_TIMEOUT_MS);
beforeAll(async () => {
  h = await startHarness({ worker: true, services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } } });
  w = h.wallets['devnet-eth']!;
  home = mkdtempSync(path.join(os.tmpdir(), 'withdraw-retry-wait-'));
  await chainOf(h, 'devnet-eth').sendToken('USDC', w.address, '10');
}, 120_000);
afterAll(async () => {
  await killAll();
  await h?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

const env = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: home,
  WALLET_CONFIG: path.join(home, 'wallet.json'),
  WALLET_BASE_URL: h.baseUrl,
  WALLET_API_KEY: w.apiKey,
  WALLET_ID: w.id,
});

describe('wallet withdraw --wait, retried', () => {
  it('reports a withdrawal that already ended instead of waiting for its past event', { timeout: 120_000 }, async () => {
    const to = randomAddress();
    const args = ['withdraw', '--to', to, '--amount', '1.5', '--asset', 'USDC', '--yes', '--wait', '--json'];
    const first = await runToEnd(walletCli([...args, '--idempotency-key', 'payout-7'], env()), 60_000);
    expect(first.code, first.stderr).toBe(0);
    const paid = JSON.parse(first.stdout);
    expect(paid).toMatchObject({ event: 'withdraw.success', transaction: { status: 'SUCCESS' } });

    // The same command again (its answer was lost): the first withdrawal, ended, exit 0.
    const again = await runToEnd(walletCli([...args, '--idempotency-key', 'payout-7'], env()), 20_000).catch((err: Error) => err);
    expect(again, 'the retried command still waits 20 s after its withdrawal succeeded').not.toBeInstanceOf(Error);
    const retried = again as Awaited<ReturnType<typeof runToEnd>>;
    expect(retried.code, retried.stderr).toBe(0);
    expect(JSON.parse(retried.stdout)).toMatchObject({
      event: 'withdraw.success',
      transaction: { id: paid.transaction.id, status: 'SUCCESS' },
    });

    // A reference already used answers the original the same way.
    const byReference = ['withdraw', '--to', to, '--amount', '0.5', '--asset', 'USDC', '--reference', 'order-9', '--yes', '--wait'];
    const once = await runToEnd(walletCli([...byReference, '--json'], env()), 60_000);
    expect(once.code, once.stderr).toBe(0);
    const twice = await runToEnd(walletCli([...byReference, '--json'], env()), 20_000).catch((err: Error) => err);
    expect(twice, 'the command with a used reference still waits 20 s').not.toBeInstanceOf(Error);
    expect(JSON.parse((twice as Awaited<ReturnType<typeof runToEnd>>).stdout).transaction.id).toBe(JSON.parse(once.stdout).transaction.id);

    // Paid once each.
    expect(await chainOf(h, 'devnet-eth').balanceOf('USDC', to)).toBe(2_000_000n);
  });

  it(
    'a retry after the first withdrawal spent the balance still answers it (the fee quote judges anew)',
    { timeout: 120_000 },
    async () => {
      const bsc = h.wallets['devnet-bsc']!;
      await chainOf(h, 'devnet-bsc').sendToken('USDC', bsc.address, '3');
      const to = randomAddress();
      const args = ['withdraw', '--to', to, '--amount', '3', '--asset', 'USDC', '--yes', '--json', '--idempotency-key', 'drain-1'];
      const bscEnv = { ...env(), WALLET_API_KEY: bsc.apiKey, WALLET_ID: bsc.id };
      const first = await runToEnd(walletCli([...args, '--wait'], bscEnv), 60_000);
      expect(first.code, first.stderr).toBe(0);
      const paid = JSON.parse(first.stdout);

      // Its answer lost, the script sends the same command: the first withdrawal, not a refusal
      // (exit 1 INSUFFICIENT_BALANCE would tell the script nothing was paid).
      const again = await runToEnd(walletCli(args, bscEnv), 60_000);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout).transaction.id).toBe(paid.transaction.id);
      const waited = await runToEnd(walletCli([...args, '--wait'], bscEnv), 20_000);
      expect(waited.code, waited.stderr).toBe(0);
      expect(JSON.parse(waited.stdout)).toMatchObject({ event: 'withdraw.success', transaction: { id: paid.transaction.id } });
      expect(await chainOf(h, 'devnet-bsc').balanceOf('USDC', to)).toBe(3n * 10n ** 18n);

      // A new request the balance cannot pay is still refused (exit 1), after the prompt's fee is shown as unknown.
      const poor = await runToEnd(walletCli([...args.slice(0, -1), 'drain-2'], bscEnv), 60_000);
      expect(poor.code).toBe(1);
      expect(JSON.parse(poor.stderr.trim().split('\n').pop()!)).toMatchObject({ error: 'INSUFFICIENT_BALANCE' });
    },
  );
});
