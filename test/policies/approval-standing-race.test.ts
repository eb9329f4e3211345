/**
 * A payout held for approval and the vote that sends it on, while the wallet stops paying:
 * the wallet deactivated, the asset disabled, or the destination taken off the whitelist.
 * Once such a change is answered, no payout is sent on (docs/withdrawals.md: the standing is
 * read "under the standing's lock ... so no payout is accepted after such a change was
 * answered, whichever API process answered it"; docs/policies.md: a payout approved after
 * the wallet was deactivated or the asset disabled is cancelled).
 *
 * The deciding vote's transaction reads the wallet, its assets and its whitelist, then takes
 * the sender's withdrawal lock to send the payout on. A transaction of ours holds that lock
 * while the change is made and answered through the API, then lets the vote go on.
 */
import pg from 'pg';
import { encodeAbiParameters, keccak256, pad, toHex, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressKey } from '../../src/chains/address-key.js';
import { randomAddress } from '../withdrawals/world.js';
import { eventually } from '../support/fixtures.js';
import type { ApiResponse } from '../support/harness.js';
import {
  ETH,
  footprint,
  fundedWallet,
  getTx,
  mintKey,
  policy,
  startPolicyWorld,
  vote,
  waitStatus,
  withdraw,
  type PolicyWorld,
  type TestWallet,
} from './world.js';

let w: PolicyWorld;

beforeAll(async () => {
  w = await startPolicyWorld();
}, 120_000);
afterAll(async () => {
  await w?.stop();
});

/** Whether another session waits for an advisory lock (the vote, on the sender's withdrawal lock). */
async function someoneWaits(client: pg.Client): Promise<boolean> {
  const { rows } = await client.query(
    `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory' AND pid <> pg_backend_pid()`,
  );
  return rows.length > 0;
}

/** The deciding vote, sent while the sender's withdrawal lock is held and `change` is made (and answered) meanwhile. */
function voteWhile(wallet: TestWallet, approvalId: string, change: () => Promise<void>) {
  return whileSenderHeld(wallet, () => vote(w, w.approvers[0], approvalId, 'approve'), change);
}

/** `request`, sent while the wallet master's withdrawal lock is held; `change` made (and answered) while it waits there. */
async function whileSenderHeld<T>(wallet: TestWallet, request: () => Promise<T>, change: () => Promise<void>): Promise<T> {
  const chainId = w.h.services.catalogue.findChain(ETH, 'testnet')!.id;
  const client = new pg.Client({ connectionString: w.h.databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`withdraw:${chainId}:${addressKey(wallet.address)}`]);
    const pending = request();
    for (let i = 0; i < 500 && !(await someoneWaits(client)); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await someoneWaits(client), 'the request waits for the sender').toBe(true);
    await change();
    await client.query('COMMIT');
    return await pending;
  } finally {
    await client.end();
  }
}

const CHANGES = ['wallet deactivated', 'asset disabled', 'destination un-whitelisted'] as const;

