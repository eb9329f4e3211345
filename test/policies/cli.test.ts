/**
 * Approving from the command line: `wallet approvals …` (the SDK's CLI) votes as the business
 * API key in WALLET_API_KEY or on stdin, never on the command line, through the API's rules:
 * the initiator is refused, another approver's approval sends the payout on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAll } from '../support/cli.js';
import { ensureSdkBuilt, SDK_BUILD_TIMEOUT_MS, walletRun } from '../support/sdk.js';
import { randomAddress } from '../withdrawals/world.js';
import { fundedWallet, policy, startPolicyWorld, waitStatus, withdraw, type PolicyWorld } from './world.js';

let w: PolicyWorld;
let home: string;

beforeAll(ensureSdkBuilt, SDK_BUILD_TIMEOUT_MS);
beforeAll(async () => {
  w = await startPolicyWorld();
  home = mkdtempSync(path.join(os.tmpdir(), 'approvals-cli-'));
}, 120_000);
afterAll(async () => {
  await killAll();
  await w?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** `wallet approvals …` with only the service's URL in the environment (no profile), the key as given. */
const cli = (args: string[], opts: { key?: string; stdin?: string } = {}) =>
  walletRun(
    ['approvals', ...args],
    {
      PATH: process.env.PATH,
      HOME: home,
      WALLET_CONFIG: path.join(home, 'wallet.json'),
      WALLET_BASE_URL: w.h.baseUrl,
      ...(opts.key ? { WALLET_API_KEY: opts.key } : {}),
    },
    opts.stdin ?? '',
  );

describe('wallet approvals', () => {
  it(
    'refuses a key on the command line and the initiator, and approves as another approver, the key on stdin',
    { timeout: 240_000 },
    async () => {
      const wallet = await fundedWallet(w, 'cli', '100');
      await policy(w, {
        name: 'every payout needs an approver',
        priority: 1,
        walletId: wallet.id,
        conditions: { types: ['WITHDRAW'] },
        action: 'REQUIRE_APPROVAL',
        approval: { approvers: { apiKeys: w.approvers.map((k) => k.id) }, quorum: 1, ttlSeconds: 3600 },
      });
      const to = randomAddress();
      const res = await withdraw(w, wallet, { assetId: w.usdc.id, address: to, amount: '12.5' }, { key: w.approvers[0].apiKey });
      expect(res.body.data.status).toBe('PENDING_APPROVAL');
      const id = res.body.data.id as string;

      // No key at all (empty stdin), and a key on the command line: refused, the key never echoed.
      expect((await cli(['approve', id])).code).toBe(3);
      const onArgv = await cli(['approve', id, '--api-key', w.approvers[1].apiKey]);
      expect(onArgv.code).toBe(2);
      expect(onArgv.stderr).toContain('never put an API key on the command line');
      const asId = await cli(['approve', w.approvers[1].apiKey], { key: w.approvers[1].apiKey });
      expect(asId.code).toBe(2);
      for (const r of [onArgv, asId]) expect(r.stderr + r.stdout).not.toContain(w.approvers[1].apiKey);

      const listed = await cli(['list', '--status', 'PENDING', '--json'], { key: w.approvers[1].apiKey });
      expect(listed.code, listed.stderr).toBe(0);
      expect((JSON.parse(listed.stdout) as { transaction: { id: string } }[]).map((a) => a.transaction.id)).toContain(id);

      const self = await cli(['approve', id], { key: w.approvers[0].apiKey });
      expect(self.code, self.stdout + self.stderr).toBe(3);
      expect(self.stderr).toContain('SELF_APPROVAL');

      const ok = await cli(['approve', id, '--comment', 'checked with finance'], { stdin: `${w.approvers[1].apiKey}\n` });
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toContain('APPROVED (1 of 1 approvals)');
      expect(ok.stdout).toContain('every payout needs an approver');
      expect(ok.stdout).toContain('checked with finance');
      const done = await waitStatus(w, wallet, id, 'SUCCESS');
      expect(done.hash).toBeTruthy();
      expect(await w.eth.balanceOf('USDC', to)).toBe(12_500_000n);
    },
  );
});
