import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { parseEther, parseTransaction, type Hash, type TransactionSerializedEIP1559 } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type Harness } from '../support/harness.js';
import { UpstreamError } from '../../src/lib/errors.js';
import { eventually } from '../support/fixtures.js';
import {
  addressOf,
  enqueue,
  fund,
  keyOf,
  makeWorld,
  nextNonceRow,
  pendingJobs,
  restarted,
  settledRow,
  sleep,
  stageOf,
  usdcOf,
  type World,
} from './world.js';

let h: Harness;
let w: World;
const USDC = 1_000_000n; // 6 decimals on devnet-eth
const PURPOSES = ['transfer', 'bulk', 'crash', 'dropped', 'revert', 'void', 'seed', 'conflict'];
const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;
const callsFor = (id: string) => w.settled.filter((r) => r.id === id);

beforeAll(async () => {
  h = await startHarness({ worker: true, specs: [DEVNET_CHAINS[0]!] });
  w = await makeWorld(h, PURPOSES);
});
afterAll(async () => {
  await h?.stop();
});

describe('sending', () => {
  it('a funded master wallet sends a native and a token transfer: mined, receipts stored, balances moved exactly, handler called once', async () => {
    const master = addressOf(w, 0);
    expect(master).toBe(h.wallets['devnet-eth']!.address);
    await fund(w, master, { wei: parseEther('10'), usdc: 1_000n * USDC });
    const recipient = randomAddress();
    const [eth0, usdc0] = [await w.pub.getBalance({ address: master }), await usdcOf(w, master)];

    const owner = crypto.randomUUID();
    const native = await enqueue(w, { fromIndex: 0, to: recipient, value: parseEther('0.123'), purpose: 'transfer', ownerId: owner });
    const token = await enqueue(w, {
      fromIndex: 0,
      intent: { kind: 'token', token: w.usdc, to: recipient, amount: 12_500_000n },
      purpose: 'transfer',
      ownerId: owner,
    });
    expect(native.from).toBe(master);
    expect(token.nonce).toBe(native.nonce! + 1n);

    const rows = [await settledRow(w, native.id), await settledRow(w, token.id)];
    for (const row of rows) {
      expect(row.stage).toBe('mined');
      const onChain = await w.pub.getTransactionReceipt({ hash: row.hash as Hash });
      expect(row.receipt).toEqual({
        status: 'success',
        block: { number: onChain.blockNumber, hash: onChain.blockHash },
        fee: onChain.gasUsed * onChain.effectiveGasPrice,
        details: { gasUsed: onChain.gasUsed.toString(), effectiveGasPrice: onChain.effectiveGasPrice.toString() },
      });
      const tx = await w.pub.getTransaction({ hash: row.hash as Hash });
      expect(BigInt(tx.nonce)).toBe(row.nonce);
      expect(tx.from.toLowerCase()).toBe(master.toLowerCase());
      const parsed = parseTransaction(row.raw as TransactionSerializedEIP1559);
      expect({ gas: parsed.gas, maxFeePerGas: parsed.maxFeePerGas }).toEqual({
        gas: BigInt(row.network.gasLimit!),
        maxFeePerGas: BigInt(row.network.maxFeePerGas!),
      });
      expect(row.broadcastAt).not.toBeNull();
      expect(row.error).toBeNull();
    }
    // Estimated gas carries a 20% margin: a plain transfer gets 25,200.
    expect(BigInt(rows[0]!.network.gasLimit!)).toBe(25_200n);

    expect(await w.pub.getBalance({ address: recipient })).toBe(parseEther('0.123'));
    expect(await usdcOf(w, recipient)).toBe(12_500_000n);
    const fees = rows.reduce((sum, r) => sum + r.receipt!.fee, 0n);
    expect(await w.pub.getBalance({ address: master })).toBe(eth0 - parseEther('0.123') - fees);
    expect(await usdcOf(w, master)).toBe(usdc0 - 12_500_000n);

    await sleep(1500); // leftover jobs, if any, must not call the handler again
    for (const row of rows) {
      expect(callsFor(row.id)).toHaveLength(1);
      expect(callsFor(row.id)[0]).toMatchObject({ id: row.id, stage: 'mined', ownerId: owner, purpose: 'transfer', hash: row.hash });
    }
    expect(await h.services.outbound.ofOwner(owner)).toHaveLength(2);
  });

  it('refuses bad requests without allocating a nonce', async () => {
    const from = addressOf(w, 30);
    await expect(enqueue(w, { fromIndex: 30, to: '0x1234', value: 1n, purpose: 'transfer' })).rejects.toThrow(/not a valid/);
    await expect(enqueue(w, { fromIndex: 30, to: from, value: -1n, purpose: 'transfer' })).rejects.toThrow(/non-negative/);
    await expect(enqueue(w, { fromIndex: 30, to: from, value: 1n, gasLimit: 20_000n, purpose: 'transfer' })).rejects.toThrow(/gasLimit/);
    await expect(enqueue(w, { fromIndex: 30, to: from, value: 1n, data: '0xabc', purpose: 'transfer' })).rejects.toThrow(/hex/);
    // On the bare pool the allocation would commit on its own and could leak a nonce.
    await expect(
      h.services.outbound.enqueue(h.database.db, {
        chainId: w.chain.id,
        walletId: w.walletId,
        fromIndex: 30,
        intent: { kind: 'native', to: from, amount: 1n },
        purpose: 'x',
      }),
    ).rejects.toThrow(/inside a database transaction/);
    expect(await nextNonceRow(w, from)).toBeNull();
  });
});

