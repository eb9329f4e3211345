/**
 * A deposit confirmed while a sweep of its address and asset is in flight waits for the next
 * sweep, "started when this one ends" (sweeps/service.ts): also when this one ends failed. The
 * pipeline is driven by hand (worker stopped), as in sweep-reorg.test.ts; the sweep's transfer
 * is made to revert by taking the child's tokens away with anvil_setStorageAt.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { encodeAbiParameters, keccak256, toHex, type Address } from 'viem';
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
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }],
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

async function confirmedDeposit(child: { address: Address }, amount: string) {
  const receipt = await eth.sendToken('USDC', child.address, amount);
  await eth.mine(1);
  for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') break;
  const { rows } = await sql<{ id: string; asset_id: string }>`
    SELECT id, asset_id FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${receipt.transactionHash})`.execute(
    h.database.db,
  );
  return rows[0]!;
}

/** The sweep jobs the worker would have run meanwhile (and found the sweep in flight): gone, as after they ran. */
async function dropSweepJobs() {
  await sql`DELETE FROM graphile_worker._private_jobs
             WHERE task_id IN (SELECT id FROM graphile_worker._private_tasks WHERE identifier IN ('sweep_deposits', 'sweep_address'))`.execute(
    h.database.db,
  );
}

it('a deposit confirmed while a sweep is in flight is swept after that sweep fails', async () => {
  await h.stopWorker();
  let started = false;
  try {
    const res = await h.api('POST', `${base()}/addresses`, { body: {} });
    expect(res.status).toBe(200);
    const child = res.body.data as { id: string; address: Address };

    // A's sweep starts: its top-up is queued, nothing sent yet.
    const a = await confirmedDeposit(child, '10');
    expect(await h.services.sweeps.sweepAddress(child.id, a.asset_id)).toBe('started');
    const { rows: sweeps } = await sql<{ id: string }>`SELECT id FROM sweeps WHERE address_id = ${child.id}`.execute(h.database.db);
    const sweepId = sweeps[0]!.id;

    // B is confirmed meanwhile: its sweep job finds A's sweep in flight and leaves B to the next one.
    const b = await confirmedDeposit(child, '5');
    expect(await h.services.sweeps.sweepAddress(child.id, b.asset_id)).toBe('in-flight');
    await dropSweepJobs();

    // A's 10 leave the child another way (the token's balance slot, 3, set to B's 5): A's transfer of 10 fails.
    const token = eth.token('USDC').address as Address;
    const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [child.address, 3n]));
    await eth.rpc('anvil_setStorageAt', [token, slot, toHex(5n * USDC, { size: 32 })]);
    expect(await eth.balanceOf('USDC', child.address)).toBe(5n * USDC);

    // The worker carries A's sweep on: the top-up lands, the transfer fails, the sweep ends failed.
    const masterBefore = await eth.balanceOf('USDC', wallet().address);
    await h.startWorker();
    started = true;
    await eventually(
      async () => (await sql<{ status: string }>`SELECT status FROM sweeps WHERE id = ${sweepId}`.execute(h.database.db)).rows[0]!.status,
      (s) => s === 'failed',
      20_000,
    );

    // B, never tried, is swept by the next sweep: its 5 reach the master.
    const swept = await eventually(
      async () => (await h.api('GET', `${base()}/transactions/${b.id}`)).body.data as Record<string, any>,
      (d) => d.assetSwept === true,
      20_000,
    );
    expect(swept.assetSweptHash).toBeTruthy();
    expect(await eth.balanceOf('USDC', wallet().address)).toBe(masterBefore + 5n * USDC);
    expect(await eth.balanceOf('USDC', child.address)).toBe(0n);
  } finally {
    if (!started) await h.startWorker();
  }
});

it("after a failed sweep, a waiting deposit below the wallet's threshold waits on, as it would have", async () => {
  // Sweep from 8 USDC: A (10) is swept, B (5) would not be on its own.
  const patch = (threshold: number) =>
    h.api('PATCH', base(), { body: { configurations: { autoSweeping: { isActive: true, threshold } } } });
  expect((await patch(8)).status).toBe(200);
  await h.stopWorker();
  let started = false;
  try {
    const res = await h.api('POST', `${base()}/addresses`, { body: {} });
    const child = res.body.data as { id: string; address: Address };
    const a = await confirmedDeposit(child, '10');
    expect(await h.services.sweeps.sweepAddress(child.id, a.asset_id)).toBe('started');
    const b = await confirmedDeposit(child, '5');
    await dropSweepJobs();
    const token = eth.token('USDC').address as Address;
    const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [child.address, 3n]));
    await eth.rpc('anvil_setStorageAt', [token, slot, toHex(5n * USDC, { size: 32 })]);

    await h.startWorker();
    started = true;
    const sweepsOf = async () =>
      (await sql<{ status: string }>`SELECT status FROM sweeps WHERE address_id = ${child.id} ORDER BY created_at`.execute(h.database.db))
        .rows;
    await eventually(sweepsOf, (s) => s[0]?.status === 'failed', 20_000);
    // B's judgement (sweep_deposits) has run: no job of it is left.
    await eventually(
      async () =>
        Number(
          (
            await sql<{
              n: string;
            }>`SELECT count(*) AS n FROM graphile_worker.jobs WHERE task_identifier IN ('sweep_deposits', 'sweep_address')`.execute(
              h.database.db,
            )
          ).rows[0]!.n,
        ),
      (n) => n === 0,
      20_000,
    );
    expect(await sweepsOf()).toEqual([{ status: 'failed' }]);
    expect((await h.api('GET', `${base()}/transactions/${b.id}`)).body.data.assetSwept).toBe(false);
    expect(await eth.balanceOf('USDC', child.address)).toBe(5n * USDC);
  } finally {
    if (!started) await h.startWorker();
    await patch(0);
  }
});
