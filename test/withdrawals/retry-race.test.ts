/**
 * Two retries of one FAILED withdrawal in flight at once: the second one read the withdrawal
 * before the first one sent it again, and reaches its database transaction after that new
 * attempt has also failed on chain, but is not final yet. It must judge the attempt it finds
 * under the lock (not final: 409 NOT_FINAL), not the one it read: a reorg could still turn
 * the new attempt into a payment, and a third attempt would then pay twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeAbiParameters, keccak256, pad, toHex, type Address } from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import {
  assetOf,
  chainOf,
  eventually,
  getTx,
  outboundOf,
  randomAddress,
  settledTx,
  startWorld,
  txAction,
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
  await eth.sendToken('USDC', master(), '10000');
});
afterAll(async () => {
  await w?.stop();
});

const master = () => w.h.wallets[ETH]!.address as Address;
const usdc = () => assetOf(w.h, ETH, 'USDC');
const automine = (on: boolean) => eth.rpc('evm_setAutomine', [on]);
const balanceSlot = (owner: Address) => keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner, 3n]));
const setBalance = (v: bigint) => eth.rpc('anvil_setStorageAt', [usdc().address, balanceSlot(master()), pad(toHex(v))]);

/** The `n`th outbound row of the withdrawal (in creation order) once it is broadcast. */
const broadcastRow = (id: string, n: number) =>
  eventually(
    async () => (await outboundOf(w.h, id))[n],
    (r) => r?.stage === 'broadcast',
    20_000,
  );

/**
 * Mines the withdrawal's `n`th attempt (sent with automine off) with the master's tokens
 * gone: it reverts on chain; the withdrawal is FAILED with it, the tokens back.
 */
async function revertAttempt(id: string, n: number, held: bigint) {
  let hash: string;
  try {
    hash = (await broadcastRow(id, n))!.hash!;
    await setBalance(0n);
    await eth.mine();
  } finally {
    await automine(true);
  }
  await eventually(
    () => getTx(w.h, ETH, id),
    (t) => t.status === 'FAILED' && t.hash === hash,
    20_000,
  );
  await setBalance(held);
}

describe('retry racing retry', () => {
  it('a retry that read an earlier, final failure does not resend an attempt that failed since and is not final', async () => {
    const held = await eth.balanceOf('USDC', master());
    await automine(false);
    const res = await withdraw(w.h, ETH, { assetId: usdc().id, address: randomAddress(), amount: '5' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.data.id as string;
    await revertAttempt(id, 0, held);
    await settledTx(w.h, ETH, id, 'FAILED');
    // Final (devnet: 2 confirmations): a retry is allowed.
    await eth.mine();
    await eventually(
      () => getTx(w.h, ETH, id),
      (t) => t.confirmations >= 2,
      10_000,
    );

    // The slow retry stops after its checks of the withdrawal it read, before its transaction.
    const service = w.h.services.withdrawals as unknown as { checkWhitelist: (...a: unknown[]) => Promise<void> };
    const original = service.checkWhitelist;
    let reached!: () => void;
    let release!: () => void;
    const atGate = new Promise<void>((r) => (reached = r));
    const gate = new Promise<void>((r) => (release = r));
    let first = true;
    service.checkWhitelist = async function (this: unknown, ...args: unknown[]) {
      if (first) {
        first = false;
        reached();
        await gate;
      }
      return original.apply(this, args);
    };
    try {
      const slow = txAction(w.h, ETH, 'retry', id);
      await atGate;
      // Meanwhile another retry sends it again, and that attempt reverts too: 1 block deep of 2.
      await automine(false);
      const fast = await txAction(w.h, ETH, 'retry', id);
      expect(fast.status, JSON.stringify(fast.body)).toBe(200);
      await revertAttempt(id, 1, held);
      const second = await getTx(w.h, ETH, id);
      expect(second).toMatchObject({ status: 'FAILED', confirmations: 1 });

      release();
      const late = await slow;
      expect(late.status, JSON.stringify(late.body)).toBe(409);
      expect(late.body.error).toBe('NOT_FINAL');
      expect(await outboundOf(w.h, id)).toHaveLength(2);
      expect((await getTx(w.h, ETH, id)).status).toBe('FAILED');
    } finally {
      release();
      service.checkWhitelist = original;
    }
  });
});
