/**
 * What a scheduled settlement leaves at the master: everything the withdrawals service
 * holds there, not only PENDING withdrawals. A payout waiting for approval (PENDING_APPROVAL)
 * holds its amount against every other payout (docs/policies.md); a settlement that did not
 * count it asked for the whole balance, was refused INSUFFICIENT_BALANCE twice and failed:
 * the period was skipped instead of settling what is free.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { randomAddress } from '../withdrawals/world.js';
import { fundedWallet, policy, startPolicyWorld, withdraw, type PolicyWorld } from '../policies/world.js';
import { eventually } from '../support/fixtures.js';
import { call } from '../contracts/support.js';

let w: PolicyWorld;

beforeAll(async () => {
  w = await startPolicyWorld();
}, 120_000);
afterAll(async () => {
  await w?.stop();
});

type TestWallet = Awaited<ReturnType<typeof fundedWallet>>;

/** A DAILY settlement beneficiary of the wallet: its id and address. */
async function dailyBeneficiary(wallet: TestWallet): Promise<{ id: string; to: string }> {
  const to = randomAddress();
  const b = await w.h.api('POST', `/v1/wallets/${wallet.id}/beneficiaries`, {
    key: wallet.apiKey,
    body: { name: 'Daily treasury', address: to, settlementFrequency: 'DAILY' },
  });
  expect(b.status, JSON.stringify(b.body)).toBe(200);
  return { id: b.body.data.id, to };
}

/** Two days on (the day the beneficiary was added has closed): its run made, run, and read once finished. */
async function settleFirstDay(wallet: TestWallet, beneficiaryId: string): Promise<Record<string, any>> {
  const list = async () =>
    (await w.h.api('GET', `/v1/wallets/${wallet.id}/beneficiaries/${beneficiaryId}/settlements`, { key: wallet.apiKey })).body.data;
  await w.h.services.settlements.tick(new Date(w.clock.now().getTime() + 2 * 86_400_000));
  await w.h.services.settlements.run((await list())[0].id);
  return eventually(
    async () => (await list())[0],
    (r) => r.status !== 'pending',
    20_000,
  );
}

const txOf = async (wallet: TestWallet, id: string) =>
  (await w.h.api('GET', `/v1/wallets/${wallet.id}/transactions/${id}`, { key: wallet.apiKey })).body.data;

describe('scheduled settlement and payouts waiting for approval', () => {
  it('settles the balance less what a PENDING_APPROVAL payout holds', { timeout: 90_000 }, async () => {
    const wallet = await fundedWallet(w, 'settles-around-approval', '500');
    await policy(w, {
      name: '100 to 200 USDC needs approval',
      priority: 10,
      walletId: wallet.id,
      conditions: { types: ['WITHDRAW', 'BATCH_ITEM'], assets: ['USDC'], amount: { min: '100', max: '200', currency: 'ASSET' } },
      action: 'REQUIRE_APPROVAL',
      approval: { approvers: { apiKeys: w.approvers.map((k) => k.id) }, quorum: 2, ttlSeconds: 86_400 },
    });
    const held = await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '150' });
    expect(held.body.data?.status, JSON.stringify(held.body)).toBe('PENDING_APPROVAL');

    const to = randomAddress();
    const b = await w.h.api('POST', `/v1/wallets/${wallet.id}/beneficiaries`, {
      key: wallet.apiKey,
      body: { name: 'Daily treasury', address: to, settlementFrequency: 'DAILY' },
    });
    expect(b.status, JSON.stringify(b.body)).toBe(200);

    // Two days on, the day the beneficiary was added has closed.
    const later = new Date(w.clock.now().getTime() + 2 * 86_400_000);
    await w.h.services.settlements.tick(later);
    const runs = await w.h.api('GET', `/v1/wallets/${wallet.id}/beneficiaries/${b.body.data.id}/settlements`, { key: wallet.apiKey });
    expect(runs.body.data).toHaveLength(1);
    const runId = runs.body.data[0].id as string;
    await w.h.services.settlements.run(runId);
    const run = await eventually(
      async () =>
        (await w.h.api('GET', `/v1/wallets/${wallet.id}/beneficiaries/${b.body.data.id}/settlements`, { key: wallet.apiKey })).body.data[0],
      (r) => r.status !== 'pending',
      20_000,
    );
    expect(run, JSON.stringify(run)).toMatchObject({ status: 'done', error: null });
    const [t] = await Promise.all(
      run.transactionIds.map(
        async (id: string) => (await w.h.api('GET', `/v1/wallets/${wallet.id}/transactions/${id}`, { key: wallet.apiKey })).body.data,
      ),
    );
    expect(t).toMatchObject({ type: 'WITHDRAW', amount: '350', recipientAddress: to });
    await eventually(
      () => w.eth.balanceOf('USDC', to),
      (v) => v === 350_000_000n,
      20_000,
    );
  });
});

