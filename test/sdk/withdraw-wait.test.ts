/**
 * `wallet withdraw --wait` on a withdrawal a policy holds for approval: it says so, and when
 * the approvers reject it (`withdraw.cancelled`) it ends non-zero. It listened for
 * withdraw.success and withdraw.failed only, and hung for good.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAll, runToEnd, waitUntil } from '../support/cli.js';
import { ensureSdkBuilt, SDK_BUILD_TIMEOUT_MS, wallet as walletCli } from '../support/sdk.js';
import { randomAddress } from '../withdrawals/world.js';
import { fundedWallet, policy, startPolicyWorld, vote, waitStatus, type PolicyWorld } from '../policies/world.js';

let w: PolicyWorld;
let home: string;

beforeAll(ensureSdkBuilt, SDK_BUILD_TIMEOUT_MS);
beforeAll(async () => {
  w = await startPolicyWorld();
  home = mkdtempSync(path.join(os.tmpdir(), 'withdraw-wait-'));
}, 120_000);
afterAll(async () => {
  await killAll();
  await w?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('wallet withdraw --wait', () => {
  it('ends (non-zero) when the held withdrawal is rejected', { timeout: 120_000 }, async () => {
    const wallet = await fundedWallet(w, 'wait', '100');
    await policy(w, {
      name: 'hold every payout',
      priority: 1,
      walletId: wallet.id,
      conditions: { types: ['WITHDRAW'] },
      action: 'REQUIRE_APPROVAL',
      approval: { approvers: { apiKeys: w.approvers.map((k) => k.id) }, quorum: 1, ttlSeconds: 3600 },
    });
    const proc = walletCli(['withdraw', '--to', randomAddress(), '--asset', w.usdc.id, '--amount', '1', '--yes', '--wait'], {
      PATH: process.env.PATH,
      HOME: home,
      WALLET_CONFIG: path.join(home, 'wallet.json'),
      WALLET_BASE_URL: w.h.baseUrl,
      WALLET_API_KEY: wallet.apiKey,
      WALLET_ID: wallet.id,
    });
    await waitUntil(
      'the withdrawal to be held',
      () => /Withdrawal \S+ is held for approval/.test(proc.stderr()),
      60_000,
      () => proc.describe(),
    );
    const id = /Withdrawal (\S+) is held for approval/.exec(proc.stderr())![1]!;
    const rejected = await vote(w, w.approvers[0], id, 'reject', 'not this one');
    expect(rejected.status).toBe(200);
    await waitStatus(w, wallet, id, 'CANCELLED');
    let exit: { code: number | null } | null = null;
    try {
      exit = await runToEnd(proc, 20_000);
    } catch {
      /* still running */
    }
    expect(exit, 'the command still waits 20 s after its withdrawal was cancelled').not.toBeNull();
    expect(exit!.code).not.toBe(0);
    expect(proc.stderr()).toContain('the withdrawal was cancelled: ');
  });
});
