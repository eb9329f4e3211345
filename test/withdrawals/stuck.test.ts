/**
 * Stuck withdrawals are replaced by the tracker on its own: unmined for `replaceAfterMs`
 * (the base fee rose above the fee cap), or refused outright for a fee cap below the base
 * fee. Same nonce, both fee fields at least 10% higher; whichever version is mined settles
 * the withdrawal, once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toHex, type Address, type Hash, type Hex } from 'viem';
import { sql } from 'kysely';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import {
  assetOf,
  chainOf,
  eventsOf,
  eventually,
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
  w = await startWorld({ specs: [DEVNET_CHAINS[0]!], outbound: { replaceAfterMs: 1_500 } });
  eth = chainOf(w.h, ETH);
  await eth.sendToken('USDC', master(), '1000');
});
afterAll(async () => {
  await w?.stop();
});

const master = () => w.h.wallets[ETH]!.address as Address;
const automine = (on: boolean) => eth.rpc('evm_setAutomine', [on]);
type Row = Awaited<ReturnType<typeof outboundOf>>[number];

async function send(amount: string) {
  const to = randomAddress();
  const res = await withdraw(w.h, ETH, { assetId: assetOf(w.h, ETH, 'USDC').id, address: to, amount });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { id: res.body.data.id as string, to };
}

/** Each version's fee fields at least 10% above the one it replaced, all on one nonce. */
function expectBumps(rows: Row[]) {
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1]!, rows[i]!];
    expect(b.nonce).toBe(a.nonce);
    expect(a).toMatchObject({ stage: 'replaced', replaced_by: b.id });
    expect(BigInt(b.max_fee_per_gas!) * 100n).toBeGreaterThanOrEqual(BigInt(a.max_fee_per_gas!) * 110n);
    expect(BigInt(b.max_priority_fee_per_gas!) * 100n).toBeGreaterThanOrEqual(BigInt(a.max_priority_fee_per_gas!) * 110n);
  }
}

