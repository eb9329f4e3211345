/**
 * One lock order for every spend of a sender's funds under velocity rules: the sender's
 * withdrawal lock (`withdraw:<chain>:<address>`) before the policies' velocity windows, as a
 * withdrawal takes them. An API swap and an asset recovery used to decide their policies
 * (taking the wallet's window) before reserving their funds (taking the withdrawal lock): with
 * a withdrawal of the same sender queued on that lock ahead of them, the two requests waited
 * on each other and PostgreSQL aborted one after deadlock_timeout (503 CONCURRENT_UPDATE).
 *
 * The sequence is made deterministic: the test holds the sender's withdrawal lock, a
 * withdrawal queues on it, then the swap (or recovery) queues on it too (having taken the
 * wallet's window already, before the fix); the test commits, and both must be accepted.
 */
import { sql } from 'kysely';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressKey } from '../../src/chains/address-key.js';
import type { ApiResponse } from '../support/harness.js';
import { eventually } from '../support/fixtures.js';
import { randomAddress } from '../withdrawals/world.js';
import { ETH, fundedWallet, getTx, policy, startPolicyWorld, withdraw, type PolicyWorld, type TestWallet } from './world.js';

let w: PolicyWorld;

beforeAll(async () => {
  w = await startPolicyWorld();
}, 120_000);
afterAll(async () => {
  await w?.stop();
});

/** A velocity rule on the wallet far from its limit: it only makes payouts take the wallet's window lock. */
async function velocityRule(wallet: TestWallet): Promise<void> {
  await policy(w, {
    name: 'at most 100 payouts an hour',
    priority: 1,
    walletId: wallet.id,
    conditions: { velocity: { measure: 'COUNT', scope: 'WALLET', windowSeconds: 3600, limit: '100' } },
    action: 'BLOCK',
  });
}

/** Its status once it is no longer PENDING, a block mined now and then (the devnet mines only on a transaction: the last one sent would never reach its depth). */
async function outcome(wallet: TestWallet, id: string): Promise<string> {
  const t = await eventually(
    async () => {
      await w.eth.mine(1);
      await new Promise((r) => setTimeout(r, 100));
      return getTx(w, wallet, id);
    },
    (t) => t.status !== 'PENDING',
    60_000,
  );
  return t.status as string;
}

/**
 * Holds `sender`'s withdrawal lock in a transaction of its own while `first` and then `second`
 * queue on it (each seen waiting on that very lock), then commits; their answers.
 */
async function queuedBehindLock(
  wallet: TestWallet,
  sender: string,
  first: () => Promise<ApiResponse>,
  second: () => Promise<ApiResponse>,
): Promise<[ApiResponse, ApiResponse]> {
  const db = w.h.database.db;
  const { rows } = await sql<{ chain_id: string }>`SELECT chain_id FROM wallets WHERE id = ${wallet.id}`.execute(db);
  const key = `withdraw:${rows[0]!.chain_id}:${addressKey(sender)}`;
  // Waiters on that advisory lock in this test's database (bigint keys: classid the high half, objid the low).
  const waiting = async () =>
    Number(
      (
        await sql<{ n: string }>`
          SELECT count(*)::text AS n FROM pg_locks
           WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND ((classid::bigint << 32) | objid::bigint) = hashtextextended(${key}, 0)`.execute(db)
      ).rows[0]!.n,
    );
  const { sent } = await db.transaction().execute(async (tx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(tx);
    const a = first();
    await eventually(waiting, (n) => n === 1, 30_000);
    const b = second();
    await eventually(waiting, (n) => n === 2, 30_000);
    // Wrapped: returned bare, the transaction would wait for the responses, which wait for its lock.
    return { sent: Promise.all([a, b]) };
  });
  return sent;
}