describe('nonces', () => {
  it('100 concurrent enqueues from one sender (and 10 rolled back): all mined, nonces contiguous, no duplicate, no gap', async () => {
    const index = 5;
    const sender = addressOf(w, index);
    await fund(w, sender, { wei: parseEther('1') });
    const start = BigInt(await w.pub.getTransactionCount({ address: sender }));
    const recipient = randomAddress();

    const results = await Promise.allSettled(
      Array.from({ length: 110 }, (_, i) =>
        h.database.db.transaction().execute(async (tx) => {
          const r = await h.services.outbound.enqueue(tx, {
            chainId: w.chain.id,
            walletId: w.walletId,
            fromIndex: index,
            intent: { kind: 'native', to: recipient, amount: 1_000n },
            purpose: 'bulk',
          });
          if (i % 11 === 10) throw new Error('caller rolls back'); // its nonce must be given back
          return r;
        }),
      ),
    );
    const ok = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(ok).toHaveLength(100);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(10);
    const expected = Array.from({ length: 100 }, (_, i) => start + BigInt(i));
    expect(ok.map((r) => r.nonce!).sort((a, b) => (a < b ? -1 : 1))).toEqual(expected);

    const rows = await Promise.all(ok.map((r) => settledRow(w, r.id, 60_000)));
    expect(rows.every((r) => r.stage === 'mined')).toBe(true);
    expect(await nextNonceRow(w, sender)).toBe(start + 100n);
    const { rows: stored } = await sql<{ nonce: string }>`
      SELECT nonce FROM outbound_txs WHERE chain_id = ${w.chain.id} AND from_address = ${sender} ORDER BY nonce`.execute(h.database.db);
    expect(stored.map((r) => BigInt(r.nonce))).toEqual(expected);
    expect(BigInt(await w.pub.getTransactionCount({ address: sender }))).toBe(start + 100n);
    expect(await w.pub.getBalance({ address: recipient })).toBe(100_000n);
    expect(new Set(w.settled.filter((r) => r.purpose === 'bulk').map((r) => r.id)).size).toBe(100);
    expect(w.settled.filter((r) => r.purpose === 'bulk')).toHaveLength(100);
  });

  it("seeds a sender's first allocation from the chain: a key that already sent 3 transactions gets nonce 3", async () => {
    const index = 9;
    const sender = addressOf(w, index);
    await fund(w, sender, { wei: parseEther('1') });
    const account = privateKeyToAccount(await keyOf(w, index));
    expect(account.address).toBe(sender);
    for (let i = 0; i < 3; i++) {
      const hash = await w.faucet.sendTransaction({ account, chain: w.faucet.chain, to: randomAddress(), value: 1n });
      await w.pub.waitForTransactionReceipt({ hash });
    }
    const first = await enqueue(w, { fromIndex: index, to: randomAddress(), value: 1n, purpose: 'seed' });
    expect(first.nonce).toBe(3n);
    expect((await settledRow(w, first.id)).stage).toBe('mined');
    const second = await enqueue(w, { fromIndex: index, to: randomAddress(), value: 1n, purpose: 'seed' });
    expect(second.nonce).toBe(4n);
    expect((await settledRow(w, second.id)).stage).toBe('mined');
  });

  it('a nonce used outside the pipeline: the signed row is dropped (handler called) and the counter jumps past it', async () => {
    const index = 11;
    const sender = addressOf(w, index);
    await fund(w, sender, { wei: parseEther('1') });
    await h.stopWorker();
    try {
      const mine = await enqueue(w, { fromIndex: index, to: randomAddress(), value: 5n, purpose: 'conflict' });
      const service = restarted(w, { conflictGraceMs: 0 });
      expect((await service.signAndStore(mine.id))!.stage).toBe('signed');
      // Someone with the key sends two other transactions first: nonce n and n+1 are used.
      const account = privateKeyToAccount(await keyOf(w, index));
      for (let i = 0; i < 2; i++) {
        const hash = await w.faucet.sendTransaction({ account, chain: w.faucet.chain, to: randomAddress(), value: 7n });
        await w.pub.waitForTransactionReceipt({ hash });
      }
      // With the default grace period, a first sighting is only recorded: a lagging node
      // behind a load balancer can say this about a transaction that did mine.
      await restarted(w).send(mine.id);
      const seen = (await service.get(mine.id))!;
      expect(seen).toMatchObject({ stage: 'signed', attempts: 1 });
      expect(seen.error).toMatch(/is used by another transaction/);
      expect(seen.conflictSeenAt).not.toBeNull();
      expect(callsFor(mine.id)).toHaveLength(0);

      await service.send(mine.id);
      const row = (await service.get(mine.id))!;
      expect(row.stage).toBe('dropped');
      expect(row.error).toMatch(/is used by another transaction/);
      expect(callsFor(mine.id)).toMatchObject([{ stage: 'dropped' }]);
      expect(await nextNonceRow(w, sender)).toBe(mine.nonce! + 2n);

      const next = await enqueue(w, { fromIndex: index, to: randomAddress(), value: 5n, purpose: 'conflict' });
      expect(next.nonce).toBe(mine.nonce! + 2n);
      await h.startWorker();
      expect((await settledRow(w, next.id)).stage).toBe('mined');
    } finally {
      await h.startWorker();
    }
  });

  it('a nonce used outside the pipeline is not replaced while its conflict is judged: dropped after the grace period, even when the replacement delay is shorter', async () => {
    // The defaults replace a row unmined for 3 minutes and drop a conflict seen for 5: a
    // replacement (a new row, its conflict clock started afresh) must not restart the grace.
    const index = 12;
    const sender = addressOf(w, index);
    await fund(w, sender, { wei: parseEther('1') });
    await h.stopWorker();
    try {
      const owner = crypto.randomUUID();
      const mine = await enqueue(w, { fromIndex: index, to: randomAddress(), value: 5n, purpose: 'conflict', ownerId: owner });
      const service = restarted(w, { conflictGraceMs: 1_500, replaceAfterMs: 300 });
      expect((await service.signAndStore(mine.id))!.stage).toBe('signed');
      const account = privateKeyToAccount(await keyOf(w, index));
      const hash = await w.faucet.sendTransaction({ account, chain: w.faucet.chain, to: randomAddress(), value: 7n });
      await w.pub.waitForTransactionReceipt({ hash });

      // The tracker's polls, well past the grace period.
      const until = Date.now() + 4_000;
      while (Date.now() < until) {
        for (const live of await service.liveOf(owner)) await service.track(live.id);
        await sleep(100);
      }
      const rows = await service.ofOwner(owner);
      expect(rows.map((r) => r.stage)).toEqual(['dropped']);
      expect(callsFor(mine.id)).toMatchObject([{ stage: 'dropped' }]);
    } finally {
      await h.startWorker();
    }
  });

  it("speed-ups asked while a conflict is judged (a client's retries) do not restart its grace period: still dropped in time", async () => {
    // A client retrying a withdrawal that looks stuck (POST .../transactions/retry) replaces
    // its live row; each replacement is a new row, and its conflict clock started afresh:
    // retried more often than the grace period, the row was never dropped, its funds held for ever.
    const index = 13;
    const sender = addressOf(w, index);
    await fund(w, sender, { wei: parseEther('1') });
    await h.stopWorker();
    try {
      const owner = crypto.randomUUID();
      const mine = await enqueue(w, { fromIndex: index, to: randomAddress(), value: 5n, purpose: 'conflict', ownerId: owner });
      const service = restarted(w, { conflictGraceMs: 1_500, replaceAfterMs: 60_000 });
      expect((await service.signAndStore(mine.id))!.stage).toBe('signed');
      const account = privateKeyToAccount(await keyOf(w, index));
      const hash = await w.faucet.sendTransaction({ account, chain: w.faucet.chain, to: randomAddress(), value: 7n });
      await w.pub.waitForTransactionReceipt({ hash });

      // The tracker's polls, and a speed-up every half second, until nothing of it is live (the
      // row dropped, 1.5 s after the conflict was first seen) or far past the grace period: a
      // clock restarted by each speed-up never drops it. However slow the machine, no fixed window.
      const until = Date.now() + 20_000;
      let asked = 0;
      while (Date.now() < until && (await service.liveOf(owner)).length > 0) {
        for (const live of await service.liveOf(owner)) {
          await service.track(live.id);
          if (Date.now() - asked >= 500 && (await service.get(live.id))?.conflictSeenAt) {
            asked = Date.now();
            await service.speedUp(live.id);
          }
        }
        await sleep(100);
      }
      const rows = await service.ofOwner(owner);
      expect(rows.length).toBeGreaterThan(1); // speed-ups were made
      expect(rows.filter((r) => ['created', 'signed', 'broadcast'].includes(r.stage))).toEqual([]);
      expect(rows.at(-1)!.stage).toBe('dropped');
    } finally {
      await h.startWorker();
    }
  });

  it('a node that times out now and then while a conflict is judged does not restart its grace period: still dropped in time', async () => {
    // A timeout is no answer: it says nothing against the conflict, unlike a node that takes
    // the bytes. Counted as one, a flaky node (every other broadcast timing out here) kept
    // the row from ever being dropped, its owner PENDING for ever.
    const index = 14;
    const sender = addressOf(w, index);
    await fund(w, sender, { wei: parseEther('1') });
    await h.stopWorker();
    const adapter = w.chain.adapter as { broadcast(raw: string): Promise<string> };
    try {
      const owner = crypto.randomUUID();
      const mine = await enqueue(w, { fromIndex: index, to: randomAddress(), value: 5n, purpose: 'conflict', ownerId: owner });
      const service = restarted(w, { conflictGraceMs: 1_500, replaceAfterMs: 60_000 });
      expect((await service.signAndStore(mine.id))!.stage).toBe('signed');
      const account = privateKeyToAccount(await keyOf(w, index));
      const hash = await w.faucet.sendTransaction({ account, chain: w.faucet.chain, to: randomAddress(), value: 7n });
      await w.pub.waitForTransactionReceipt({ hash });

      const real = adapter.broadcast.bind(adapter);
      let calls = 0;
      adapter.broadcast = (raw: string) =>
        ++calls % 2 === 0 ? Promise.reject(new UpstreamError('CHAIN_UNAVAILABLE', 'the node timed out')) : real(raw);
      // Until nothing of it is live, or far past the grace period (a clock restarted by every
      // third call never drops it): no fixed window, however slow the machine.
      const until = Date.now() + 20_000;
      while (Date.now() < until && (await service.liveOf(owner)).length > 0) {
        for (const live of await service.liveOf(owner)) await service.track(live.id).catch(() => undefined);
        await sleep(100);
      }
      // The first broadcast sees the conflict, the second times out: only a later one can drop it.
      expect(calls).toBeGreaterThanOrEqual(3);
      const rows = await service.ofOwner(owner);
      expect(rows.map((r) => r.stage)).toEqual(['dropped']);
    } finally {
      delete (adapter as { broadcast?: unknown }).broadcast;
      await h.startWorker();
    }
  });
});

