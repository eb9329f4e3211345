/**
 * Batch withdrawals in one Solana transaction, through HTTP against the validator stand-in
 * (50 ms slots) and real PostgreSQL: a request's SPL items of one asset are packed into as
 * few transactions as fit the packet (Sender.maxTransfers), one outbound row each, its
 * withdrawals (outbound_owners, migration 029) each keeping its Transaction, status,
 * webhooks and a share of the fee; the shares sum to what the fee payer paid. Also: from a
 * child (the master pays), SOL and USDC mixed, a bad item refusing the whole request, cancel
 * before broadcast, a transaction that fails failing every item and the retry of one, and
 * an expired blockhash rebuilding the one multi-transfer transaction once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { base58 } from '@scure/base';
import { createKeyPairSignerFromBytes, generateKeyPairSigner, type Address } from '@solana/kit';
import { getCloseAccountInstruction, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { ata, send } from '../../../src/devnet/solana/test-support.js';
import { eventually } from '../../support/fixtures.js';
import {
  childOf,
  events,
  lamports,
  onChain,
  outsider,
  settled,
  solOf,
  startSolanaWorld,
  txOf,
  units,
  usdcOf,
  walletApi,
  type SolanaWorld,
} from './withdrawals-world.js';

const ATA_RENT = 2_039_280n;
const usdc = (d: string) => units(d, 6);

let w: SolanaWorld;

beforeAll(async () => {
  w = await startSolanaWorld('solana-sbatch');
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

/** The outbound rows of a batch's withdrawals: each row once, with its owners in order. */
async function rowsOf(ids: string[]) {
  const { rows } = await sql<{ id: string; stage: string; hash: string | null; owners: string[] | null }>`
    SELECT o.id, o.stage, o.hash,
           (SELECT array_agg(g.owner_id::text ORDER BY g.position) FROM outbound_owners g WHERE g.group_id = o.owner_id) AS owners
      FROM outbound_txs o
     WHERE o.owner_id = ANY(${ids}::uuid[])
        OR o.owner_id IN (SELECT group_id FROM outbound_owners WHERE owner_id = ANY(${ids}::uuid[]))
     ORDER BY o.created_at, o.id`.execute(w.h.database.db);
  return rows;
}

/** Every withdrawal settled; grouped by hash: the recorded fees of a hash sum to what the transaction cost its fee payer. */
async function checkFees(done: Record<string, any>[]) {
  const byHash = new Map<string, Record<string, any>[]>();
  for (const t of done) byHash.set(t.hash, [...(byHash.get(t.hash) ?? []), t]);
  let paid = 0n;
  for (const [hash, items] of byHash) {
    const tx = await onChain(w, hash);
    const created = BigInt(
      (tx.meta!.postTokenBalances ?? []).filter((p) => !(tx.meta!.preTokenBalances ?? []).some((q) => q.accountIndex === p.accountIndex))
        .length,
    );
    const cost = tx.meta!.fee + created * ATA_RENT;
    expect(
      items.reduce((sum, t) => sum + lamports(t.fee), 0n),
      `fees of ${hash}`,
    ).toBe(cost);
    paid += cost;
  }
  return { byHash, paid };
}