describe('a payout approved while its wallet stops paying', () => {
  for (const change of CHANGES) {
    it(`${change} while the deciding vote is under way: cancelled, nothing sent`, { timeout: 90_000 }, async () => {
      const wallet = await fundedWallet(w, `approval race: ${change}`, '200');
      const to = randomAddress();
      // The wallet whitelists its destinations: `to` is one.
      const b = await w.h.api('POST', `/v1/wallets/${wallet.id}/beneficiaries`, {
        key: wallet.apiKey,
        body: { name: 'payee', address: to, isWhitelisted: true },
      });
      expect(b.status, JSON.stringify(b.body)).toBe(200);
      // Another stays whitelisted: the whitelist is not lifted when `to` leaves it (an empty one allows all).
      const other = await w.h.api('POST', `/v1/wallets/${wallet.id}/beneficiaries`, {
        key: wallet.apiKey,
        body: { name: 'treasury', address: randomAddress(), isWhitelisted: true },
      });
      expect(other.status, JSON.stringify(other.body)).toBe(200);
      await policy(w, {
        name: `over 100 USDC needs approval (${change})`,
        priority: 10,
        walletId: wallet.id,
        conditions: { types: ['WITHDRAW', 'BATCH_ITEM'], assets: ['USDC'], amount: { min: '100', currency: 'ASSET' } },
        action: 'REQUIRE_APPROVAL',
        approval: { approvers: { apiKeys: w.approvers.map((k) => k.id) }, quorum: 1, ttlSeconds: 3600 },
      });
      const res = await withdraw(w, wallet, { assetId: w.usdc.id, address: to, amount: '150' });
      expect(res.body.data?.status, JSON.stringify(res.body)).toBe('PENDING_APPROVAL');
      const id = res.body.data.id as string;

      const approved = await voteWhile(wallet, id, async () => {
        const stopped =
          change === 'wallet deactivated'
            ? await w.h.api('PATCH', `/v1/wallets/${wallet.id}`, { key: wallet.apiKey, body: { isActive: false } })
            : change === 'asset disabled'
              ? await w.h.api('DELETE', `/v1/wallets/${wallet.id}/assets/${w.usdc.id}`, { key: wallet.apiKey })
              : await w.h.api('PATCH', `/v1/wallets/${wallet.id}/beneficiaries/${b.body.data.id}`, {
                  key: wallet.apiKey,
                  body: { isWhitelisted: false },
                });
        expect(stopped.status, JSON.stringify(stopped.body)).toBe(200);
      });
      expect(approved.status, JSON.stringify(approved.body)).toBe(200);
      const t = await getTx(w, wallet, id);
      expect(t.status, `${change}: ${JSON.stringify(t)}`).toBe('CANCELLED');
      expect((await footprint(w, wallet.id)).outbound, change).toBe(0);
      expect(await w.eth.balanceOf('USDC', to)).toBe(0n);
    });
  }
});

/** The devnet token's balance slot of `owner` (balanceOf is its 4th slot). */
const balanceSlot = (owner: string) => keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner as Address, 3n]));

/** A withdrawal of `amount` USDC that reverts on chain (the funds vanish between signing and mining), final. */
async function failedWithdrawal(wallet: TestWallet, to: string, amount: string): Promise<string> {
  const token = w.eth.token('USDC').address;
  const slot = balanceSlot(wallet.address);
  const held = await w.eth.balanceOf('USDC', wallet.address);
  await w.eth.rpc('evm_setAutomine', [false]);
  let id = '';
  try {
    const res = await withdraw(w, wallet, { assetId: w.usdc.id, address: to, amount });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    id = res.body.data.id;
    await eventually(
      () => getTx(w, wallet, id),
      (t) => t.hash !== null,
      20_000,
    );
    await w.eth.rpc('anvil_setStorageAt', [token, slot, pad(toHex(0n))]);
    await w.eth.mine();
  } finally {
    await w.eth.rpc('evm_setAutomine', [true]);
  }
  await waitStatus(w, wallet, id, 'FAILED');
  await w.eth.rpc('anvil_setStorageAt', [token, slot, pad(toHex(held))]);
  await w.eth.mine();
  await w.eth.mine();
  await eventually(
    () => getTx(w, wallet, id),
    (t) => t.confirmations >= 2,
    20_000,
  );
  return id;
}

