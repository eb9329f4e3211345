/**
 * An unstake made while an earlier unstake has unlocked: java-tron's unfreezebalancev2 first
 * pays the unlocked amount out to the balance (`withdraw_expire_amount` in its transaction
 * info), as a withdrawal would. The UNSTAKING Transaction and its webhook say so
 * (`metadata.staking.withdrawn`), or the TRX would reach the balance with no record anywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, info } from '../../../src/devnet/tron/testkit.js';
import { events, hex41, settled, startTronWorld, walletApi, type TronWorld } from './world.js';
import { eventually } from '../../support/fixtures.js';

let w: TronWorld;
const TRX = 1_000_000n;
const DAY = 86_400_000;

beforeAll(async () => {
  w = await startTronWorld('tron-unstake-payout', { chainId: 990_342, masterSun: 500_000_000 });
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

async function operate(path: string, body: unknown) {
  const res = await walletApi(w, 'POST', `/staking/${path}`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const done = await settled(w, res.body.data.id);
  expect(done.status, JSON.stringify(done)).toBe('SUCCESS');
  return done;
}

const balance = async () => BigInt((await account(w.s, hex41(w.wallet.address))).balance ?? 0);

describe('an unstake after an earlier one unlocked', () => {
  it('records the unlocked TRX the chain paid out with it, in the Transaction and its webhook', async () => {
    await operate('stake', { amount: '50', resource: 'ENERGY' });
    await operate('unstake', { amount: '20', resource: 'ENERGY' });
    await w.s.control.advanceTime(14 * DAY + 3_000);
    await w.s.control.produceBlocks(2);
    expect((await walletApi(w, 'GET', '/staking')).body.data.withdrawable).toBe('20');

    const before = await balance();
    const second = await operate('unstake', { amount: '5', resource: 'ENERGY' });
    const paid = BigInt((await info(w.s, second.hash)).withdraw_expire_amount ?? 0);
    const fee = BigInt((await info(w.s, second.hash)).fee ?? 0);
    // The chain paid the unlocked 20 TRX out with the unstake.
    expect(paid).toBe(20n * TRX);
    expect(await balance()).toBe(before + 20n * TRX - fee);
    expect((await walletApi(w, 'GET', '/staking')).body.data.withdrawable).toBe('0');

    expect(second).toMatchObject({ type: 'UNSTAKING', amount: '5' });
    expect(second.metadata.staking).toMatchObject({ action: 'unstake', resource: 'ENERGY', withdrawn: '20000000' });
    const [event] = await events(w, second.id, 'unstaking.success');
    expect(event!.data.metadata.staking.withdrawn).toBe('20000000');
  }, 90_000);
});

describe("the chain's limit of 32 unstakes waiting", () => {
  it('refuses a 33rd unstake with 422 UNSTAKE_LIMIT_REACHED before anything is written', async () => {
    await operate('stake', { amount: '40', resource: 'BANDWIDTH' });
    const sent = await Promise.all(
      Array.from({ length: 32 }, () => walletApi(w, 'POST', '/staking/unstake', { amount: '1', resource: 'BANDWIDTH' })),
    );
    expect(sent.map((r) => r.status)).toEqual(Array(32).fill(200));
    await eventually(
      async () => ((await account(w.s, hex41(w.wallet.address))).unfrozenV2 ?? []).length,
      (n) => n >= 32,
      60_000,
    );
    const before = (await walletApi(w, 'GET', '/transactions')).body.data.length;
    const res = await walletApi(w, 'POST', '/staking/unstake', { amount: '1', resource: 'BANDWIDTH' });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error).toBe('UNSTAKE_LIMIT_REACHED');
    expect(res.body.message).toMatch(/^32 unstakes are waiting for their unlock/);
    expect((await walletApi(w, 'GET', '/transactions')).body.data.length).toBe(before);
  }, 120_000);
});
