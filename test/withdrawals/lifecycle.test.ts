/**
 * After a withdrawal is accepted: a dropped transaction re-sent with its nonce, cancel
 * (before broadcast, while unmined, beaten by the original, after mining) and retry
 * (failed on chain, stuck, in states that do not allow it), each checked on chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeAbiParameters, keccak256, pad, parseTransaction, toHex, type Address, type Hash, type Hex } from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { uuidv7 } from '../../src/lib/ids.js';
import { recordDeposit } from '../support/fixtures.js';
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
const USDC = 1_000_000n;

beforeAll(async () => {
  w = await startWorld({ specs: [DEVNET_CHAINS[0]!] });
  eth = chainOf(w.h, ETH);
  await eth.sendToken('USDC', master(), '10000');
});
afterAll(async () => {
  await w?.stop();
});

const master = () => w.h.wallets[ETH]!.address as Address;
const usdc = () => assetOf(w.h, ETH, 'USDC');
const automine = (on: boolean) => eth.rpc('evm_setAutomine', [on]);
const nonceOf = () => eth.pub.getTransactionCount({ address: master() });

async function send(amount = '1', to: Address = randomAddress()) {
  const res = await withdraw(w.h, ETH, { assetId: usdc().id, address: to, amount });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { id: res.body.data.id as string, to };
}

/** The withdrawal's live outbound row once it reached `stage`. */
function rowAt(id: string, stage: string, purpose = 'withdraw') {
  return eventually(
    async () => (await outboundOf(w.h, id)).find((r) => r.purpose === purpose && r.stage === stage),
    (r) => r !== undefined,
    20_000,
  ).then((r) => r!);
}

describe('dropped transactions', () => {
  it('a withdrawal dropped from the node is re-sent with the same nonce (same bytes) and mined once', async () => {
    await automine(false);
    try {
      const { id, to } = await send('1.25');
      const row = await rowAt(id, 'broadcast');
      await w.h.stopWorker();
      try {
        await eth.rpc('anvil_dropTransaction', [row.hash]);
        await expect(eth.pub.getTransaction({ hash: row.hash as Hash })).rejects.toThrow();
      } finally {
        await w.h.startWorker();
      }
      // The tracker puts it back.
      await eventually(
        () =>
          eth.pub.getTransaction({ hash: row.hash as Hash }).then(
            () => true,
            () => false,
          ),
        (known) => known,
        20_000,
      );
      await eth.mine();
      const done = await settledTx(w.h, ETH, id);
      expect(done).toMatchObject({ status: 'SUCCESS', hash: row.hash });
      expect(Number((await eth.pub.getTransaction({ hash: row.hash as Hash })).nonce)).toBe(Number(row.nonce));
      expect(await eth.balanceOf('USDC', to)).toBe(1_250_000n);
      expect(await outboundOf(w.h, id)).toHaveLength(1);
    } finally {
      await automine(true);
    }
  });
});

