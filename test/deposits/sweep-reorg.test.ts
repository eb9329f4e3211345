/**
 * A sweep whose top-up and transfer are reorganised away after the sweep was recorded, on
 * anvil (evm_snapshot / evm_revert give the chain another branch at the same heights). The
 * worker is stopped while the branch is switched and the confirmation check (the body of
 * the `outbound_confirm` job) is run once by hand per row, as in test/withdrawals/reorg.test.ts;
 * then the real worker takes over again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Address } from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';

let h: Harness;
let eth: TestChain;
let indexer: ChainIndexer;
const USDC = 10n ** 6n;

beforeAll(async () => {
  h = await startHarness({
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 2 }],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
  });
  eth = chainOf(h, 'devnet-eth');
  indexer = h.services.deposits.indexer(h.services.catalogue.findChain('devnet-eth', 'testnet')!);
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;

async function rowsOf(sweepId: string) {
  const { rows } = await sql<{ id: string; purpose: string; stage: string; hash: string }>`
    SELECT id, purpose, stage, hash FROM outbound_txs WHERE owner_id = ${sweepId} ORDER BY created_at`.execute(h.database.db);
  return rows;
}

/** A confirmed deposit of `amount` USDC to a new child that auto-sweep leaves alone. */
async function confirmedDeposit(amount: string) {
  const res = await h.api('POST', `${base()}/addresses`, { body: { disableAutoSweep: true } });
  expect(res.status).toBe(200);
  const child = res.body.data as { id: string; address: Address };
  const receipt = await eth.sendToken('USDC', child.address, amount);
  await eth.mine(2);
  for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') break;
  const { rows } = await sql<{ id: string }>`
    SELECT id FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${receipt.transactionHash})`.execute(h.database.db);
  return { child, depositId: rows[0]!.id };
}