describe('crash safety', () => {
  it('a row signed but never broadcast is broadcast once after a restart: same bytes, one transaction for its nonce', async () => {
    const master = addressOf(w, 0);
    await h.stopWorker();
    let id = '';
    try {
      const queued = await enqueue(w, { fromIndex: 0, to: randomAddress(), value: 42n, purpose: 'crash' });
      id = queued.id;
      // Two workers racing to sign store one signature; a later call never re-signs.
      const [a, b] = await Promise.all([h.services.outbound.signAndStore(id), restarted(w).signAndStore(id)]);
      expect(a!.raw).toBe(b!.raw);
      const signed = (await h.services.outbound.signAndStore(id))!;
      expect(signed).toMatchObject({ stage: 'signed', raw: a!.raw, hash: a!.hash });
      expect(await w.pub.getTransactionCount({ address: master })).toBe(Number(queued.nonce)); // nothing sent yet

      // "Restart": a fresh service on the same database finishes the job.
      const fresh = restarted(w);
      await fresh.send(id);
      await fresh.send(id);
      // Automine mines in the node's background: the receipt can lag the send by a moment.
      await w.pub.waitForTransactionReceipt({ hash: signed.hash as Hash, pollingInterval: 20 });
      await fresh.track(id);
      const row = (await fresh.get(id))!;
      expect(row).toMatchObject({ stage: 'mined', hash: signed.hash, raw: signed.raw });
      const onChain = await w.pub.getTransaction({ hash: signed.hash as Hash });
      expect(BigInt(onChain.nonce)).toBe(queued.nonce);
      expect(await w.pub.getTransactionCount({ address: master })).toBe(Number(queued.nonce) + 1);
    } finally {
      await h.startWorker();
    }
    // The jobs queued before the "crash" run now and find nothing to do.
    await eventually(
      () => pendingJobs(w, id),
      (n) => n === 0,
    );
    expect(callsFor(id)).toHaveLength(1);
  });

  it('a row broadcast whose receipt was never recorded is tracked to mined once, by the safety net after a restart', async () => {
    await h.stopWorker();
    let id = '';
    try {
      const queued = await enqueue(w, { fromIndex: 0, to: randomAddress(), value: 43n, purpose: 'crash' });
      id = queued.id;
      await h.services.outbound.send(id); // signs and broadcasts; automine mines it; nobody records it
      expect(await stageOf(w, id)).toBe('broadcast');
      const row = (await h.services.outbound.get(id))!;
      // Automine mines in the node's background: the receipt can lag the send by a moment.
      expect((await w.pub.waitForTransactionReceipt({ hash: row.hash as Hash, pollingInterval: 20 })).status).toBe('success');
      // The queued jobs are lost with the "crashed" worker.
      await sql`DELETE FROM graphile_worker._private_jobs WHERE key IN (${`outbound_send:${id}`}, ${`outbound_track:${id}`})`.execute(
        h.database.db,
      );
      const fresh = restarted(w, { stuckAfterMs: 0 });
      expect(await fresh.sweepStuck()).toBeGreaterThanOrEqual(1);
      expect(await pendingJobs(w, id)).toBe(1);
    } finally {
      await h.startWorker();
    }
    expect((await settledRow(w, id)).stage).toBe('mined');
    await restarted(w).track(id); // a late duplicate does nothing
    expect(callsFor(id)).toHaveLength(1);
  });

  it('a created row whose send job was lost is sent by the safety net', async () => {
    await h.stopWorker();
    let id = '';
    try {
      id = (await enqueue(w, { fromIndex: 0, to: randomAddress(), value: 44n, purpose: 'crash' })).id;
      await sql`DELETE FROM graphile_worker._private_jobs WHERE key = ${`outbound_send:${id}`}`.execute(h.database.db);
      expect(await restarted(w, { stuckAfterMs: 60_000 }).sweepStuck()).toBe(0); // too recent to look stuck
      expect(await restarted(w, { stuckAfterMs: 0 }).sweepStuck()).toBeGreaterThanOrEqual(1);
    } finally {
      await h.startWorker();
    }
    expect((await settledRow(w, id)).stage).toBe('mined');
    expect(callsFor(id)).toHaveLength(1);
  });
});