describe('scheduled settlement and deposits not confirmed yet', () => {
  it(
    'settles the balance less a deposit to the master still PENDING (a reorg may take it, a rule may claim it)',
    { timeout: 90_000 },
    async () => {
      const wallet = await fundedWallet(w, 'settles-around-unconfirmed', '200');
      const sent = await w.eth.sendToken('USDC', wallet.address, '4');
      // One block on it of the chain's 2: seen, PENDING.
      const chain = w.h.services.catalogue.findChain('devnet-eth', 'testnet')!;
      const indexer = w.h.services.deposits.indexer(chain);
      const pending = await eventually(
        async () => {
          await indexer.step();
          return (await w.h.api('GET', `/v1/wallets/${wallet.id}/transactions?type=DEPOSIT`, { key: wallet.apiKey })).body.data as {
            hash: string;
            status: string;
          }[];
        },
        (list) => list.some((t) => t.hash?.toLowerCase() === sent.transactionHash.toLowerCase()),
        20_000,
      );
      expect(pending.find((t) => t.hash?.toLowerCase() === sent.transactionHash.toLowerCase())!.status).toBe('PENDING');

      const { id: beneficiaryId, to } = await dailyBeneficiary(wallet);
      const run = await settleFirstDay(wallet, beneficiaryId);
      expect(run, JSON.stringify(run)).toMatchObject({ status: 'done', error: null });
      const t = await txOf(wallet, run.transactionIds[0]);
      expect(t).toMatchObject({ type: 'WITHDRAW', amount: '200', recipientAddress: to });
    },
  );
});