describe('a FAILED withdrawal retried while its wallet stops paying', () => {
  const refusals = {
    'wallet deactivated': 'WALLET_INACTIVE',
    'asset disabled': 'ASSET_NOT_ENABLED',
    'destination un-whitelisted': 'NOT_WHITELISTED',
  };
  for (const change of CHANGES) {
    it(`${change} while the retry is under way: refused as a new withdrawal would be, nothing sent`, { timeout: 120_000 }, async () => {
      const wallet = await fundedWallet(w, `retry race: ${change}`, '50');
      const to = randomAddress();
      const b = await w.h.api('POST', `/v1/wallets/${wallet.id}/beneficiaries`, {
        key: wallet.apiKey,
        body: { name: 'payee', address: to, isWhitelisted: true },
      });
      expect(b.status, JSON.stringify(b.body)).toBe(200);
      const other = await w.h.api('POST', `/v1/wallets/${wallet.id}/beneficiaries`, {
        key: wallet.apiKey,
        body: { name: 'treasury', address: randomAddress(), isWhitelisted: true },
      });
      expect(other.status, JSON.stringify(other.body)).toBe(200);
      const id = await failedWithdrawal(wallet, to, '6');
      const before = await footprint(w, wallet.id);

      const retried = await whileSenderHeld(
        wallet,
        () => w.h.api('POST', `/v1/wallets/${wallet.id}/transactions/retry`, { key: wallet.apiKey, body: { id } }),
        async () => {
          const stopped =
            change === 'wallet deactivated'
              ? await w.h.api('PATCH', `/v1/wallets/${wallet.id}`, { key: wallet.apiKey, body: { isActive: false } })
              : change === 'asset disabled'
                ? await w.h.api('DELETE', `/v1/wallets/${wallet.id}/assets/${w.usdc.id}`, { key: wallet.apiKey })
                : await w.h.api('PATCH', `/v1/wallets/${wallet.id}/beneficiaries/${b.body.data.id}`, {
                    key: wallet.apiKey,
                    body: { isWhitelisted: false },
                  });
          expect(stopped.status, JSON.stringify(stopped.body)).toBe(200);
        },
      );
      expect([retried.status, retried.body.error], JSON.stringify(retried.body).slice(0, 400)).toEqual([422, refusals[change]]);
      expect((await getTx(w, wallet, id)).status).toBe('FAILED');
      expect(await footprint(w, wallet.id)).toEqual(before);
      expect(await w.eth.balanceOf('USDC', to)).toBe(0n);
    });
  }
});

describe('an approver stops standing while the deciding vote is under way', () => {
  it('a key revoked meanwhile: never answered before a payout its approval sent on', { timeout: 90_000 }, async () => {
    const wallet = await fundedWallet(w, 'approval race: approver revoked', '200');
    const gone = await mintKey(w.h, 'approver revoked during a vote', ['APPROVE']);
    await policy(w, {
      name: 'over 100 USDC needs two approvals (revocation race)',
      priority: 10,
      walletId: wallet.id,
      conditions: { types: ['WITHDRAW', 'BATCH_ITEM'], assets: ['USDC'], amount: { min: '100', currency: 'ASSET' } },
      action: 'REQUIRE_APPROVAL',
      approval: { approvers: { apiKeys: [gone.id, w.approvers[1].id] }, quorum: 2, ttlSeconds: 3600 },
    });
    const to = randomAddress();
    const res = await withdraw(w, wallet, { assetId: w.usdc.id, address: to, amount: '150' });
    expect(res.body.data?.status, JSON.stringify(res.body)).toBe('PENDING_APPROVAL');
    const id = res.body.data.id as string;
    expect((await vote(w, gone, id, 'approve')).body.data).toMatchObject({ status: 'PENDING', approvals: 1 });

    // The second approval comes in; while its transaction is under way (waiting for the
    // sender), the first approver's key is revoked (lost, or its holder left).
    let answered = false;
    let revoke: Promise<ApiResponse> | undefined;
    let answeredDuringVote = false;
    const approved = await whileSenderHeld(
      wallet,
      () => vote(w, w.approvers[1], id, 'approve'),
      async () => {
        revoke = w.h.api('DELETE', `/v1/api-keys/${gone.id}`, { key: w.h.businessKey }).then((r) => {
          answered = true;
          return r;
        });
        await Promise.race([revoke, new Promise((r) => setTimeout(r, 1500))]);
        answeredDuringVote = answered;
      },
    );
    expect((await revoke!).status).toBe(200);
    expect(approved.status, JSON.stringify(approved.body).slice(0, 400)).toBe(200);
    // Once the revocation is answered, the key's approval counts no more: a payout it would
    // send on is not sent. Either the vote saw the revocation (still waiting for a second
    // standing approval), or the revocation waited for the vote that counted the key.
    if (answeredDuringVote) {
      expect(approved.body.data).toMatchObject({ status: 'PENDING', approvals: 1 });
      expect((await getTx(w, wallet, id)).status).toBe('PENDING_APPROVAL');
      expect((await footprint(w, wallet.id)).outbound).toBe(0);
    } else {
      expect(approved.body.data).toMatchObject({ status: 'APPROVED', reason: 'approved by 2 of 2 required' });
    }
  });
});
