/**
 * Group commit (batcher.ts, create.ts): concurrent requests of one sender share a database
 * transaction, yet each is judged as if alone, in arrival order. A refused request writes
 * nothing and does not affect the others. Also: old Idempotency-Keys are pruned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Address } from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { taskList } from '../../src/jobs/tasks.js';
import { assetOf, chainOf, counts, randomAddress, settledTx, startWorld, withdraw, type TestChain, type World } from './world.js';

let w: World;
let eth: TestChain;
const ETH = 'devnet-eth';

beforeAll(async () => {
  w = await startWorld({ specs: [DEVNET_CHAINS[0]!] });
  eth = chainOf(w.h, ETH);
});
afterAll(async () => {
  await w?.stop();
});

const master = () => w.h.wallets[ETH]!.address as Address;

describe('batched acceptance', () => {
  it(
    '40 at once, each a tenth of the balance: exactly 10 accepted, the 30 others refused and write nothing',
    { timeout: 120_000 },
    async () => {
      const usdc = assetOf(w.h, ETH, 'USDC');
      const before = await eth.balanceOf('USDC', master());
      // Top the master up to exactly a round amount, so "a tenth" is exact.
      await eth.sendToken('USDC', master(), (Number(1_000_000_000n - (before % 1_000_000_000n)) / 1e6).toFixed(6));
      const balance = await eth.balanceOf('USDC', master());
      expect(balance % 1_000_000_000n).toBe(0n);
      const tenth = (Number(balance / 10n) / 1e6).toFixed(6);
      const start = await counts(w.h);
      const bodies = Array.from({ length: 40 }, (_, i) => ({
        assetId: usdc.id,
        address: randomAddress(),
        amount: tenth,
        reference: `tenth-${i}`,
      }));
      const responses = await Promise.all(bodies.map((b) => withdraw(w.h, ETH, b)));
      const ok = responses.filter((r) => r.status === 200);
      expect(ok).toHaveLength(10);
      for (const r of responses.filter((x) => x.status !== 200)) {
        expect(r.status).toBe(422);
        expect(r.body.error).toBe('INSUFFICIENT_BALANCE');
      }
      const end = await counts(w.h);
      expect(end.transactions! - start.transactions!).toBe(10);
      expect(end.outbound! - start.outbound!).toBe(10);
      expect(end.nonces! - start.nonces!).toBe(10);
      const refused = bodies.filter((_b, i) => responses[i]!.status !== 200).map((b) => b.reference);
      const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM transactions WHERE reference = ANY(${refused}::text[])`.execute(
        w.h.database.db,
      );
      expect(Number(rows[0]!.n)).toBe(0);
      for (const r of ok) await settledTx(w.h, ETH, r.body.data.id, 'SUCCESS');
      expect(await eth.balanceOf('USDC', master())).toBe(0n);
      for (const [i, b] of bodies.entries()) {
        expect(await eth.balanceOf('USDC', b.address)).toBe(responses[i]!.status === 200 ? balance / 10n : 0n);
      }
    },
  );

  it('one reference, different payments at once: one accepted, the others 409, one transaction', async () => {
    await eth.sendToken('USDC', master(), '100');
    const usdc = assetOf(w.h, ETH, 'USDC');
    const reference = `clash-${Date.now()}`;
    const bodies = Array.from({ length: 10 }, (_, i) => ({ assetId: usdc.id, address: randomAddress(), amount: `${i + 1}`, reference }));
    const responses = await Promise.all(bodies.map((b) => withdraw(w.h, ETH, b)));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of responses.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(409);
      expect(r.body.error).toBe('REFERENCE_IN_USE');
    }
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM transactions WHERE reference = ${reference}`.execute(
      w.h.database.db,
    );
    expect(Number(rows[0]!.n)).toBe(1);
  });
});

describe('Idempotency-Key retention', () => {
  it('keys older than 24 hours are pruned by the periodic task; newer ones stay and still replay', async () => {
    await eth.sendToken('USDC', master(), '10');
    const usdc = assetOf(w.h, ETH, 'USDC');
    const body = { assetId: usdc.id, address: randomAddress(), amount: '1' };
    const old = { 'idempotency-key': `old-${Date.now()}` };
    const fresh = { 'idempotency-key': `fresh-${Date.now()}` };
    const keptBody = { ...body, address: randomAddress() };
    const first = await withdraw(w.h, ETH, body, { headers: old });
    const kept = await withdraw(w.h, ETH, keptBody, { headers: fresh });
    expect([first.status, kept.status]).toEqual([200, 200]);
    // 25 hours pass for the first key.
    await sql`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = ${old['idempotency-key']}`.execute(
      w.h.database.db,
    );
    const task = taskList(w.h.services).idempotency_prune!;
    await task({}, {} as never);
    const { rows } = await sql<{
      key: string;
    }>`SELECT key FROM idempotency_keys WHERE key IN (${old['idempotency-key']}, ${fresh['idempotency-key']})`.execute(w.h.database.db);
    expect(rows.map((r) => r.key)).toEqual([fresh['idempotency-key']]);
    // The pruned key is free again: another body is a new request, not a 422.
    const reused = await withdraw(w.h, ETH, { ...body, amount: '2' }, { headers: old });
    expect(reused.status).toBe(200);
    expect(reused.body.data.id).not.toBe(first.body.data.id);
    // The kept key still replays its stored response.
    const replayed = await withdraw(w.h, ETH, keptBody, { headers: fresh });
    expect(replayed.status).toBe(200);
    expect(replayed.body.data).toEqual(kept.body.data);
  });
});
