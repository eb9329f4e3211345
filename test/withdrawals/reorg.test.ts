/**
 * A withdrawal whose receipt block is reorganised away, on anvil (evm_snapshot / evm_revert
 * give the chain another branch at the same heights). The worker is stopped while the
 * branch is switched, and the confirmation check (the body of the `outbound_confirm` job)
 * is run once by hand, so each intermediate state can be looked at; then the real worker
 * takes over again. The same for a cancellation, whose 0-value self-transfer is followed to
 * the same depth: a reorg may land the original it replaced instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { parseUnits, type Address, type Hash, type Hex } from 'viem';
import {
  assetOf,
  chainOf,
  eventsOf,
  eventually,
  getTx,
  outboundOf,
  randomAddress,
  settledTx,
  startWorld,
  txAction,
  waitForEvent,
  withdraw,
  type TestChain,
  type World,
} from './world.js';

let w: World;
let eth: TestChain;
const ETH = 'devnet-eth';

beforeAll(async () => {
  w = await startWorld();
  eth = chainOf(w.h, ETH);
  await eth.sendToken('USDC', master(), '100');
});
afterAll(async () => {
  await w?.stop();
});

const master = () => w.h.wallets[ETH]!.address as Address;

/** A withdrawal mined in the current branch, its webhook delivered; the worker then stopped. */
async function minedWithdrawal(amount: string) {
  const usdc = assetOf(w.h, ETH, 'USDC');
  const to = randomAddress();
  const res = await withdraw(w.h, ETH, { assetId: usdc.id, address: to, amount });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const first = await settledTx(w.h, ETH, res.body.data.id, 'SUCCESS');
  await waitForEvent(w, ETH, first.id, 'withdraw.success');
  await w.h.stopWorker();
  const [row] = await outboundOf(w.h, first.id);
  const { rows } = await sql<{ raw: string }>`SELECT raw FROM outbound_txs WHERE id = ${row!.id}`.execute(w.h.database.db);
  return { first, to, rowId: row!.id, raw: rows[0]!.raw as Hex, units: parseUnits(amount, usdc.decimals) };
}

describe('withdrawals after a reorganisation', () => {
  it('receipt block reorged away: PENDING again, the same signed bytes sent again, SUCCESS in the new branch, paid once', async () => {
    const snap = await eth.snapshot();
    const { first, to, rowId, units } = await minedWithdrawal('1.5');
    expect(first).toMatchObject({ confirmed: true, confirmations: 1 });
    expect(await eth.balanceOf('USDC', to)).toBe(units);

    // The other branch: the same heights, blocks without our transaction.
    await eth.revert(snap);
    await eth.mine(2);
    expect(await eth.pub.getTransactionReceipt({ hash: first.hash }).catch(() => null)).toBeNull();
    expect(await eth.balanceOf('USDC', to)).toBe(0n);

    await w.h.services.outbound.confirm(rowId);
    const reopened = await getTx(w.h, ETH, first.id);
    expect(reopened).toMatchObject({ status: 'PENDING', confirmed: false, hash: first.hash, blockHash: null, blockNumber: null });
    expect(reopened.reason).toMatch(/reorganisation/);
    expect(await outboundOf(w.h, first.id)).toMatchObject([{ id: rowId, stage: 'broadcast', hash: first.hash }]);

    // The worker re-sends the stored bytes (same hash: nothing signed anew) and settles again.
    await w.h.startWorker();
    const again = await settledTx(w.h, ETH, first.id, 'SUCCESS');
    expect(again.hash).toBe(first.hash);
    expect(again.blockHash).not.toBe(first.blockHash);
    const receipt = await eth.pub.getTransactionReceipt({ hash: first.hash });
    expect(again).toMatchObject({ blockHash: receipt.blockHash, blockNumber: Number(receipt.blockNumber) });
    expect(await eth.balanceOf('USDC', to)).toBe(units);
    expect(await outboundOf(w.h, first.id)).toMatchObject([{ id: rowId, stage: 'mined', hash: first.hash }]);

    // Followed to the chain's depth (devnet: 2 confirmations) in the new branch.
    await eth.mine(2);
    const deep = await eventually(
      () => getTx(w.h, ETH, first.id),
      (t) => t.confirmations >= 2,
      10_000,
    );
    expect(deep).toMatchObject({ status: 'SUCCESS', blockHash: receipt.blockHash });
    // The receiver hears about the second settlement too, with the block that now holds it.
    const events = await eventually(
      async () => eventsOf(w, ETH, first.id).filter((e) => e.event === 'withdraw.success'),
      (list) => list.length >= 2,
      10_000,
    );
    expect(events.map((e) => e.data.blockHash)).toEqual([first.blockHash, receipt.blockHash]);
  });

  it('a node whose head is below the receipt block (lagging behind a load balancer) proves nothing: still SUCCESS until a block replaces it', async () => {
    const snap = await eth.snapshot();
    const { first, rowId, to, units } = await minedWithdrawal('0.75');

    // What a node behind the one that gave the receipt answers: no receipt, no block at that
    // height, a head below it (anvil reverted to before the block shows exactly that).
    await eth.revert(snap);
    expect(await eth.pub.getBlockNumber()).toBeLessThan(BigInt(first.blockNumber));
    await w.h.services.outbound.confirm(rowId);
    expect(await getTx(w.h, ETH, first.id)).toMatchObject({ status: 'SUCCESS', hash: first.hash, blockHash: first.blockHash });
    expect(await outboundOf(w.h, first.id)).toMatchObject([{ id: rowId, stage: 'mined' }]);

    // Once the chain has another block at that height, it is a reorganisation.
    await eth.mine(2);
    await w.h.services.outbound.confirm(rowId);
    expect(await getTx(w.h, ETH, first.id)).toMatchObject({ status: 'PENDING', blockHash: null });
    await w.h.startWorker();
    const again = await settledTx(w.h, ETH, first.id, 'SUCCESS');
    expect(again.hash).toBe(first.hash);
    expect(await eth.balanceOf('USDC', to)).toBe(units);
  });

  it('re-mined in another block with the same outcome: block fields follow, still SUCCESS, no second event', async () => {
    const snap = await eth.snapshot();
    const { first, to, rowId, raw, units } = await minedWithdrawal('2.25');

    // The other branch holds a foreign transaction at the old height and ours right after it.
    await eth.revert(snap);
    await eth.sendFiller();
    const moved = await eth.sendRaw(raw);
    expect(moved.transactionHash).toBe(first.hash);
    expect(moved.blockHash).not.toBe(first.blockHash);

    await w.h.services.outbound.confirm(rowId);
    const t = await getTx(w.h, ETH, first.id);
    expect(t).toMatchObject({ status: 'SUCCESS', confirmed: true, hash: first.hash, blockHash: moved.blockHash });
    expect(t.blockNumber).toBe(Number(moved.blockNumber));
    expect(await outboundOf(w.h, first.id)).toMatchObject([{ id: rowId, stage: 'mined' }]);
    expect(await eth.balanceOf('USDC', to)).toBe(units);

    await w.h.startWorker();
    await eth.mine(2);
    await eventually(
      () => getTx(w.h, ETH, first.id),
      (x) => x.confirmations >= 2,
      10_000,
    );
    expect(eventsOf(w, ETH, first.id).map((e) => e.event)).toEqual(['withdraw.success']);
  });
});