describe('batch withdrawals in one transaction', () => {
  it('12 USDC items to new recipients from the master: 2 transactions (9 + 3), each paid exactly, per-item webhooks, fees summing to what was paid', async () => {
    const to = Array.from({ length: 12 }, outsider);
    const before = await solOf(w, w.wallet.address);
    const usdcBefore = await usdcOf(w, w.wallet.address);
    const res = await walletApi(w, 'POST', '/withdraw', {
      assets: to.map((address, i) => ({ id: w.usdcId, address, amount: `${i + 1}.25`, reference: `batch-12-${i}` })),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ids = (res.body.data as { id: string }[]).map((t) => t.id);
    expect(ids).toHaveLength(12);
    const done = await Promise.all(ids.map((id) => settled(w, id)));
    for (const [i, t] of done.entries()) {
      expect(t).toMatchObject({ status: 'SUCCESS', amount: `${i + 1}.25`, recipientAddress: to[i], reference: `batch-12-${i}` });
      expect(await usdcOf(w, to[i]!)).toBe(usdc(`${i + 1}.25`));
    }
    const rows = await rowsOf(ids);
    expect(rows.map((r) => [r.stage, r.owners])).toEqual([
      ['mined', ids.slice(0, 9)],
      ['mined', ids.slice(9)],
    ]);
    expect(done.map((t) => t.hash)).toEqual([...Array(9).fill(rows[0]!.hash), ...Array(3).fill(rows[1]!.hash)]);
    const { byHash, paid } = await checkFees(done);
    expect([...byHash.values()].map((l) => l.length)).toEqual([9, 3]);
    expect(await solOf(w, w.wallet.address)).toBe(before - paid);
    const sent = to.reduce((s, _a, i) => s + usdc(`${i + 1}.25`), 0n);
    expect(await usdcOf(w, w.wallet.address)).toBe(usdcBefore - sent);
    for (const id of ids) expect(await events(w, id, 'withdraw.success')).toHaveLength(1);

    // The row's settlement run again (a second worker, a replayed event): nothing changes, no second webhook.
    const deliveries = async () =>
      (
        await sql<{ n: string }>`SELECT count(*)::text AS n FROM webhook_deliveries WHERE transaction_id = ANY(${ids}::uuid[])`.execute(
          w.h.database.db,
        )
      ).rows[0]!.n;
    const sentBefore = await deliveries();
    const row = (await w.h.services.outbound.get(rows[0]!.id))!;
    await w.h.database.db.transaction().execute((tx) => w.h.services.withdrawals.lifecycle.settled(tx, row));
    expect(await deliveries()).toBe(sentBefore);
    const again = await Promise.all(ids.map((id) => txOf(w, id)));
    expect(again.map((t) => [t.status, t.fee])).toEqual(done.map((t) => [t.status, t.fee]));
  });

  it('from a child holding no SOL: 10 USDC items make 2 transactions (8 + 2), the master signing as fee payer and paying every fee and rent', async () => {
    const child = await childOf(w);
    await w.sol.control.mintTo(w.usdc, child.address, 50_000_000n);
    await expect.poll(() => usdcOf(w, child.address), { timeout: 10_000 }).toBe(50_000_000n);
    const to = Array.from({ length: 10 }, outsider);
    const before = await solOf(w, w.wallet.address);
    const res = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw`, {
      assets: to.map((address) => ({ id: w.usdcId, address, amount: '2' })),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ids = (res.body.data as { id: string }[]).map((t) => t.id);
    const done = await Promise.all(ids.map((id) => settled(w, id)));
    expect(done.every((t) => t.status === 'SUCCESS' && t.senderAddress === child.address)).toBe(true);
    const { byHash, paid } = await checkFees(done);
    expect([...byHash.values()].map((l) => l.length)).toEqual([8, 2]);
    for (const hash of byHash.keys()) {
      const tx = await onChain(w, hash);
      expect(tx.transaction.message.accountKeys.slice(0, 2)).toEqual([w.wallet.address, child.address] as Address[]);
    }
    for (const a of to) expect(await usdcOf(w, a)).toBe(2_000_000n);
    expect(await usdcOf(w, child.address)).toBe(30_000_000n);
    expect(await solOf(w, child.address)).toBe(0n);
    expect(await solOf(w, w.wallet.address)).toBe(before - paid);
  });

  it('SOL and USDC mixed: each SOL item its own transaction, the USDC items one transaction together', async () => {
    const [a, b, c, d, e] = [outsider(), outsider(), outsider(), outsider(), outsider()];
    const before = await solOf(w, w.wallet.address);
    const res = await walletApi(w, 'POST', '/withdraw', {
      assets: [
        { id: w.usdcId, address: a, amount: '1' },
        { id: w.solId, address: b, amount: '0.1' },
        { id: w.usdcId, address: c, amount: '2' },
        { id: w.solId, address: d, amount: '0.2' },
        { id: w.usdcId, address: e, amount: '3' },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ids = (res.body.data as { id: string }[]).map((t) => t.id);
    const done = await Promise.all(ids.map((id) => settled(w, id)));
    expect(done.every((t) => t.status === 'SUCCESS')).toBe(true);
    const rows = await rowsOf(ids);
    expect(rows.map((r) => r.owners)).toEqual([[ids[0], ids[2], ids[4]], null, null]);
    expect(new Set([done[0]!.hash, done[2]!.hash, done[4]!.hash]).size).toBe(1);
    expect(new Set(done.map((t) => t.hash)).size).toBe(3);
    const { paid } = await checkFees(done);
    expect(await usdcOf(w, a)).toBe(1_000_000n);
    expect(await usdcOf(w, c)).toBe(2_000_000n);
    expect(await usdcOf(w, e)).toBe(3_000_000n);
    expect(await solOf(w, b)).toBe(100_000_000n);
    expect(await solOf(w, d)).toBe(200_000_000n);
    expect(await solOf(w, w.wallet.address)).toBe(before - paid - 300_000_000n);
  });

  it('one bad item still refuses the whole request: 422, nothing written', async () => {
    const count = async () =>
      (await sql<{ n: string }>`SELECT count(*)::text AS n FROM transactions WHERE wallet_id = ${w.wallet.id}`.execute(w.h.database.db))
        .rows[0]!.n;
    const before = await count();
    const res = await walletApi(w, 'POST', '/withdraw', {
      assets: [
        { id: w.usdcId, address: outsider(), amount: '1' },
        { id: w.usdcId, address: outsider(), amount: '100000000' },
        { id: w.usdcId, address: outsider(), amount: '1' },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error).toBe('INSUFFICIENT_BALANCE');
    expect(await count()).toBe(before);
  });
});

describe('lifecycle of a multi-item transaction', () => {
  it('cancel of one item before broadcast cancels every item of its transaction: each CANCELLED with withdraw.failed, nothing paid', async () => {
    const to = [outsider(), outsider(), outsider()];
    const before = await solOf(w, w.wallet.address);
    await w.h.stopWorker();
    let ids: string[];
    try {
      const res = await walletApi(w, 'POST', '/withdraw', { assets: to.map((address) => ({ id: w.usdcId, address, amount: '1' })) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids = (res.body.data as { id: string }[]).map((t) => t.id);
      const cancelled = await walletApi(w, 'POST', '/transactions/cancel', { id: ids[1] });
      expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
      expect(cancelled.body.data).toMatchObject({ id: ids[1], status: 'CANCELLED' });
      const again = await walletApi(w, 'POST', '/transactions/cancel', { id: ids[0] });
      expect(again.body.error).toBe('ALREADY_CANCELLED');
    } finally {
      await w.h.startWorker();
    }
    for (const id of ids!) {
      const [event] = await events(w, id, 'withdraw.failed');
      expect(event!.data.status).toBe('CANCELLED');
    }
    await new Promise((r) => setTimeout(r, 500));
    for (const a of to) expect(await usdcOf(w, a)).toBe(0n);
    expect(await solOf(w, w.wallet.address)).toBe(before);
    expect((await rowsOf(ids!)).map((r) => [r.stage, r.hash])).toEqual([['replaced', null]]);
  });

  it('a transaction that fails fails every item (withdraw.failed each); a failed item retried alone succeeds', async () => {
    const child = await childOf(w);
    await w.sol.control.mintTo(w.usdc, child.address, 9_000_000n);
    await expect.poll(() => usdcOf(w, child.address), { timeout: 10_000 }).toBe(9_000_000n);
    const to = [outsider(), outsider(), outsider()];
    await w.h.stopWorker();
    let ids: string[];
    try {
      const res = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw`, {
        assets: to.map((address) => ({ id: w.usdcId, address, amount: '3' })),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids = (res.body.data as { id: string }[]).map((t) => t.id);
      // Meanwhile the child's key (exported) empties and closes its token account: the transaction cannot succeed.
      const exported = await walletApi(w, 'GET', `/addresses/${child.id}?showPrivateKey=true`);
      expect(exported.status).toBe(200);
      const owner = await createKeyPairSignerFromBytes(base58.decode(exported.body.data.privateKey));
      const payer = await generateKeyPairSigner();
      await w.sol.control.fund(payer.address, 1_000_000_000n);
      await expect.poll(() => solOf(w, payer.address), { timeout: 10_000 }).toBe(1_000_000_000n);
      const elsewhere = outsider();
      const source = await ata(child.address as Address, w.usdc as Address);
      await w.sol.control.mintTo(w.usdc, elsewhere, 1n);
      await expect.poll(() => usdcOf(w, elsewhere), { timeout: 10_000 }).toBe(1n);
      await send(w.rpc as never, payer, [
        getTransferCheckedInstruction({
          source,
          mint: w.usdc as Address,
          destination: await ata(elsewhere as Address, w.usdc as Address),
          authority: owner,
          amount: 9_000_000n,
          decimals: 6,
        }),
        getCloseAccountInstruction({ account: source, destination: payer.address, owner }, { programAddress: TOKEN_PROGRAM_ADDRESS }),
      ]);
      await expect.poll(() => usdcOf(w, elsewhere), { timeout: 10_000 }).toBe(9_000_001n);
    } finally {
      await w.h.startWorker();
    }
    const failed = await Promise.all(
      ids!.map((id) =>
        eventually(
          () => txOf(w, id),
          (t) => t.status !== 'PENDING',
          20_000,
        ),
      ),
    );
    expect(failed.map((t) => t.status)).toEqual(['FAILED', 'FAILED', 'FAILED']);
    for (const id of ids!) expect(await events(w, id, 'withdraw.failed')).toHaveLength(1);
    for (const a of to) expect(await usdcOf(w, a)).toBe(0n);

    // The child gets its USDC back; one item is retried alone and lands.
    await w.sol.control.mintTo(w.usdc, child.address, 3_000_000n);
    await expect.poll(() => usdcOf(w, child.address), { timeout: 10_000 }).toBe(3_000_000n);
    const retried = await walletApi(w, 'POST', '/transactions/retry', { id: ids![1] });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    const done = await settled(w, ids![1]!);
    expect(done).toMatchObject({ status: 'SUCCESS', amount: '3', recipientAddress: to[1] });
    expect(lamports(done.fee)).toBe((await onChain(w, done.hash)).meta!.fee + ATA_RENT);
    expect(await usdcOf(w, to[1]!)).toBe(3_000_000n);
    expect(await usdcOf(w, to[0]!)).toBe(0n);
    expect((await txOf(w, ids![0]!)).status).toBe('FAILED');
  });
  it('an expired blockhash rebuilds the one multi-transfer transaction once: every item paid once, one withdraw.success each', async () => {
    const to = [outsider(), outsider(), outsider()];
    const usdcBefore = await usdcOf(w, w.wallet.address);
    w.sol.control.pause();
    let ids: string[];
    let first: { hash: string | null } | undefined;
    try {
      const res = await walletApi(w, 'POST', '/withdraw', { assets: to.map((address) => ({ id: w.usdcId, address, amount: '4' })) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids = (res.body.data as { id: string }[]).map((t) => t.id);
      [first] = await eventually(
        () => rowsOf(ids),
        (rows) => rows[0]?.stage === 'broadcast',
        20_000,
      );
      const { rows: nd } = await sql<{ last: string }>`
        SELECT network_data->>'lastValidBlockHeight' AS last FROM outbound_txs WHERE hash = ${first!.hash}`.execute(w.h.database.db);
      // Lost with a dropped block, its blockhash expired, then the finalized height past it.
      w.sol.control.dropSlots(1);
      w.sol.control.expireBlockhashes();
      const { blockHeight } = w.sol.control.status();
      const past = BigInt(nd[0]!.last) + 33n - BigInt(blockHeight);
      w.sol.control.produceSlots(Number(past > 0n ? past : 1n));
      await eventually(
        () => rowsOf(ids),
        (rows) => rows.length === 2 && rows[1]!.stage === 'broadcast',
        20_000,
      );
    } finally {
      w.sol.control.resume();
    }
    const done = await Promise.all(ids!.map((id) => settled(w, id)));
    const rows = await rowsOf(ids!);
    expect(rows.map((r) => [r.stage, r.owners])).toEqual([
      ['replaced', ids!],
      ['mined', ids!],
    ]);
    expect(done.map((t) => [t.status, t.hash])).toEqual(ids!.map(() => ['SUCCESS', rows[1]!.hash]));
    const { value } = await w.rpc.getSignatureStatuses([first!.hash as never], { searchTransactionHistory: true }).send();
    expect(value[0]).toBeNull();
    await checkFees(done);
    for (const a of to) expect(await usdcOf(w, a)).toBe(4_000_000n);
    expect(await usdcOf(w, w.wallet.address)).toBe(usdcBefore - 12_000_000n);
    for (const id of ids!) await events(w, id, 'withdraw.success');
    await new Promise((r) => setTimeout(r, 500));
    for (const id of ids!) {
      expect(w.receiver.requests.filter((r) => r.body.includes(id) && r.body.includes('withdraw.success'))).toHaveLength(1);
    }
  });
});
