/**
 * Concurrency: many withdrawals from one address get contiguous nonces and are all mined
 * once; concurrent withdrawals of the same funds are accepted exactly once; concurrent
 * twins (same reference, same Idempotency-Key) pay once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Address, Hash } from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import {
  assetOf,
  chainOf,
  newChild,
  outboundOf,
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

describe('concurrent withdrawals', () => {
  it('100 at once from the master: all accepted and mined, nonces contiguous, each paid exactly once', { timeout: 120_000 }, async () => {
    await eth.sendToken('USDC', master(), '1000');
    const usdc = assetOf(w.h, ETH, 'USDC');
    const start = await eth.pub.getTransactionCount({ address: master() });
    const usdcBefore = await eth.balanceOf('USDC', master());
    const recipients = Array.from({ length: 100 }, () => randomAddress());

    const responses = await Promise.all(recipients.map((address) => withdraw(w.h, ETH, { assetId: usdc.id, address, amount: '1.5' })));

    expect(responses.map((r) => r.status)).toEqual(recipients.map(() => 200));
    const ids = responses.map((r) => r.body.data.id as string);
    expect(new Set(ids).size).toBe(100);

    const done = await Promise.all(ids.map((id) => settledTx(w.h, ETH, id, undefined, 90_000)));
    expect(done.every((t) => t.status === 'SUCCESS')).toBe(true);
    const rows = (await Promise.all(ids.map((id) => outboundOf(w.h, id)))).map((r) => {
      expect(r).toHaveLength(1);
      return r[0]!;
    });
    const nonces = rows.map((r) => Number(r.nonce)).sort((a, b) => a - b);
    expect(nonces).toEqual(Array.from({ length: 100 }, (_, i) => start + i));
    expect(new Set(done.map((t) => t.hash)).size).toBe(100);
    expect(await eth.pub.getTransactionCount({ address: master() })).toBe(start + 100);
    for (const [i, t] of done.entries()) {
      const onChain = await eth.pub.getTransaction({ hash: t.hash as Hash });
      expect(onChain.from.toLowerCase()).toBe(master().toLowerCase());
      expect(Number(onChain.nonce)).toBe(Number(rows[i]!.nonce));
    }
    const paid = await Promise.all(recipients.map((r) => eth.balanceOf('USDC', r)));
    expect(paid).toEqual(recipients.map(() => 1_500_000n));
    expect(await eth.balanceOf('USDC', master())).toBe(usdcBefore - 150_000_000n);
  });

  it('50 at once, each of the full balance: exactly one accepted, 49 refused with 422, paid once', { timeout: 60_000 }, async () => {
    const child = await newChild(w.h, ETH);
    await eth.sendToken('USDC', child.address, '77.123456');
    await eth.sendNative(child.address, '1');
    const usdc = assetOf(w.h, ETH, 'USDC');
    const to = randomAddress();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => withdraw(w.h, ETH, { assetId: usdc.id, address: to, amount: '77.123456' }, { addressId: child.id })),
    );
    const accepted = responses.filter((r) => r.status === 200);
    expect(accepted).toHaveLength(1);
    const refused = responses.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(49);
    for (const r of refused) expect(r.body).toMatchObject({ statusCode: 422, error: 'INSUFFICIENT_BALANCE' });

    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM transactions WHERE sender_address = ${child.address} AND type = 'WITHDRAW'`.execute(w.h.database.db);
    expect(Number(rows[0]!.n)).toBe(1);
    expect((await settledTx(w.h, ETH, accepted[0]!.body.data.id)).status).toBe('SUCCESS');
    expect(await eth.balanceOf('USDC', to)).toBe(77_123_456n);
    expect(await eth.balanceOf('USDC', child.address)).toBe(0n);
    expect(await eth.pub.getTransactionCount({ address: child.address })).toBe(1);
  });

  it('native coin: amounts and gas of pending withdrawals are reserved', async () => {
    const native = w.h.services.catalogue.findChain(ETH, 'testnet')!.assets.find((a) => a.is_native)!;
    expect((await w.h.api('PATCH', `/v1/wallets/${w.h.wallets[ETH]!.id}/assets/${native.id}`, { body: { isActive: true } })).status).toBe(
      200,
    );
    const child = await newChild(w.h, ETH);
    await eth.sendNative(child.address, '1');
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        withdraw(w.h, ETH, { assetId: native.id, address: randomAddress(), amount: '0.3' }, { addressId: child.id }),
      ),
    );
    // 3 x 0.3 plus their gas fit in 1; a fourth does not.
    expect(responses.filter((r) => r.status === 200)).toHaveLength(3);
    expect(responses.filter((r) => r.status === 422)).toHaveLength(7);
    const done = await Promise.all(responses.filter((r) => r.status === 200).map((r) => settledTx(w.h, ETH, r.body.data.id)));
    expect(done.map((t) => t.status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
  });

  it('20 concurrent twins with one reference: one transaction, every response names it', async () => {
    const usdc = assetOf(w.h, ETH, 'USDC');
    const body = { assetId: usdc.id, address: randomAddress(), amount: '2', reference: `twin-${Date.now()}` };
    const responses = await Promise.all(Array.from({ length: 20 }, () => withdraw(w.h, ETH, body)));
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
    const ids = new Set(responses.map((r) => r.body.data.id));
    expect(ids.size).toBe(1);
    const [id] = [...ids];
    expect(await outboundOf(w.h, id)).toHaveLength(1);
    await settledTx(w.h, ETH, id, 'SUCCESS');
    expect(await eth.balanceOf('USDC', body.address)).toBe(2_000_000n);
  });

  it('20 concurrent twins with one Idempotency-Key: one transaction, identical responses', async () => {
    const usdc = assetOf(w.h, ETH, 'USDC');
    const body = { assets: [{ id: usdc.id, address: randomAddress(), amount: '3' }] };
    const headers = { 'idempotency-key': `idem-${Date.now()}` };
    const responses = await Promise.all(Array.from({ length: 20 }, () => withdraw(w.h, ETH, body, { headers })));
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
    for (const r of responses) expect(r.body.data).toEqual(responses[0]!.body.data);
    const id = responses[0]!.body.data[0].id;
    expect(await outboundOf(w.h, id)).toHaveLength(1);
    await settledTx(w.h, ETH, id, 'SUCCESS');
    expect(await eth.balanceOf('USDC', body.assets[0]!.address)).toBe(3_000_000n);
  });
});