describe('scheduled settlement and standing allowances', () => {
  it('settles the balance less what an allowance granted by a contract write holds', { timeout: 90_000 }, async () => {
    const wallet = await fundedWallet(w, 'settles-around-allowance', '500');
    const spender = randomAddress();
    const approved = await w.h.api('POST', `/v1/wallets/${wallet.id}/contracts/write`, {
      key: wallet.apiKey,
      body: { calls: [call(w.eth.token('USDC').address, 'approve', [spender, '120000000'])] },
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const id = (Array.isArray(approved.body.data) ? approved.body.data[0] : approved.body.data).id as string;
    await eventually(
      async () => (await w.h.api('GET', `/v1/wallets/${wallet.id}/transactions/${id}`, { key: wallet.apiKey })).body.data.status,
      (s) => s === 'SUCCESS',
      30_000,
    );

    const { id: beneficiaryId, to } = await dailyBeneficiary(wallet);
    const run = await settleFirstDay(wallet, beneficiaryId);
    expect(run, JSON.stringify(run)).toMatchObject({ status: 'done', error: null });
    const t = await txOf(wallet, run.transactionIds[0]);
    expect(t).toMatchObject({ type: 'WITHDRAW', amount: '380', recipientAddress: to });
  });
});

describe('scheduled settlement and an approve not mined yet', () => {
  it('settles the balance less what a PENDING approve holds (its allowance is not on chain yet)', { timeout: 90_000 }, async () => {
    const wallet = await fundedWallet(w, 'settles-around-pending-approve', '500');
    const { id: beneficiaryId, to } = await dailyBeneficiary(wallet);
    await w.eth.rpc('evm_setAutomine', [false]);
    try {
      const approved = await w.h.api('POST', `/v1/wallets/${wallet.id}/contracts/write`, {
        key: wallet.apiKey,
        body: { calls: [call(w.eth.token('USDC').address, 'approve', [randomAddress(), '120000000'])] },
      });
      expect(approved.status, JSON.stringify(approved.body)).toBe(200);
      const id = (Array.isArray(approved.body.data) ? approved.body.data[0] : approved.body.data).id as string;
      // Signed and sent, not mined: the funds check holds its 120 by its row.
      await eventually(
        async () => (await w.h.api('GET', `/v1/wallets/${wallet.id}/transactions/${id}`, { key: wallet.apiKey })).body.data,
        (t) => t.status === 'PENDING' && t.hash !== null,
        30_000,
      );
      const run = await settleFirstDay(wallet, beneficiaryId);
      expect(run, JSON.stringify(run)).toMatchObject({ status: 'done', error: null });
      const t = await txOf(wallet, run.transactionIds[0]);
      expect(t).toMatchObject({ type: 'WITHDRAW', amount: '380', recipientAddress: to });
    } finally {
      await w.eth.rpc('evm_setAutomine', [true]);
    }
  });
});

describe('scheduled settlement and rules naming their initiator', () => {
  it(
    'a settlement run is the service on its schedule: a rule for initiator system decides it, not the payouts a key asks for',
    {
      timeout: 90_000,
    },
    async () => {
      const wallet = await fundedWallet(w, 'settles-as-system', '300');
      const { id: beneficiaryId, to } = await dailyBeneficiary(wallet);
      const blocked = await policy(w, {
        name: 'no scheduled payouts',
        priority: 10,
        walletId: wallet.id,
        conditions: { types: ['WITHDRAW', 'BATCH_ITEM'], initiators: { system: true } },
        action: 'BLOCK',
      });
      // A key's payout is not the service's own.
      const paid = await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '1' });
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      const run = await settleFirstDay(wallet, beneficiaryId);
      expect(run, JSON.stringify(run)).toMatchObject({ status: 'failed', transactionIds: [] });
      expect(run.error).toContain('POLICY_BLOCKED');
      expect(run.error).toContain('no scheduled payouts');
      expect(blocked.id).toBeTruthy();
      expect(await w.eth.balanceOf('USDC', to)).toBe(0n);
    },
  );
});

describe('scheduled settlement held for approval', () => {
  it(
    'the request names the service as its initiator, on the approval and on the audit trail, never an API key',
    {
      timeout: 90_000,
    },
    async () => {
      const wallet = await fundedWallet(w, 'settles-held-as-system', '120');
      const { id: beneficiaryId } = await dailyBeneficiary(wallet);
      await policy(w, {
        name: 'scheduled payouts need approval',
        priority: 10,
        walletId: wallet.id,
        conditions: { types: ['WITHDRAW', 'BATCH_ITEM'], initiators: { system: true } },
        action: 'REQUIRE_APPROVAL',
        approval: { approvers: { apiKeys: w.approvers.map((k) => k.id) }, quorum: 1, ttlSeconds: 86_400 },
      });
      const run = await settleFirstDay(wallet, beneficiaryId);
      expect(run, JSON.stringify(run)).toMatchObject({ status: 'done' });
      const t = await txOf(wallet, run.transactionIds[0]);
      expect(t.status).toBe('PENDING_APPROVAL');
      const approval = await w.h.api('GET', `/v1/approvals/${t.id}`, { key: w.approvers[0].apiKey });
      expect(approval.status, JSON.stringify(approval.body)).toBe(200);
      const initiator = approval.body.data.initiator;
      expect(initiator.type).toBe('SYSTEM');
      expect(initiator.id).toBeNull();
      // No API key asked for it: the label must not name one.
      expect(initiator.label, JSON.stringify(initiator)).not.toMatch(/API key/);
      const { rows } = await sql<{ actor: string }>`
        SELECT actor FROM audit_log WHERE action = 'approval.requested' AND target_id = ${approval.body.data.id}`.execute(w.h.database.db);
      expect(rows.map((r) => r.actor)).toEqual(['system']);
    },
  );
});
