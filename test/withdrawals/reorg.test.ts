/**
 * A withdrawal whose receipt block is reorganised away, on anvil (evm_snapshot / evm_revert
 * give the chain another branch at the same heights). The worker is stopped while the
 * branch is switched, and the confirmation check (the body of the `outbound_confirm` job)
 * is run once by hand, so each intermediate state can be looked at; then the real worker
 * takes over again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { parseUnits, type Address, type Hex } from 'viem';
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
