/**
 * The work that follows deposit.confirmed runs as jobs queued in the indexer's transaction
 * (src/subscriptions.ts), not inside it: a failing job cannot stop indexing, and a job run
 * twice (a retry, or two workers) does its work once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { taskList } from '../../src/jobs/tasks.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';

let h: Harness;
let eth: TestChain;
let indexer: ChainIndexer;

beforeAll(async () => {
  h = await startHarness({
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
  });
  eth = chainOf(h, 'devnet-eth');
  indexer = h.services.deposits.indexer(h.services.catalogue.findChain('devnet-eth', 'testnet')!);
});
afterAll(async () => {
  await h?.stop();
});

const wallet = () => h.wallets['devnet-eth']!;
async function drain() {
  for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') return;
  throw new Error('indexer did not reach the head');
}
async function newAddress() {
  const res = await h.api('POST', `/v1/wallets/${wallet().id}/addresses`, { body: {} });
  expect(res.status).toBe(200);
  return res.body.data as { id: string; address: string };
}
async function deposit(hash: string) {
  const { rows } = await sql<{ id: string }>`SELECT id FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${hash})`.execute(
    h.database.db,
  );
  if (!rows[0]) return undefined;
  const res = await h.api('GET', `/v1/wallets/${wallet().id}/transactions/${rows[0].id}`);
  return res.body.data as Record<string, any>;
}
async function webhookEvents(transactionId: string) {
  const { rows } = await sql<{
    name: string;
  }>`SELECT name FROM events WHERE transaction_id = ${transactionId} ORDER BY created_at, id`.execute(h.database.db);
  return rows.map((r) => r.name);
}
async function sweepJobs(depositId: string) {
  // The view graphile_worker.jobs has no payload: read the table behind it.
  const { rows } = await sql<{ payload: unknown; attempts: number; last_error: string | null }>`
    SELECT j.payload, j.attempts, j.last_error FROM graphile_worker._private_jobs j
      JOIN graphile_worker._private_tasks t ON t.id = j.task_id
     WHERE t.identifier = 'sweep_deposits' AND (j.payload::jsonb) -> 'depositIds' ? ${depositId}::text`.execute(h.database.db);
  return rows;
}

describe('deposit.confirmed runs its treasury work as jobs', () => {
  it('a failing job does not stop the indexer: the next deposit is credited, and the retried job sweeps both once fixed', async () => {
    const child = await newAddress();
    const sweeps = h.services.sweeps;
    const original = sweeps.sweepConfirmed;
    let failures = 0;
    // A bug in treasury code: the job queued by the confirmation throws.
    sweeps.sweepConfirmed = async () => {
      failures++;
      throw new Error('simulated bug in the auto-sweep decision');
    };
    let first: { transactionHash: string };
    let second: { transactionHash: string };
    try {
      first = await eth.sendToken('USDC', child.address, '2');
      await drain();
      const a = (await deposit(first.transactionHash))!;
      expect(a).toMatchObject({ status: 'SUCCESS' });
      await eventually(
        async () => failures,
        (n) => n >= 1,
      );
      const failed = await eventually(
        () => sweepJobs(a.id),
        (jobs) => jobs.some((j) => j.last_error?.includes('simulated bug') === true),
      );
      expect(failed[0]!.attempts).toBeGreaterThanOrEqual(1);

      second = await eth.sendToken('USDC', child.address, '3');
      await drain();
      const b = (await deposit(second.transactionHash))!;
      expect(b).toMatchObject({ status: 'SUCCESS' });
      expect(await webhookEvents(b.id)).toEqual(['deposit.processing', 'deposit.success']);
    } finally {
      sweeps.sweepConfirmed = original;
    }
    // Fixed: the jobs are retried (graphile-worker's backoff) and one sweep takes both deposits.
    for (const hash of [first.transactionHash, second.transactionHash])
      await eventually(
        () => deposit(hash),
        (d) => d?.assetSwept === true,
        30_000,
      );
    const { rows } = await sql<{ status: string }>`SELECT status FROM sweeps WHERE address_id = ${child.id}`.execute(h.database.db);
    expect(rows).toEqual([{ status: 'success' }]);
  });

  it('the sweep_deposits job run twice at once (a retry, or two workers) sweeps once', async () => {
    const child = await newAddress();
    const run = taskList(h.services).sweep_deposits as unknown as (payload: unknown) => Promise<void>;
    await h.stopWorker();
    let hash: string;
    let depositId: string;
    try {
      hash = (await eth.sendToken('USDC', child.address, '4')).transactionHash;
      await drain();
      depositId = (await deposit(hash))!.id;
      const [queued] = await sweepJobs(depositId);
      expect(queued).toBeDefined();
      // The queued job, twice at once, while the worker that will also run it is away.
      await Promise.all([run(queued!.payload), run(queued!.payload)]);
      // One sweep_address job for the address (its job key folds the second into the first).
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
         WHERE t.identifier = 'sweep_address' AND (j.payload::jsonb) ->> 'addressId' = ${child.id}`.execute(h.database.db);
      expect(rows[0]!.n).toBe(1);
    } finally {
      await h.startWorker();
    }
    const swept = await eventually(
      () => deposit(hash),
      (d) => d?.assetSwept === true,
      30_000,
    );
    expect(swept).toMatchObject({ assetSweptAmount: '4' });
    await eventually(
      () => sweepJobs(depositId),
      (jobs) => jobs.length === 0, // the queued one ran as well (a third run)
    );
    const sweepRows = await sql<{ status: string }>`SELECT status FROM sweeps WHERE address_id = ${child.id}`.execute(h.database.db);
    expect(sweepRows.rows).toEqual([{ status: 'success' }]);
    const topups = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM outbound_txs WHERE purpose = 'sweep-topup' AND lower(to_address) = lower(${child.address})`.execute(
      h.database.db,
    );
    expect(topups.rows[0]!.n).toBe(1);
    expect((await webhookEvents(depositId)).filter((e) => e.startsWith('deposit.swept'))).toEqual(['deposit.swept.success']);
  });

  it('the settle_deposits job run twice at once creates one INSTANT run and pays once', async () => {
    const w = wallet();
    const to = `0x${'ab'.repeat(19)}${Math.floor(Math.random() * 256)
      .toString(16)
      .padStart(2, '0')}`;
    const created = await h.api('POST', `/v1/wallets/${w.id}/beneficiaries`, {
      body: { name: 'Instant', address: to, settlementFrequency: 'INSTANT' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const beneficiaryId = created.body.data.id as string;
    await h.stopWorker();
    let depositId: string;
    try {
      const hash = (await eth.sendToken('USDC', w.address, '6')).transactionHash; // straight to the master
      await drain();
      depositId = (await deposit(hash))!.id;
      // The queued job's work, twice at once, while the worker that will also run it is away.
      await Promise.all([h.services.settlements.instantConfirmed([depositId]), h.services.settlements.instantConfirmed([depositId])]);
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM settlement_runs WHERE period LIKE ${`deposit:${depositId}%`}`.execute(h.database.db);
      expect(rows[0]!.n).toBe(1);
    } finally {
      await h.startWorker();
    }
    const run = await eventually(
      () => h.services.settlements.findRun(beneficiaryId, `deposit:${depositId}`),
      (r) => r !== undefined && r.status !== 'pending',
      30_000,
    );
    expect(run).toMatchObject({ status: 'done' });
    expect(run!.transaction_ids).toHaveLength(1);
    await eventually(
      () => eth.balanceOf('USDC', to),
      (v) => v > 0n,
      30_000,
    );
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM settlement_runs WHERE period LIKE ${`deposit:${depositId}%`}`.execute(h.database.db);
    expect(rows[0]!.n).toBe(1);
  });
});

describe('event storage', () => {
  it("a deposit's event bodies are kept compressed in the events row (LZ4 where the server has it), not moved to the TOAST table (migration 040)", async () => {
    const child = await newAddress();
    const { transactionHash } = await eth.sendToken('USDC', child.address, '3');
    await drain();
    const d = (await deposit(transactionHash))!;
    const { rows } = await sql<{ name: string; raw: number; stored: number; compression: string | null; chunk: string | null }>`
      SELECT name, octet_length(body) AS raw, pg_column_size(body) AS stored, pg_column_compression(body) AS compression,
             pg_column_toast_chunk_id(body)::text AS chunk
        FROM events WHERE transaction_id = ${d.id} ORDER BY created_at, id`.execute(h.database.db);
    expect(rows.map((r) => r.name)).toEqual(['deposit.processing', 'deposit.success']);
    // The column: kept in the row (storage 'm'), LZ4 exactly where the server was built with it.
    const { rows: column } = await sql<{ storage: string; method: string; lz4: boolean }>`
      SELECT attstorage::text AS storage, attcompression::text AS method,
             (SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression') AS lz4
        FROM pg_attribute WHERE attrelid = 'events'::regclass AND attname = 'body'`.execute(h.database.db);
    expect(column[0]!.storage).toBe('m');
    expect(column[0]!.method).toBe(column[0]!.lz4 ? 'l' : '');
    const method = column[0]!.lz4 ? 'lz4' : 'pglz';
    for (const r of rows) {
      // A whole Transaction: big enough that the default storage would have moved it out of line.
      expect(r.raw).toBeGreaterThan(2_500);
      expect(r.compression).toBe(method);
      expect(r.stored).toBeLessThan(r.raw);
      expect(r.chunk).toBeNull();
    }
  });
});