/**
 * A cancellation is a replacement with the same nonce: until the cancel's block is final,
 * a reorg can take it away and let the original (also broadcast) take the nonce instead.
 * The snapshot is taken with both versions known to the service and nothing mined, so
 * reverting to it gives the branch in which either can land.
 */
describe('a cancellation after a reorganisation', () => {
  const automine = (on: boolean) => eth.rpc('evm_setAutomine', [on]);

  /** A withdrawal broadcast unmined, cancelled, the cancel mined (CANCELLED); the snapshot is from before that block. */
  async function cancelledWithdrawal(amount: string) {
    const usdc = assetOf(w.h, ETH, 'USDC');
    const to = randomAddress();
    await w.h.startWorker(); // a no-op unless a failed test left it stopped
    await automine(false);
    let snap = '';
    try {
      const res = await withdraw(w.h, ETH, { assetId: usdc.id, address: to, amount });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const id = res.body.data.id as string;
      const original = await liveRow(id, 'withdraw');
      const cancelled = await txAction(w.h, ETH, 'cancel', id);
      expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
      const cancel = await liveRow(id, 'withdraw-cancel');
      expect(cancel.nonce).toBe(original.nonce);
      snap = await eth.snapshot();
      await eth.mine();
      const done = await settledTx(w.h, ETH, id, 'CANCELLED');
      expect(done).toMatchObject({ hash: cancel.hash, confirmed: true });
      await waitForEvent(w, ETH, id, 'withdraw.failed');
      await w.h.stopWorker();
      return {
        id,
        to,
        original,
        cancel,
        done,
        snap,
        units: parseUnits(amount, usdc.decimals),
        raw: await rawOf(original.id),
        cancelRaw: await rawOf(cancel.id),
      };
    } finally {
      await automine(true);
    }
  }

  it('the cancel reorged away and the original mined instead: PENDING again, then SUCCESS with withdraw.success; paid once, nonce used once', async () => {
    const { id, to, original, cancel, done, snap, units, raw } = await cancelledWithdrawal('3.5');
    expect(await eth.balanceOf('USDC', to)).toBe(0n);

    // The other branch: the cancel's block is replaced by one holding the original.
    await eth.revert(snap);
    await eth.rpc('anvil_dropAllTransactions');
    const landed = await eth.sendRaw(raw);
    expect(landed.transactionHash).toBe(original.hash);
    expect(landed.blockNumber).toBe(BigInt(done.blockNumber));
    expect(landed.blockHash).not.toBe(done.blockHash);
    expect(await eth.pub.getTransactionReceipt({ hash: cancel.hash as Hash }).catch(() => null)).toBeNull();
    expect(await eth.balanceOf('USDC', to)).toBe(units);

    await w.h.services.outbound.confirm(cancel.id);
    const reopened = await getTx(w.h, ETH, id);
    expect(reopened).toMatchObject({ status: 'PENDING', confirmed: false, blockHash: null, blockNumber: null });
    expect(reopened.reason).toMatch(/reorganisation/);
    // The original still stands aside for the cancel, which is back to 'broadcast': the tracker takes it from here.
    expect(await outboundOf(w.h, id)).toMatchObject([
      { id: original.id, stage: 'replaced', replaced_by: cancel.id },
      { id: cancel.id, stage: 'broadcast', hash: cancel.hash },
    ]);

    // The tracker finds which version of the nonce the chain now holds and settles by it.
    await w.h.startWorker();
    const paid = await settledTx(w.h, ETH, id, 'SUCCESS');
    expect(paid).toMatchObject({ hash: original.hash, blockHash: landed.blockHash, blockNumber: Number(landed.blockNumber) });
    const rows = await outboundOf(w.h, id);
    expect(rows).toMatchObject([
      { id: original.id, purpose: 'withdraw', stage: 'mined', replaced_by: null },
      { id: cancel.id, purpose: 'withdraw-cancel', stage: 'replaced', replaced_by: original.id },
    ]);

    await eth.mine(2);
    const deep = await eventually(
      () => getTx(w.h, ETH, id),
      (t) => t.confirmations >= 2,
      10_000,
    );
    expect(deep).toMatchObject({ status: 'SUCCESS', hash: original.hash, blockHash: landed.blockHash });
    const events = await eventually(
      async () => eventsOf(w, ETH, id),
      (list) => list.some((e) => e.event === 'withdraw.success'),
      10_000,
    );
    expect(events.map((e) => [e.event, e.data.status, e.data.hash])).toEqual([
      ['withdraw.failed', 'CANCELLED', cancel.hash],
      ['withdraw.success', 'SUCCESS', original.hash],
    ]);
    expect(events[0]!.data).toMatchObject({ blockHash: done.blockHash });
    expect(events[1]!.data).toMatchObject({ blockHash: landed.blockHash, confirmed: true, amount: '3.5', recipientAddress: to });
    // Paid once: the recipient holds the amount, the master's nonce was used once and the counter agrees.
    expect(await eth.balanceOf('USDC', to)).toBe(units);
    const chainNonce = await eth.pub.getTransactionCount({ address: master() });
    expect(chainNonce).toBe(Number(original.nonce) + 1);
    expect(await counterOf(original.id)).toBe(String(chainNonce));
    // Cancelling or retrying it now is what any mined withdrawal answers.
    expect((await txAction(w.h, ETH, 'cancel', id)).body.error).toBe('ALREADY_MINED');
    expect((await txAction(w.h, ETH, 'retry', id)).body.error).toBe('ALREADY_MINED');
  });

  it('the cancel re-mined in another block: still CANCELLED, block fields follow, counted to depth, no second event', async () => {
    const { id, to, cancel, done, snap, cancelRaw } = await cancelledWithdrawal('1.25');

    await eth.revert(snap);
    await eth.rpc('anvil_dropAllTransactions');
    await eth.sendFiller();
    const moved = await eth.sendRaw(cancelRaw);
    expect(moved.transactionHash).toBe(cancel.hash);
    expect(moved.blockHash).not.toBe(done.blockHash);

    await w.h.services.outbound.confirm(cancel.id);
    const t = await getTx(w.h, ETH, id);
    expect(t).toMatchObject({ status: 'CANCELLED', hash: cancel.hash, blockHash: moved.blockHash, blockNumber: Number(moved.blockNumber) });

    await w.h.startWorker();
    await eth.mine(2);
    const deep = await eventually(
      () => getTx(w.h, ETH, id),
      (x) => x.confirmations >= 2,
      10_000,
    );
    expect(deep).toMatchObject({ status: 'CANCELLED', blockHash: moved.blockHash });
    expect(eventsOf(w, ETH, id).map((e) => e.event)).toEqual(['withdraw.failed']);
    expect(await eth.balanceOf('USDC', to)).toBe(0n);
  });
});

/** The withdrawal's unsettled row of `purpose` once broadcast. */
function liveRow(id: string, purpose: string) {
  return eventually(
    async () => (await outboundOf(w.h, id)).find((r) => r.purpose === purpose && r.stage === 'broadcast'),
    (r) => r !== undefined,
    20_000,
  ).then((r) => r!);
}

async function rawOf(rowId: string): Promise<Hex> {
  const { rows } = await sql<{ raw: string }>`SELECT raw FROM outbound_txs WHERE id = ${rowId}`.execute(w.h.database.db);
  return rows[0]!.raw as Hex;
}

/** The pipeline's next nonce for the sender of an outbound row. */
async function counterOf(rowId: string): Promise<string> {
  const { rows } = await sql<{ next_nonce: string }>`
    SELECT n.next_nonce FROM nonces n JOIN outbound_txs o ON o.chain_id = n.chain_id AND o.from_address = n.address
     WHERE o.id = ${rowId}`.execute(w.h.database.db);
  return String(rows[0]!.next_nonce);
}
