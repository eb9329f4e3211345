/**
 * Approving from the command line: the server CLI votes as the business API key in
 * WALLET_API_KEY (or on stdin), through the same rules as the API: the initiator is refused,
 * another approver's approval sends the payout on.
 */
import { spawn } from 'node:child_process';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';
import { cleanEnv } from '../support/cli.js';
import { randomAddress } from '../withdrawals/world.js';
import { fundedWallet, policy, startPolicyWorld, waitStatus, withdraw, type PolicyWorld } from './world.js';

const TSX_CLI = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');
let w: PolicyWorld;
let tmp: string;
let chainsFile: string;

beforeAll(async () => {
  w = await startPolicyWorld();
  tmp = await mkdtemp(path.join(os.tmpdir(), 'approval-cli-'));
  chainsFile = path.join(tmp, 'chains.json');
  // The harness's devnet as an operator's chains file describes it (test/support/installation.ts).
  const chains = w.h.devnet.chains.map((c) => ({
    blockchain: c.config.blockchain.slug,
    network: 'testnet',
    rpcUrl: c.config.rpcUrl,
    chainId: c.config.chainId,
    name: c.config.blockchain.name,
    symbol: c.config.blockchain.symbol,
    tokenStandard: c.config.blockchain.tokenStandard,
    confirmations: c.config.confirmations,
    multicall3: c.config.multicall3,
    assets: c.config.assets.filter((a) => !a.isNative).map((a) => ({ symbol: a.symbol, address: a.address, decimals: a.decimals })),
  }));
  await writeFile(chainsFile, JSON.stringify({ chains }));
}, 120_000);
afterAll(async () => {
  await w?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

function cli(args: string[], opts: { key?: string; stdin?: string }) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [TSX_CLI, 'src/main.ts', 'approval', ...args], {
      cwd: ROOT,
      env: {
        ...cleanEnv(),
        DATABASE_URL: w.h.databaseUrl,
        MASTER_KEY: w.h.kek.toString('base64'),
        CHAINS_FILE: chainsFile,
        LOG_LEVEL: 'warn',
        ...(opts.key ? { WALLET_API_KEY: opts.key } : {}),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdin.end(opts.stdin ?? '');
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('approval command', () => {
  it('refuses the initiator, and approves as another approver, the key on stdin', { timeout: 180_000 }, async () => {
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

    // Usage errors before anything starts: no key, a key on the command line.
    expect((await cli(['approve', id], {})).code).toBe(2);
    const onArgv = await cli(['approve', id, w.approvers[1].apiKey], {});
    expect(onArgv.stderr).toContain('never put an API key on the command line');
    expect(onArgv.stderr + onArgv.stdout).not.toContain(w.approvers[1].apiKey);

    const self = await cli(['approve', id], { key: w.approvers[0].apiKey });
    expect(self.code, self.stdout + self.stderr).toBe(1);
    expect(self.stderr).toContain('SELF_APPROVAL');

    const ok = await cli(['approve', id, '--comment', 'checked with finance'], { stdin: `${w.approvers[1].apiKey}\n` });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('APPROVED (1 of 1 approvals; policy "every payout needs an approver")');
    expect(ok.stdout).toContain('checked with finance');
    const done = await waitStatus(w, wallet, id, 'SUCCESS');
    expect(done.hash).toBeTruthy();
    expect(await w.eth.balanceOf('USDC', to)).toBe(12_500_000n);
  });
});