describe('the sender’s withdrawal lock comes before the velocity windows', () => {
  it('a withdrawal and an API swap of one sender, queued on its lock in that order: both accepted', { timeout: 90_000 }, async () => {
    const wallet = await fundedWallet(w, 'lock order: swap', '10');
    await velocityRule(wallet);
    const usdt = w.h.services.catalogue.findChain(ETH, 'testnet')!.assets.find((a) => a.symbol === 'USDT')!.id;
    const payee = randomAddress();
    const [withdrawal, swap] = await queuedBehindLock(
      wallet,
      wallet.address,
      () => withdraw(w, wallet, { assetId: w.usdc.id, address: payee, amount: '4' }),
      () =>
        w.h.api('POST', `/v1/wallets/${wallet.id}/swaps/execute`, {
          key: wallet.apiKey,
          body: { fromAssetId: w.usdc.id, toAssetId: usdt, amount: '5' },
        }),
    );
    // Before the fix one of them was 503 CONCURRENT_UPDATE (a deadlock), about a second later.
    expect(withdrawal.status, JSON.stringify(withdrawal.body)).toBe(200);
    expect(swap.status, JSON.stringify(swap.body)).toBe(200);
    expect(withdrawal.body.data).toMatchObject({ type: 'WITHDRAW', amount: '4' });
    expect(swap.body.data).toMatchObject({ type: 'SWAP', amount: '5' });

    // Both written, each once, both counted in the wallet's window.
    const { rows } = await sql<{ type: string; amount: string }>`
      SELECT type, amount::text FROM transactions WHERE wallet_id = ${wallet.id} ORDER BY type`.execute(w.h.database.db);
    expect(rows).toEqual([
      { type: 'SWAP', amount: '5000000' },
      { type: 'WITHDRAW', amount: '4000000' },
    ]);
    const swaps = await sql<{ id: string }>`SELECT id FROM swaps WHERE wallet_id = ${wallet.id}`.execute(w.h.database.db);
    expect(swaps.rows.map((r) => r.id)).toEqual([swap.body.data.id]);

    // The funds check held both (9 of the 10 USDC): 2 more do not fit.
    const over = await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '2' });
    expect(over.status, JSON.stringify(over.body)).toBe(422);
    expect(over.body.error).toBe('INSUFFICIENT_BALANCE');
    // And both are done on chain.
    expect(await outcome(wallet, withdrawal.body.data.id)).toBe('SUCCESS');
    expect(await outcome(wallet, swap.body.data.id)).toBe('SUCCESS');
    expect(await w.eth.balanceOf('USDC', payee)).toBe(4_000_000n);
    expect(await w.eth.balanceOf('USDC', wallet.address)).toBe(1_000_000n);
    expect(await w.eth.balanceOf('USDT', wallet.address)).toBeGreaterThan(0n);
  });

  it('a withdrawal and an asset recovery of one child, queued on its lock in that order: both accepted', { timeout: 90_000 }, async () => {
    const wallet = await fundedWallet(w, 'lock order: salvage', '0');
    await velocityRule(wallet);
    const res = await w.h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } });
    expect(res.status).toBe(200);
    const child = res.body.data as { id: string; address: Address };
    // 1 ETH at the child: it pays its own fees, so the recovery reserves like a withdrawal.
    await w.eth.rpc('anvil_setBalance', [child.address, '0xDE0B6B3A7640000']);
    await w.eth.sendToken('USDC', child.address, '10');
    const payee = randomAddress();
    const recipient = randomAddress();
    const [withdrawal, salvage] = await queuedBehindLock(
      wallet,
      child.address,
      () => withdraw(w, wallet, { assetId: w.usdc.id, address: payee, amount: '4' }, { addressId: child.id }),
      () =>
        w.h.api('POST', `/v1/wallets/${wallet.id}/salvage`, {
          key: wallet.apiKey,
          body: {
            senderAddress: child.address,
            recipientAddress: recipient,
            amount: '0.5',
            blockchainId: w.h.services.catalogue.findChain(ETH, 'testnet')!.row.blockchain_id,
          },
        }),
    );
    expect(withdrawal.status, JSON.stringify(withdrawal.body)).toBe(200);
    expect(salvage.status, JSON.stringify(salvage.body)).toBe(200);
    expect(salvage.body.data).toMatchObject({ type: 'SALVAGE', status: 'PENDING' });

    const { rows } = await sql<{ type: string; reserved: boolean }>`
      SELECT type, reserved_fee IS NOT NULL AS reserved FROM transactions WHERE wallet_id = ${wallet.id} ORDER BY type`.execute(
      w.h.database.db,
    );
    // The recovery paid its own fee from the child: reserved as a withdrawal is, no top-up.
    expect(rows).toEqual([
      { type: 'SALVAGE', reserved: true },
      { type: 'WITHDRAW', reserved: true },
    ]);
    expect(await outcome(wallet, withdrawal.body.data.id)).toBe('SUCCESS');
    expect(await outcome(wallet, salvage.body.data.id)).toBe('SUCCESS');
    expect(await w.eth.balanceOf('USDC', payee)).toBe(4_000_000n);
    expect(await w.eth.pub.getBalance({ address: recipient as Address })).toBe(5n * 10n ** 17n);
  });
});