describe('cancel', () => {
  it('before broadcast: CANCELLED at once; its nonce is filled, so later withdrawals are not blocked', async () => {
    await w.h.stopWorker();
    let id = '';
    let to: Address;
    const start = await nonceOf();
    try {
      ({ id, to } = await send('2'));
      const res = await txAction(w.h, ETH, 'cancel', id);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.message).toBe('Transaction cancelled successfully');
      expect(res.body.data).toMatchObject({ id, status: 'CANCELLED', type: 'WITHDRAW' });
      expect((await txAction(w.h, ETH, 'cancel', id)).status).toBe(409);
    } finally {
      await w.h.startWorker();
    }
    const later = await send('3');
    expect((await settledTx(w.h, ETH, later.id)).status).toBe('SUCCESS');
    expect(await eth.balanceOf('USDC', to!)).toBe(0n);
    expect(await eth.balanceOf('USDC', later.to)).toBe(3n * USDC);
    // Nonce `start` went to the 0-value self-transfer, `start + 1` to the later withdrawal.
    expect(await nonceOf()).toBe(start + 2);
    const [voided] = await outboundOf(w.h, id);
    expect(voided).toMatchObject({ stage: 'replaced', nonce: String(start) });
    expect((await getTx(w.h, ETH, id)).status).toBe('CANCELLED');
    const events = await waitForEvent(w, ETH, id, 'withdraw.failed');
    expect(events.find((e) => e.event === 'withdraw.failed')!.data.status).toBe('CANCELLED');
  });

  it('broadcast but unmined: a same-nonce 0-value self-transfer with bumped fees is mined, then CANCELLED', async () => {
    await automine(false);
    try {
      const { id, to } = await send('4');
      const original = await rowAt(id, 'broadcast');
      const res = await txAction(w.h, ETH, 'cancel', id);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.message).toBe('Transaction cancellation submitted successfully');
      expect(res.body.data.status).toBe('PENDING');
      const cancel = await rowAt(id, 'broadcast', 'withdraw-cancel');
      expect(cancel).toMatchObject({ nonce: original.nonce, to_address: master(), value: '0' });
      expect(BigInt(cancel.max_fee_per_gas!) * 100n).toBeGreaterThanOrEqual(BigInt(original.max_fee_per_gas!) * 110n);
      expect(BigInt(cancel.max_priority_fee_per_gas!) * 100n).toBeGreaterThanOrEqual(BigInt(original.max_priority_fee_per_gas!) * 110n);
      expect((await outboundOf(w.h, id)).find((r) => r.id === original.id)).toMatchObject({ stage: 'replaced', replaced_by: cancel.id });
      // A second cancel while the first is in flight changes nothing.
      expect((await txAction(w.h, ETH, 'cancel', id)).status).toBe(200);
      expect(await outboundOf(w.h, id)).toHaveLength(2);

      await eth.mine();
      const done = await settledTx(w.h, ETH, id);
      expect(done).toMatchObject({ status: 'CANCELLED', hash: cancel.hash, confirmed: true });
      const onChain = await eth.pub.getTransaction({ hash: cancel.hash as Hash });
      expect(onChain).toMatchObject({ from: master().toLowerCase(), to: master().toLowerCase(), value: 0n, nonce: Number(original.nonce) });
      await expect(eth.pub.getTransactionReceipt({ hash: original.hash as Hash })).rejects.toThrow();
      expect(await eth.balanceOf('USDC', to)).toBe(0n);
      expect((await waitForEvent(w, ETH, id, 'withdraw.failed')).at(-1)!.data.status).toBe('CANCELLED');
    } finally {
      await automine(true);
    }
  });

  it('if the original is mined instead of the cancellation, the withdrawal is SUCCESS, settled once', async () => {
    await automine(false);
    try {
      const { id, to } = await send('5');
      const original = await rowAt(id, 'broadcast');
      const raw = (await w.h.services.outbound.get(original.id))!.raw as Hex;
      expect((await txAction(w.h, ETH, 'cancel', id)).status).toBe(200);
      const cancel = await rowAt(id, 'broadcast', 'withdraw-cancel');
      // A node somewhere still had the original and a block producer took it.
      await w.h.stopWorker();
      try {
        await eth.rpc('anvil_dropTransaction', [cancel.hash]);
        await eth.rpc('eth_sendRawTransaction', [raw]);
        await eth.mine();
      } finally {
        await w.h.startWorker();
      }
      const done = await settledTx(w.h, ETH, id);
      expect(done).toMatchObject({ status: 'SUCCESS', hash: original.hash });
      expect(await eth.balanceOf('USDC', to)).toBe(5n * USDC);
      const rows = await outboundOf(w.h, id);
      expect(rows.find((r) => r.id === original.id)!.stage).toBe('mined');
      expect(rows.find((r) => r.id === cancel.id)!.stage).toBe('replaced');
      await waitForEvent(w, ETH, id, 'withdraw.success');
      expect(eventsOf(w, ETH, id).map((e) => e.event)).toEqual(['withdraw.success']);
    } finally {
      await automine(true);
    }
  });

  it('mined, cancelled, failed or not a withdrawal: 409; foreign or unknown: 404', async () => {
    const { id } = await send('0.5');
    await settledTx(w.h, ETH, id, 'SUCCESS');
    const mined = await txAction(w.h, ETH, 'cancel', id);
    expect(mined.status).toBe(409);
    expect(mined.body.error).toBe('ALREADY_MINED');
    const deposit = await recordDeposit(w.h, ETH);
    expect((await txAction(w.h, ETH, 'cancel', deposit.id)).status).toBe(409);
    expect((await txAction(w.h, ETH, 'cancel', uuidv7())).status).toBe(404);
    expect((await txAction(w.h, ETH, 'retry', uuidv7())).status).toBe(404);
    const bad = await w.h.api('POST', `/v1/wallets/${w.h.wallets[ETH]!.id}/transactions/cancel`, { body: { id: 'x' } });
    expect(bad.status).toBe(400);
  });
});

/** The storage slot of `owner`'s balance in the devnet token (balanceOf is its 4th slot). */
const balanceSlot = (owner: Address) => keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner, 3n]));

