/**
 * A SOL sweep of a child whose own SOL payout is still in flight leaves the payout's amount
 * at the child (it is not the sweep's), and, where that amount is below the rent-exempt
 * minimum, the minimum too: Solana refuses a transfer that leaves an account with less than
 * 890,880 lamports unless it empties it, whichever of the two transactions lands first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { confirmed, lamportsOf, newChild, newWallet, OPEN, sendSol, startSweepWorld, type SweepWorld } from './sweep-world.js';

let w: SweepWorld;

beforeAll(async () => {
  // No worker: the child's payout stays queued (accepted, not sent) while the sweep is planned.
  w = await startSweepWorld({ worker: false });
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

const FLOOR = 890_880n;

describe('a SOL sweep beside a pending SOL payout of the child', () => {
  it('below the rent-exempt minimum: the sweep starts, leaving the payout and the minimum at the child', async () => {
    const wallet = await newWallet(w, OPEN);
    const child = await newChild(w, wallet, { disableAutoSweep: true });
    const sol = w.h.services.catalogue.findChain(OPEN, 'testnet')!.assets.find((a) => a.is_native)!;
    // An existing outside account (a new one could not take less than the minimum).
    const to = (await newChild(w, await newWallet(w, OPEN, 0n))).address;
    await sendSol(w, to, 1_000_000_000n);
    const deposit = await confirmed(w, OPEN, await sendSol(w, child.address, 1_000_000_000n));
    expect(await lamportsOf(w, child.address)).toBe(1_000_000_000n);

    const payout = await w.h.api('POST', `/v1/wallets/${wallet.id}/addresses/${child.id}/withdraw`, {
      key: wallet.apiKey,
      body: { assetId: sol.id, address: to, amount: '0.0005' },
    });
    expect(payout.status, JSON.stringify(payout.body)).toBe(200);

    const res = await w.h.api('POST', `/v1/wallets/${wallet.id}/transactions/sweep/assets`, {
      key: wallet.apiKey,
      body: { transactionId: deposit },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { rows } = await sql<{ amount: string }>`
      SELECT amount::text FROM sweeps WHERE address_id = ${child.id} AND asset_id = ${sol.id}`.execute(w.h.database.db);
    expect(rows.map((r) => BigInt(r.amount))).toEqual([1_000_000_000n - 500_000n - FLOOR]);
  });

  it('two payouts that together reach the minimum: the minimum is left too (the first to land would leave the other below it)', async () => {
    const wallet = await newWallet(w, OPEN);
    const child = await newChild(w, wallet, { disableAutoSweep: true });
    const sol = w.h.services.catalogue.findChain(OPEN, 'testnet')!.assets.find((a) => a.is_native)!;
    const to = (await newChild(w, await newWallet(w, OPEN, 0n))).address;
    await sendSol(w, to, 1_000_000_000n);
    const deposit = await confirmed(w, OPEN, await sendSol(w, child.address, 1_000_000_000n));
    for (const amount of ['0.0005', '0.0005']) {
      const payout = await w.h.api('POST', `/v1/wallets/${wallet.id}/addresses/${child.id}/withdraw`, {
        key: wallet.apiKey,
        body: { assetId: sol.id, address: to, amount },
      });
      expect(payout.status, JSON.stringify(payout.body)).toBe(200);
    }
    const res = await w.h.api('POST', `/v1/wallets/${wallet.id}/transactions/sweep/assets`, {
      key: wallet.apiKey,
      body: { transactionId: deposit },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { rows } = await sql<{ amount: string }>`
      SELECT amount::text FROM sweeps WHERE address_id = ${child.id} AND asset_id = ${sol.id}`.execute(w.h.database.db);
    // Without the minimum, the child would hold 1,000,000 after the sweep: either payout then leaves 500,000 (refused).
    expect(rows.map((r) => BigInt(r.amount))).toEqual([1_000_000_000n - 1_000_000n - FLOOR]);
  });
});