describe('dropped, reverted and voided transactions', () => {
  it('a transaction dropped from the pool is re-broadcast with the same bytes and mined', async () => {
    await w.test.setAutomine(false);
    try {
      const { id } = await enqueue(w, { fromIndex: 0, to: randomAddress(), value: 45n, purpose: 'dropped' });
      const broadcast = await eventually(
        async () => (await h.services.outbound.get(id))!,
        (r) => r.stage === 'broadcast',
      );
      const hash = broadcast.hash as Hash;
      expect((await w.pub.getTransaction({ hash })).blockNumber).toBeNull();
      await w.test.dropTransaction({ hash });
      await expect(w.pub.getTransaction({ hash })).rejects.toThrow(/could not be found/);
      // The tracker puts it back.
      await eventually(
        () =>
          w.pub.getTransaction({ hash }).then(
            () => true,
            () => false,
          ),
        (known) => known,
        20_000,
      );
      await w.test.mine({ blocks: 1 });
      const row = await settledRow(w, id);
      expect(row).toMatchObject({ stage: 'mined', hash, raw: broadcast.raw });
      expect(row.attempts).toBeGreaterThanOrEqual(2);
      expect(callsFor(id)).toHaveLength(1);
    } finally {
      await w.test.setAutomine(true);
    }
  });

  it('a transaction that reverts on chain (explicit gas limit) ends failed with its receipt; handler called', async () => {
    const master = addressOf(w, 0);
    const balance = await usdcOf(w, master);
    const { id } = await enqueue(w, {
      fromIndex: 0,
      intent: { kind: 'token', token: w.usdc, to: randomAddress(), amount: balance + 1n },
      gasLimit: 100_000n,
      purpose: 'revert',
    });
    const row = await settledRow(w, id);
    expect(row.stage).toBe('failed');
    expect(row.receipt?.status).toBe('reverted');
    expect(BigInt(row.receipt!.details.gasUsed!)).toBeGreaterThan(21_000n);
    expect(row.error).toBe('execution reverted');
    expect((await w.pub.getTransactionReceipt({ hash: row.hash as Hash })).status).toBe('reverted');
    expect(await usdcOf(w, master)).toBe(balance);
    expect(callsFor(id)).toMatchObject([{ stage: 'failed' }]);
  });

  it('a transaction whose estimate reverts is voided before signing; a 0-value self-transfer fills its nonce and later nonces go on', async () => {
    const master = addressOf(w, 0);
    const balance = await usdcOf(w, master);
    const bad = await enqueue(w, {
      fromIndex: 0,
      intent: { kind: 'token', token: w.usdc, to: randomAddress(), amount: balance + 1n },
      purpose: 'void',
    });
    const after = await enqueue(w, { fromIndex: 0, to: randomAddress(), value: 46n, purpose: 'void' });
    const voided = await settledRow(w, bad.id);
    expect(voided).toMatchObject({ stage: 'replaced', raw: null, hash: null });
    expect(voided.error).toMatch(/would revert/);
    expect(callsFor(bad.id)).toMatchObject([{ stage: 'replaced' }]);

    const filler = await settledRow(w, voided.replacedBy!);
    expect(filler).toMatchObject({
      stage: 'mined',
      nonce: bad.nonce,
      intent: { kind: 'native', to: master, amount: 0n },
      purpose: 'nonce-filler',
      ownerId: bad.id,
    });
    expect((await settledRow(w, after.id)).stage).toBe('mined');
    expect(BigInt(await w.pub.getTransactionCount({ address: master }))).toBe(after.nonce! + 1n);
  });

  it('a reverting estimate is not judged while an earlier nonce of the sender is pending', async () => {
    const index = 21;
    const sender = addressOf(w, index);
    await fund(w, sender, { wei: parseEther('1') });
    await w.test.setAutomine(false);
    try {
      const first = await enqueue(w, { fromIndex: index, to: randomAddress(), value: 48n, purpose: 'void' });
      const bad = await enqueue(w, {
        fromIndex: index,
        intent: { kind: 'token', token: w.usdc, to: randomAddress(), amount: 1n }, // the sender holds no USDC
        purpose: 'void',
      });
      await eventually(
        async () => (await h.services.outbound.get(bad.id))!,
        (r) => /waiting for earlier nonces/.test(r.error ?? ''),
      );
      // The earlier nonce is in flight (its send job may still be between signing and
      // broadcasting when the later one is judged): it gets broadcast; the later one waits.
      await eventually(
        () => stageOf(w, first.id),
        (stage) => stage === 'broadcast',
      );
      expect(await stageOf(w, bad.id)).toBe('created');
      await w.test.mine({ blocks: 1 });
      expect((await settledRow(w, first.id)).stage).toBe('mined');
      const voided = await settledRow(w, bad.id);
      expect(voided.stage).toBe('replaced');
      await eventually(
        async () => (await h.services.outbound.get(voided.replacedBy!))!,
        (r) => r.stage === 'broadcast',
      );
      await w.test.mine({ blocks: 1 });
      expect(await settledRow(w, voided.replacedBy!)).toMatchObject({ stage: 'mined', nonce: bad.nonce });
    } finally {
      await w.test.setAutomine(true);
    }
  });

  it('a completion handler that throws rolls its settlement back; it is retried and commits once', async () => {
    let calls = 0;
    let sawMinedInside = false;
    h.services.events.observe('outbound.settled', async (tx, { row }) => {
      if (row.purpose !== 'flaky') return;
      calls += 1;
      sawMinedInside = (await h.services.outbound.get(row.id, tx))!.stage === 'mined';
      if (calls === 1) throw new Error('handler failed once');
    });
    const { id } = await enqueue(w, { fromIndex: 0, to: randomAddress(), value: 47n, purpose: 'flaky' });
    await eventually(
      async () => calls,
      (n) => n >= 1,
    );
    // Once the job has recorded the handler's error, its settling transaction has ended: read
    // then, before the job's retry (about 2.7 s later) settles the row again.
    await eventually(
      async () =>
        (
          await sql<{
            n: number;
          }>`SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE last_error LIKE '%handler failed once%'`.execute(h.database.db)
        ).rows[0]!.n,
      (n) => n > 0,
    );
    expect(await stageOf(w, id)).not.toBe('mined'); // the first settlement was rolled back
    expect((await settledRow(w, id)).stage).toBe('mined');
    expect(calls).toBe(2);
    expect(sawMinedInside).toBe(true);
  });
});

describe('secrets', () => {
  it('no private key or mnemonic reaches the logs', async () => {
    const mnemonic = await h.services.wallets.openMnemonic(w.walletId);
    const logs = h.logs();
    expect(logs).toContain('outbound transaction broadcast');
    expect(logs).not.toContain(mnemonic.split(' ').slice(0, 4).join(' '));
    for (const index of [0, 5, 9, 11, 21]) expect(logs).not.toContain((await keyOf(w, index)).slice(2));
  });
});