describe('retry', () => {
  it('FAILED (reverted on chain): sent again with a new nonce and fees >= 10% higher, PENDING, then SUCCESS; paid once', async () => {
    const token = usdc().address;
    const slot = balanceSlot(master());
    const held = await eth.balanceOf('USDC', master());
    await automine(false);
    let id = '';
    let to: Address;
    let failedRow: Awaited<ReturnType<typeof rowAt>>;
    try {
      ({ id, to } = await send('6'));
      failedRow = await rowAt(id, 'broadcast');
      // The funds vanish between signing and mining: the transfer reverts on chain.
      await eth.rpc('anvil_setStorageAt', [token, slot, pad(toHex(0n))]);
      await eth.mine();
    } finally {
      await automine(true);
    }
    const failed = await settledTx(w.h, ETH, id);
    expect(failed).toMatchObject({ status: 'FAILED', hash: failedRow.hash, confirmed: true });
    expect(failed.reason).toMatch(/reverted/);
    expect((await eth.pub.getTransactionReceipt({ hash: failedRow.hash as Hash })).status).toBe('reverted');
    await waitForEvent(w, ETH, id, 'withdraw.failed');

    // Not before the failed attempt is final: a reorg could still undo it (devnet: 2 confirmations).
    const early = await txAction(w.h, ETH, 'retry', id);
    expect(early.status, JSON.stringify(early.body)).toBe(409);
    expect(JSON.stringify(early.body)).toContain('NOT_FINAL');
    expect((await getTx(w.h, ETH, id)).status).toBe('FAILED');
    await eth.mine();
    await eventually(
      () => getTx(w.h, ETH, id),
      (t) => t.confirmations >= 2,
      10_000,
    );

    // Without the funds a retry is refused like a new withdrawal would be, and changes nothing.
    const refused = await txAction(w.h, ETH, 'retry', id);
    expect(refused.status).toBe(422);
    expect((await getTx(w.h, ETH, id)).status).toBe('FAILED');

    await eth.rpc('anvil_setStorageAt', [token, slot, pad(toHex(held))]);
    const res = await txAction(w.h, ETH, 'retry', id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.message).toBe('Transaction retried successfully');
    expect(res.body.data).toMatchObject({ id, status: 'PENDING', hash: null });
    const done = await settledTx(w.h, ETH, id);
    expect(done.status).toBe('SUCCESS');
    const rows = await outboundOf(w.h, id);
    expect(rows).toHaveLength(2);
    const [first, second] = rows as [(typeof rows)[0], (typeof rows)[0]];
    expect(first.stage).toBe('failed');
    expect(second).toMatchObject({ stage: 'mined', nonce: String(Number(first.nonce) + 1), hash: done.hash });
    expect(BigInt(second.max_fee_per_gas!) * 100n).toBeGreaterThanOrEqual(BigInt(first.max_fee_per_gas!) * 110n);
    expect(BigInt(second.max_priority_fee_per_gas!) * 100n).toBeGreaterThanOrEqual(BigInt(first.max_priority_fee_per_gas!) * 110n);
    expect(await eth.balanceOf('USDC', to!)).toBe(6n * USDC);
    expect(await eth.balanceOf('USDC', master())).toBe(held - 6n * USDC);
    const retried = await txAction(w.h, ETH, 'retry', id);
    expect(retried.status).toBe(409);
    expect(retried.body.error).toBe('ALREADY_MINED');
  });

  it('stuck (PENDING, broadcast): replaced now with the same nonce and fees >= 10% higher; one payment', async () => {
    await automine(false);
    try {
      const { id, to } = await send('7');
      const original = await rowAt(id, 'broadcast');
      const res = await txAction(w.h, ETH, 'retry', id);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.status).toBe('PENDING');
      const rows = await outboundOf(w.h, id);
      expect(rows).toHaveLength(2);
      const replacement = rows[1]!;
      expect(replacement).toMatchObject({ nonce: original.nonce, purpose: 'withdraw' });
      expect(rows[0]).toMatchObject({ stage: 'replaced', replaced_by: replacement.id });
      const parsed = parseTransaction((await w.h.services.outbound.get(replacement.id))!.raw as Hex);
      expect(parsed.maxFeePerGas! * 100n).toBeGreaterThanOrEqual(BigInt(original.max_fee_per_gas!) * 110n);
      expect(parsed.maxPriorityFeePerGas! * 100n).toBeGreaterThanOrEqual(BigInt(original.max_priority_fee_per_gas!) * 110n);
      expect((await getTx(w.h, ETH, id)).hash).toBe(replacement.hash);
      await eventually(
        async () => (await outboundOf(w.h, id))[1]!.stage,
        (s) => s === 'broadcast',
      );
      await eth.mine();
      const done = await settledTx(w.h, ETH, id);
      expect(done).toMatchObject({ status: 'SUCCESS', hash: replacement.hash });
      expect(await eth.balanceOf('USDC', to)).toBe(7n * USDC);
      await expect(eth.pub.getTransactionReceipt({ hash: original.hash as Hash })).rejects.toThrow();
    } finally {
      await automine(true);
    }
  });

  it('not yet signed: 409; CANCELLED: 409', async () => {
    await w.h.stopWorker();
    let id = '';
    try {
      ({ id } = await send('1'));
      const early = await txAction(w.h, ETH, 'retry', id);
      expect(early.status).toBe(409);
      expect(early.body.error).toBe('NOT_YET_SENT');
      expect((await txAction(w.h, ETH, 'cancel', id)).status).toBe(200);
      const cancelled = await txAction(w.h, ETH, 'retry', id);
      expect(cancelled.status).toBe(409);
      expect(cancelled.body.error).toBe('ALREADY_CANCELLED');
    } finally {
      await w.h.startWorker();
    }
  });
});
