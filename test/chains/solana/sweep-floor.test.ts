/**
 * A SOL sweep of a child whose own SOL payout is still in flight leaves the payout's amount
 * at the child (it is not the sweep's), and, where that amount is below the rent-exempt
 * minimum, the minimum too: Solana refuses a transfer that leaves an account with less than
 * 890,880 lamports unless it empties it, whichever of the two transactions lands first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  confirmed,
  lamportsOf,
  newChild,
  newWallet,
  OPEN,
  sendSol,
  sendUsdc,
  startSweepWorld,
  TOKEN_ACCOUNT_RENT,
  type SweepWorld,
} from './sweep-world.js';

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

describe("a USDC sweep's fee, paid by the master as fee payer, held at the master while the sweep is in flight", () => {
  it("a payout of the master's SOL that would leave less than the sweep's fee is refused; one that leaves it goes", async () => {
    const wallet = await newWallet(w, OPEN);
    const child = await newChild(w, wallet, { disableAutoSweep: true });
    const chain = w.h.services.catalogue.findChain(OPEN, 'testnet')!;
    const sol = chain.assets.find((a) => a.is_native)!;
    const deposit = await confirmed(w, OPEN, await sendUsdc(w, child.address, 3_000_000n));
    const res = await w.h.api('POST', `/v1/wallets/${wallet.id}/transactions/sweep/assets`, {
      key: wallet.apiKey,
      body: { transactionId: deposit },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // No worker: the sweep stays planned, its transfer unsent. The master has no USDC account
    // yet, so the sweep's fee includes that account's rent: the master pays all of it.
    const { rows } = await sql<{ master_fee: string | null; reserved_fee: string | null }>`
      SELECT master_fee::text, reserved_fee::text FROM sweeps WHERE address_id = ${child.id}`.execute(w.h.database.db);
    expect(rows).toHaveLength(1);
    const sweepFee = BigInt(rows[0]!.master_fee ?? '0');
    expect(sweepFee).toBeGreaterThan(TOKEN_ACCOUNT_RENT);
    expect(BigInt(rows[0]!.reserved_fee ?? '0')).toBe(0n);

    const to = (await newChild(w, await newWallet(w, OPEN, 0n))).address;
    await sendSol(w, to, 1_000_000_000n);
    const balance = await lamportsOf(w, wallet.address);
    const sol9 = (v: bigint) => `${v / 1_000_000_000n}.${(v % 1_000_000_000n).toString().padStart(9, '0')}`;
    // Leaves 1,000,000 lamports: enough for the payout's own fee and the rent-exempt floor,
    // not for the sweep's fee beside it (whichever landed second would fail).
    const greedy = await w.h.api('POST', `/v1/wallets/${wallet.id}/withdraw`, {
      key: wallet.apiKey,
      body: { assetId: sol.id, address: to, amount: sol9(balance - 1_000_000n) },
    });
    expect(greedy.status, JSON.stringify(greedy.body)).toBe(422);
    expect(greedy.body.error).toBe('INSUFFICIENT_BALANCE');
    const modest = await w.h.api('POST', `/v1/wallets/${wallet.id}/withdraw`, {
      key: wallet.apiKey,
      body: { assetId: sol.id, address: to, amount: sol9(balance - 1_000_000n - sweepFee) },
    });
    expect(modest.status, JSON.stringify(modest.body)).toBe(200);
  });
});