describe('a sweep after a reorganisation', () => {
  it('top-up reorged away before the transfer is sent: sent again, settled again, one transfer only', async () => {
    await h.stopWorker();
    try {
      const { child, depositId } = await confirmedDeposit('7');
      const masterBefore = await eth.balanceOf('USDC', wallet().address);
      expect((await h.api('POST', `${base()}/transactions/sweep/assets`, { body: { transactionId: depositId } })).status).toBe(200);
      const { rows: sweeps } = await sql<{ id: string }>`SELECT id FROM sweeps WHERE address_id = ${child.id}`.execute(h.database.db);
      const sweepId = sweeps[0]!.id;

      // The pipeline by hand: the top-up is mined and settles, which queues the transfer (not sent).
      const snap = await eth.snapshot();
      const [topup] = await rowsOf(sweepId);
      await h.services.outbound.send(topup!.id);
      await h.services.outbound.track(topup!.id);
      expect((await rowsOf(sweepId)).map((r) => [r.purpose, r.stage])).toEqual([
        ['sweep-topup', 'mined'],
        ['sweep', 'created'],
      ]);

      // The top-up's block is replaced: back to 'broadcast', the same bytes sent and settled again.
      await eth.revert(snap);
      await eth.mine(3);
      await h.services.outbound.confirm(topup!.id);
      expect((await h.services.outbound.get(topup!.id))!.stage).toBe('broadcast');
      await h.services.outbound.track(topup!.id);
      await h.services.outbound.track(topup!.id);
      const steps = await rowsOf(sweepId);
      expect(steps.map((r) => [r.purpose, r.stage])).toEqual([
        ['sweep-topup', 'mined'],
        ['sweep', 'created'],
      ]);

      await h.startWorker();
      await eventually(
        async () => (await h.api('GET', `${base()}/transactions/${depositId}`)).body.data as Record<string, any>,
        (d) => d.assetSwept === true,
        20_000,
      );
      expect(await eth.balanceOf('USDC', wallet().address)).toBe(masterBefore + 7n * USDC);
      expect(await eth.balanceOf('USDC', child.address)).toBe(0n);
      expect((await rowsOf(sweepId)).map((r) => [r.purpose, r.stage])).toEqual([
        ['sweep-topup', 'mined'],
        ['sweep', 'mined'],
      ]);
    } finally {
      await h.startWorker();
    }
  });

  it('top-up and transfer reorged away: the same bytes are sent again, the funds reach the master once', async () => {
    const { child, depositId } = await confirmedDeposit('10');
    const masterBefore = await eth.balanceOf('USDC', wallet().address);

    // The branch the sweep is reorganised out of starts here: the deposit is final before it.
    const snap = await eth.snapshot();
    expect((await h.api('POST', `${base()}/transactions/sweep/assets`, { body: { transactionId: depositId } })).status).toBe(200);
    const swept = await eventually(
      async () => (await h.api('GET', `${base()}/transactions/${depositId}`)).body.data as Record<string, any>,
      (d) => d.assetSwept === true,
      20_000,
    );
    expect(await eth.balanceOf('USDC', wallet().address)).toBe(masterBefore + 10n * USDC);
    await h.stopWorker();
    const { rows: sweeps } = await sql<{ id: string }>`SELECT id FROM sweeps WHERE address_id = ${child.id}`.execute(h.database.db);
    const steps = await rowsOf(sweeps[0]!.id);
    expect(steps.map((r) => [r.purpose, r.stage])).toEqual([
      ['sweep-topup', 'mined'],
      ['sweep', 'mined'],
    ]);

    // The other branch: the same heights, blocks without the top-up nor the transfer.
    await eth.revert(snap);
    await eth.mine(3);
    expect(await eth.balanceOf('USDC', child.address)).toBe(10n * USDC);
    expect(await eth.balanceOf('USDC', wallet().address)).toBe(masterBefore);
    for (const r of steps) await h.services.outbound.confirm(r.id);

    // The worker sends the stored bytes again (the master's nonce is not left a hole, the
    // child's transfer is not lost), and the re-settled top-up queues no second transfer.
    await h.startWorker();
    await eventually(
      async () => (await eth.balanceOf('USDC', wallet().address)).toString(),
      (b) => b === (masterBefore + 10n * USDC).toString(),
      20_000,
    );
    expect(await eth.balanceOf('USDC', child.address)).toBe(0n);
    const again = await eventually(
      () => rowsOf(sweeps[0]!.id),
      (list) => list.every((r) => r.stage === 'mined'),
    );
    expect(again.map((r) => [r.purpose, r.hash])).toEqual(steps.map((r) => [r.purpose, r.hash]));
    const after = (await h.api('GET', `${base()}/transactions/${depositId}`)).body.data as Record<string, any>;
    expect(after).toMatchObject({ assetSwept: true, assetSweptHash: swept.assetSweptHash });
  });
  it('transfer reorged away and reverting when sent again (it also moved a deposit the reorg dropped): the deposit is not left swept, a new sweep moves it', async () => {
    const { child, depositId } = await confirmedDeposit('10');
    const masterBefore = await eth.balanceOf('USDC', wallet().address);

    // A second deposit, mined after the fork point and never confirmed: the sweep moves the
    // whole balance (15), its 5 included. The other branch drops it (its sender sent it no more).
    const snap = await eth.snapshot();
    await eth.sendToken('USDC', child.address, '5');
    expect((await h.api('POST', `${base()}/transactions/sweep/assets`, { body: { transactionId: depositId } })).status).toBe(200);
    const swept = await eventually(
      async () => (await h.api('GET', `${base()}/transactions/${depositId}`)).body.data as Record<string, any>,
      (d) => d.assetSwept === true,
      20_000,
    );
    expect(swept.assetSweptAmount).toBe('10');
    expect(await eth.balanceOf('USDC', wallet().address)).toBe(masterBefore + 15n * USDC);
    await h.stopWorker();
    const { rows: sweeps } = await sql<{ id: string }>`SELECT id FROM sweeps WHERE address_id = ${child.id}`.execute(h.database.db);
    const steps = await rowsOf(sweeps[0]!.id);

    // The other branch: the top-up and the transfer of 15 are sent again; the child holds 10, so the transfer reverts.
    await eth.revert(snap);
    await eth.mine(3);
    expect(await eth.balanceOf('USDC', child.address)).toBe(10n * USDC);
    for (const r of steps) await h.services.outbound.confirm(r.id);
    await h.startWorker();
    await eventually(
      () => rowsOf(sweeps[0]!.id),
      (list) => list.find((r) => r.purpose === 'sweep')?.stage === 'failed',
      20_000,
    );

    // The deposit's 10 are still at the child: the deposit is not left swept by a transfer
    // that moved nothing; a new sweep carries them to the master.
    const after = await eventually(
      async () => (await h.api('GET', `${base()}/transactions/${depositId}`)).body.data as Record<string, any>,
      (d) => d.assetSwept === true && d.assetSweptHash !== swept.assetSweptHash,
      20_000,
    );
    expect(after.assetSweptAmount).toBe('10');
    expect(await eth.balanceOf('USDC', child.address)).toBe(0n);
    expect(await eth.balanceOf('USDC', wallet().address)).toBe(masterBefore + 10n * USDC);
  });
});
