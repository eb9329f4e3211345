/**
 * Group commit (batcher.ts, create.ts): concurrent requests of one sender share a database
 * transaction, yet each is judged as if alone, in arrival order. A refused request writes
 * nothing and does not affect the others. Also: old Idempotency-Keys are pruned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Address } from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { taskList } from '../../src/jobs/tasks.js';
import { addressKey } from '../../src/chains/address-key.js';
import { shortReference, uuidv7 } from '../../src/lib/ids.js';
import { insertWithdrawals } from '../../src/modules/transactions/store.js';
import type { NewWithdrawal } from '../../src/modules/transactions/types.js';
import {
  assetOf,
  chainOf,
  counts,
  eventually,
  randomAddress,
  settledTx,
  startWorld,
  withdraw,
  type TestChain,
  type World,
} from './world.js';

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

describe('a batch whose commit is reported failed after it committed', () => {
  it(
    'is run again one request at a time without writing or paying anything twice (requests without key or reference)',
    { timeout: 120_000 },
    async () => {
      await eth.sendToken('USDC', master(), '100');
      const usdc = assetOf(w.h, ETH, 'USDC');
      const db = w.h.database.db;
      const deps = w.h.services.withdrawals.deps as { db: Kysely<any> };
      const real = deps.db;
      // The connection lost during COMMIT, as the batcher sees it: the batch's transaction
      // commits, then its execute rejects. Once, for the first batch of two or more requests.
      let lost = 0;
      const lossyCommit = (builder: ReturnType<Kysely<any>['transaction']>) =>
        new Proxy(builder, {
          get: (target, prop) =>
            prop === 'execute'
              ? async (fn: (tx: Transaction<any>) => Promise<unknown>) => {
                  const result = await target.execute(fn);
                  // create.ts's batch answers { out, accepted, inserted }: one `out` per request.
                  const out = (result as { out?: unknown } | null)?.out;
                  if (lost === 0 && Array.isArray(out) && out.length >= 2 && (result as { inserted?: unknown }).inserted) {
                    lost++;
                    throw new Error('Connection terminated unexpectedly');
                  }
                  return result;
                }
              : Reflect.get(target, prop, target),
        });
      deps.db = new Proxy(real, {
        get: (target, prop) => {
          if (prop === 'transaction') return () => lossyCommit(target.transaction());
          const value = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      try {
        const { rows: chain } = await sql<{ chain_id: string }>`SELECT chain_id FROM wallets WHERE id = ${w.h.wallets[ETH]!.id}`.execute(
          db,
        );
        const start = await counts(w.h);
        const bodies = Array.from({ length: 8 }, (_, i) => ({ assetId: usdc.id, address: randomAddress(), amount: `${i + 1}` }));
        // The sender's lock held, so that the requests after the first queue up and are taken as one batch.
        const { sent } = await db.transaction().execute(async (tx) => {
          await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`withdraw:${chain[0]!.chain_id}:${addressKey(master())}`}, 0))`.execute(
            tx,
          );
          const sent = Promise.all(bodies.map((b) => withdraw(w.h, ETH, b)));
          await eventually(
            async () =>
              Number(
                (await sql<{ n: string }>`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`.execute(db))
                  .rows[0]!.n,
              ),
            (n) => n > 0,
            30_000,
          );
          await new Promise((r) => setTimeout(r, 1_500));
          // Wrapped: returned bare, the transaction would wait for the responses, which wait for its lock.
          return { sent };
        });
        const responses = await sent;
        expect(lost, 'no batch of two or more requests was taken').toBe(1);
        expect(responses.map((r) => r.status)).toEqual(bodies.map(() => 200));
        const end = await counts(w.h);
        expect(end.transactions! - start.transactions!).toBe(8);
        expect(end.outbound! - start.outbound!).toBe(8);
        expect(end.nonces! - start.nonces!).toBe(8);
        const ids = new Set(responses.map((r) => r.body.data.id as string));
        expect(ids.size).toBe(8);
        for (const r of responses) await settledTx(w.h, ETH, r.body.data.id, 'SUCCESS');
        // Each recipient paid once, on chain (a second payment would show as twice the amount).
        for (const [i, b] of bodies.entries()) expect(await eth.balanceOf('USDC', b.address)).toBe(BigInt(i + 1) * 1_000_000n);
      } finally {
        deps.db = real;
      }
    },
  );
});

describe('a group commit larger than one statement can carry', () => {
  it('2,000 rows (74,000 parameters, over the 65,535 one statement can carry) are written in one call, all of them', async () => {
    const usdc = assetOf(w.h, ETH, 'USDC');
    const wallet = w.h.wallets[ETH]!;
    const chainId = w.h.services.catalogue.findChain(ETH, 'testnet')!.id;
    const rows: NewWithdrawal[] = Array.from({ length: 2_000 }, () => ({
      id: uuidv7(),
      walletId: wallet.id,
      addressId: null,
      assetId: usdc.id,
      chainId,
      reference: shortReference(),
      type: 'SIGNED',
      amount: 1n,
      amountUsd: null,
      currency: 'USDC',
      sender: wallet.address,
      recipient: randomAddress(),
      token: usdc.address,
      note: null,
      metadata: null,
      network: 'testnet',
      reservedFee: null,
      nonce: null,
      // Sign-only rows: nothing the pipeline would pick up. Rolled back below in any case.
      signed: { raw: '0x00', hash: `0x${'cd'.repeat(32)}`, fees: { gasLimit: null, maxFeePerGas: null, maxPriorityFeePerGas: null } },
      counted: { as: 'SIGN_ONLY', assetId: usdc.id, amount: 1n, amountUsd: null, destination: null },
    }));
    const ROLLBACK = new Error('rolled back on purpose');
    const seen = await w.h.database.db
      .transaction()
      .execute(async (tx) => {
        const written = await insertWithdrawals(tx, rows);
        const { rows: stored } = await sql<{ n: string }>`
          SELECT count(*)::text AS n FROM transactions WHERE id = ANY(${rows.map((r) => r.id)}::uuid[])`.execute(tx);
        throw Object.assign(ROLLBACK, { written: written.map((r) => r.id), stored: Number(stored[0]!.n) });
      })
      .catch((err: unknown) => {
        if (err !== ROLLBACK) throw err;
        return err as Error & { written: string[]; stored: number };
      });
    expect(seen.written).toEqual(rows.map((r) => r.id));
    expect(seen.stored).toBe(2_000);
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