describe('stuck withdrawals', () => {
  it('unmined for replaceAfterMs (a node holds it, nobody mines it): replaced with bumped fees, then mined', async () => {
    await automine(false);
    try {
      const { id, to } = await send('10');
      const original = await eventually(
        async () => (await outboundOf(w.h, id))[0]!,
        (r) => r.stage === 'broadcast',
      );

      const rows = await eventually(
        () => outboundOf(w.h, id),
        (r) => r.length >= 2 && r.at(-1)!.stage === 'broadcast',
        20_000,
      );
      expectBumps(rows);
      expect(Date.now() - new Date((await w.h.services.outbound.get(original.id))!.broadcastAt!).getTime()).toBeGreaterThanOrEqual(1_500);
      await eth.mine();
      const done = await settledTx(w.h, ETH, id);
      const last = (await outboundOf(w.h, id)).at(-1)!;
      expect(done).toMatchObject({ status: 'SUCCESS', hash: last.hash });
      expect(last.stage).toBe('mined');
      const onChain = await eth.pub.getTransaction({ hash: last.hash as Hash });
      expect(Number(onChain.nonce)).toBe(Number(original.nonce));
      expect(await eth.balanceOf('USDC', to)).toBe(10_000_000n);
      expect(await eth.pub.getTransactionCount({ address: master() })).toBe(Number(original.nonce) + 1);
      await waitForEvent(w, ETH, id, 'withdraw.success');
      expect(eventsOf(w, ETH, id).map((e) => e.event)).toEqual(['withdraw.success']);
    } finally {
      await automine(true);
    }
  });

  it('the base fee rises above its fee cap: the refused re-broadcast gets it replaced with bumped fees, then mined', async () => {
    await automine(false);
    try {
      const { id, to } = await send('10');
      const original = await eventually(
        async () => (await outboundOf(w.h, id))[0]!,
        (r) => r.stage === 'broadcast',
      );
      // The next block's base fee is above what the transaction may pay: it stays in the pool.
      await eth.rpc('anvil_setNextBlockBaseFeePerGas', [toHex(BigInt(original.max_fee_per_gas!) * 3n)]);
      await eth.mine();
      await expect(eth.pub.getTransactionReceipt({ hash: original.hash as Hash })).rejects.toThrow();

      const rows = await eventually(
        () => outboundOf(w.h, id),
        (r) => r.length >= 2 && r.at(-1)!.stage === 'broadcast',
        20_000,
      );
      expectBumps(rows);
      await eth.mine();
      const done = await settledTx(w.h, ETH, id);
      const last = (await outboundOf(w.h, id)).at(-1)!;
      expect(done).toMatchObject({ status: 'SUCCESS', hash: last.hash });
      expect(last.stage).toBe('mined');
      const onChain = await eth.pub.getTransaction({ hash: last.hash as Hash });
      expect(Number(onChain.nonce)).toBe(Number(original.nonce));
      expect(await eth.balanceOf('USDC', to)).toBe(10_000_000n);
      expect(await eth.pub.getTransactionCount({ address: master() })).toBe(Number(original.nonce) + 1);
      await waitForEvent(w, ETH, id, 'withdraw.success');
      expect(eventsOf(w, ETH, id).map((e) => e.event)).toEqual(['withdraw.success']);
    } finally {
      await automine(true);
    }
  });

  it('a fee cap the node refuses outright is replaced without waiting, as often as needed, then mined', async () => {
    const before = await eth.pub.getBlock();
    // Fees are estimated from the latest block; the pending one will charge 1.5x that.
    await eth.rpc('anvil_setNextBlockBaseFeePerGas', [toHex((before.baseFeePerGas! * 3n) / 2n + 1_000_000_000n)]);
    const started = Date.now();
    const { id, to } = await send('11');
    const done = await settledTx(w.h, ETH, id);
    expect(done.status).toBe('SUCCESS');
    expect(Date.now() - started).toBeLessThan(10_000);
    const rows = await outboundOf(w.h, id);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expectBumps(rows);
    expect(rows.at(-1)).toMatchObject({ stage: 'mined', hash: done.hash });
    expect(await eth.balanceOf('USDC', to)).toBe(11_000_000n);
  });

  it('replaced, but the original is mined after all: settled as the original, once', async () => {
    // The worker shares fee estimates for 1 s (FeeCache): one read before the previous
    // test raised the base fee would be refused at once, and the original never seen broadcast.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await automine(false);
    try {
      const { id, to } = await send('12');
      const original = await eventually(
        async () => (await outboundOf(w.h, id))[0]!,
        (r) => r.stage === 'broadcast',
      );
      const raw = (await w.h.services.outbound.get(original.id))!.raw as Hex;
      await eth.rpc('anvil_setNextBlockBaseFeePerGas', [toHex(BigInt(original.max_fee_per_gas!) * 3n)]);
      await eth.mine();
      const rows = await eventually(
        () => outboundOf(w.h, id),
        (r) => r.length >= 2 && r.at(-1)!.stage === 'broadcast',
        20_000,
      );
      await w.h.stopWorker();
      try {
        // Another node's pool kept the original; the base fee fell back and it got mined.
        // Every replacement leaves this pool: a third version may have been signed before the worker stopped.
        for (const r of await outboundOf(w.h, id)) if (r.id !== original.id && r.hash) await eth.rpc('anvil_dropTransaction', [r.hash]);
        await eth.rpc('anvil_setNextBlockBaseFeePerGas', [toHex(1_000_000n)]);
        await eth.rpc('eth_sendRawTransaction', [raw]);
        await eth.mine();
        expect((await eth.pub.getTransactionReceipt({ hash: original.hash as Hash })).status).toBe('success');
      } finally {
        await w.h.startWorker();
      }
      const done = await settledTx(w.h, ETH, id);
      expect(done).toMatchObject({ status: 'SUCCESS', hash: original.hash });
      const after = await outboundOf(w.h, id);
      expect(after[0]!.stage).toBe('mined');
      expect(after.slice(1).every((r) => r.stage === 'replaced')).toBe(true);
      expect(await eth.balanceOf('USDC', to)).toBe(12_000_000n);
      await waitForEvent(w, ETH, id, 'withdraw.success');
      expect(eventsOf(w, ETH, id).map((e) => e.event)).toEqual(['withdraw.success']);
    } finally {
      await automine(true);
    }
  });

  it('a replacement that may cost more than its acceptance reserved raises its reserved fee (what the funds check of later requests holds for it)', async () => {
    // The worker shares fee estimates for 1 s (FeeCache): one read while the previous test
    // had the base fee raised would reserve far above what the withdrawal is then signed with,
    // and its speed-up (10% above what was signed) would stay below that reservation.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await automine(false);
    try {
      const { id } = await send('1');
      const reserved = async () =>
        BigInt((await sql<{ r: string }>`SELECT reserved_fee AS r FROM transactions WHERE id = ${id}`.execute(w.h.database.db)).rows[0]!.r);
      const accepted = await reserved();
      const rows = await eventually(
        () => outboundOf(w.h, id),
        (r) => r.length >= 2 && r.at(-1)!.stage === 'broadcast',
        20_000,
      );
      const { rows: nets } = await sql<{ n: { gasLimit: string; maxFeePerGas: string } }>`
        SELECT network_data AS n FROM outbound_txs WHERE id = ${rows.at(-1)!.id}`.execute(w.h.database.db);
      const worst = BigInt(nets[0]!.n.gasLimit) * BigInt(nets[0]!.n.maxFeePerGas);
      // Each speed-up bids at least 10% more: its worst case is above what acceptance held.
      expect(worst).toBeGreaterThan(accepted);
      expect(await reserved()).toBeGreaterThanOrEqual(worst);
    } finally {
      await automine(true);
      await eth.mine();
    }
  });
});
