/**
 * An auto-settlement from a child address and an auto-sweep of the same child. A deposit
 * below the auto-sweep threshold is settled from the child by its rule; a larger one to the
 * same child, confirmed beside it, is swept, and the sweep moves the child's whole balance.
 * The sweep must leave the smaller deposit, which the rule has taken, where the rule will send
 * it from: otherwise the rule's settlement finds its money gone (auto-settlement.failed) and the
 * deposit is reported swept though its rule was to move it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';

let h: Harness;
let eth: TestChain;
let indexer: ChainIndexer;
const USDC = 10n ** 6n;

const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;

beforeAll(async () => {
  h = await startHarness({
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
  });
  eth = chainOf(h, 'devnet-eth');
  expect((await h.api('PATCH', `${base()}/auto-settlements`, { body: { isActive: true } })).status).toBe(200);
  // Deposits of 10 USDC or more are swept to the master; smaller ones stay on the child.
  const sweeping = await h.api('PATCH', base(), { body: { configurations: { autoSweeping: { isActive: true, threshold: 10 } } } });
  expect(sweeping.status, JSON.stringify(sweeping.body)).toBe(200);
  indexer = h.services.deposits.indexer(h.services.catalogue.findChain('devnet-eth', 'testnet')!);
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

async function drain() {
  for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') return;
}
async function depositId(hash: string): Promise<string> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${hash})`.execute(
    h.database.db,
  );
  return rows[0]!.id;
}
/** A new child address whose rule sends all its USDC to a fresh destination. */
async function childWithRule() {
  const res = await h.api('POST', `${base()}/addresses`, { body: {} });
  expect(res.status).toBe(200);
  const child = res.body.data as { id: string; address: string };
  const dest = privateKeyToAccount(generatePrivateKey()).address;
  const rule = await h.api('POST', `${base()}/addresses/${child.id}/auto-settlements/rules`, {
    body: {
      name: 'all USDC out',
      source: { assets: ['USDC'], blockchain: 'devnet-eth' },
      destination: { asset: 'USDC', address: dest, blockchain: 'devnet-eth' },
    },
  });
  expect(rule.status, JSON.stringify(rule.body)).toBe(200);
  const usdc = h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDC')!;
  return { child, dest, usdc };
}

async function settlementOf(deposit: string) {
  const { rows } = await sql<{ id: string; status: string; stage: string; error: string | null; from_index: number }>`
    SELECT id, status, stage, error, from_index FROM auto_settlements WHERE deposit_id = ${deposit}`.execute(h.database.db);
  return rows;
}

describe('an auto-sweep of a child whose smaller deposit a rule settles from the child', () => {
  it('leaves that deposit to the rule: both deposits reach the destination, neither settlement fails', async () => {
    const { child, dest, usdc } = await childWithRule();
    let d1 = '';
    try {
      // The jobs the confirmations queue are done here, in the order a busy worker may run them.
      await h.stopWorker();
      const small = await eth.sendToken('USDC', child.address, '5');
      const large = await eth.sendToken('USDC', child.address, '20');
      await drain();
      d1 = await depositId(small.transactionHash);
      const d2 = await depositId(large.transactionHash);
      // auto_settle_deposits: the small deposit stays on the child, so its rule takes it there.
      await h.services.autoSettlements.takeConfirmed([d1, d2]);
      const [queued] = await settlementOf(d1);
      expect(queued).toMatchObject({ status: 'pending', stage: 'queued' });
      expect(queued!.from_index).not.toBe(0);
      expect(await settlementOf(d2)).toEqual([]);
      // sweep_address for the large deposit runs before the settlement's job.
      expect(await h.services.sweeps.sweepAddress(child.id, usdc.id)).toBe('started');
      const { rows: sweeps } = await sql<{ amount: string }>`
        SELECT amount::text FROM sweeps WHERE address_id = ${child.id} AND asset_id = ${usdc.id}`.execute(h.database.db);
      // What the rule took is not the sweep's.
      expect(sweeps.map((s) => BigInt(s.amount))).toEqual([20n * USDC]);
      await h.services.autoSettlements.executor.run(queued!.id);
    } finally {
      await h.startWorker();
    }

    const settled = await eventually(
      () => settlementOf(d1),
      (rows) => rows.length === 1 && rows[0]!.status !== 'pending',
      30_000,
    );
    expect(settled[0], JSON.stringify(settled)).toMatchObject({ status: 'success' });
    // The large deposit, swept, is settled from the master: all 25 USDC reach the destination.
    await eventually(
      () => eth.balanceOf('USDC', dest),
      (b) => b === 25n * USDC,
      30_000,
    );
    expect(await eth.balanceOf('USDC', child.address)).toBe(0n);
    // The small deposit was moved by its rule, not by the sweep.
    const { rows } = await sql<{ asset_swept: boolean }>`SELECT asset_swept FROM transactions WHERE id = ${d1}`.execute(h.database.db);
    expect(rows[0]!.asset_swept).toBe(false);
  });

  it('a sweep that ran before the take job carried the small deposit: the rule takes it from the master, nothing fails', async () => {
    const { child, dest, usdc } = await childWithRule();
    let d1 = '';
    let d2 = '';
    try {
      await h.stopWorker();
      const small = await eth.sendToken('USDC', child.address, '5');
      const large = await eth.sendToken('USDC', child.address, '20');
      await drain();
      d1 = await depositId(small.transactionHash);
      d2 = await depositId(large.transactionHash);
      // sweep_address first this time: no rule has taken anything yet, so it moves the whole balance.
      expect(await h.services.sweeps.sweepAddress(child.id, usdc.id)).toBe('started');
      // auto_settle_deposits next, while the sweep is in flight.
      await h.services.autoSettlements.takeConfirmed([d1, d2]);
    } finally {
      await h.startWorker();
    }

    const settled = await eventually(
      async () => [...(await settlementOf(d1)), ...(await settlementOf(d2))],
      (rows) => rows.length === 2 && rows.every((r) => r.status !== 'pending'),
      30_000,
    );
    expect(
      settled.map((r) => r.status),
      JSON.stringify(settled),
    ).toEqual(['success', 'success']);
    // The small deposit, carried by the sweep, was taken at the master, not at the emptied child.
    expect(settled.map((r) => r.from_index)).toEqual([0, 0]);
    // Both deposits reach the destination: 25 USDC.
    await eventually(
      () => eth.balanceOf('USDC', dest),
      (b) => b === 25n * USDC,
      30_000,
    );
  });
});
