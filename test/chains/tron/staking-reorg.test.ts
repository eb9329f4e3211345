/**
 * A staking operation whose block is reorganised away: the Transaction must not stay
 * SUCCESS (with `staking.success` sent) while the chain holds no stake. It is followed to the
 * chain's confirmations and ended only once final; a reorg before that makes the pipeline send
 * the same signed bytes again, and it ends by what the chain finally holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, info } from '../../../src/devnet/tron/testkit.js';
import { eventually } from '../../support/fixtures.js';
import { events, hex41, startTronWorld, txOf, walletApi, type TronWorld } from './world.js';

let w: TronWorld;
const TRX = 1_000_000n;

beforeAll(async () => {
  w = await startTronWorld('tron-staking-reorg', { chainId: 990_341, masterSun: 500_000_000 });
}, 60_000);
afterAll(async () => {
  await w?.s.control.resume();
  await w?.stop();
});

const energyStaked = async () => {
  const a = await account(w.s, hex41(w.wallet.address));
  return BigInt((a.frozenV2 as { type?: string; amount?: number }[] | undefined)?.find((f) => f.type === 'ENERGY')?.amount ?? 0);
};

describe('a stake reorganised away', () => {
  it('is not SUCCESS while the chain holds no stake: sent again, SUCCESS once the block that holds it is final', async () => {
    const before = await energyStaked();
    w.s.control.pause();
    const res = await walletApi(w, 'POST', '/staking/stake', { amount: '10', resource: 'ENERGY' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.data.id as string;
    // Mined in one block, then SUCCESS before the block is deep.
    const hash = await eventually(
      async () => (await txOf(w, id)).hash as string,
      (h) => typeof h === 'string' && h.length > 0,
      20_000,
    );
    await eventually(
      async () => {
        await w.s.control.produceBlocks(1);
        return (await info(w.s, hash)).blockNumber;
      },
      (n) => n !== undefined,
      20_000,
    );
    // Its receipt is one block deep: what the Transaction says now, the reorg must not leave standing.
    expect(await energyStaked()).toBe(before + 10n * TRX);

    // The block (and the one above) replaced by a fork without the transaction.
    const mined = Number((await info(w.s, hash)).blockNumber);
    const head = (await w.s.control.produceBlocks(1))[0]!.number;
    await w.s.control.reorg(head - mined + 1);
    expect(await energyStaked()).toBe(before);

    // From here the chain decides: the Transaction ends by what it holds once final.
    w.s.control.resume();
    const end = await eventually(
      async () => ({ t: await txOf(w, id), staked: await energyStaked() }),
      ({ t, staked }) =>
        t.status !== 'PENDING' &&
        t.confirmed === true &&
        (t.status === 'SUCCESS') === (staked === before + 10n * TRX) &&
        (t.confirmations ?? 0) >= 20,
      40_000,
    ).catch(async () => ({ t: await txOf(w, id), staked: await energyStaked() }));
    expect({ status: end.t.status, staked: end.staked - before }).toEqual({ status: 'SUCCESS', staked: 10n * TRX });
    // One staking.success, sent once the stake was final.
    expect(await events(w, id, 'staking.success')).toHaveLength(1);
    expect(end.t.confirmations).toBeGreaterThanOrEqual(20);
  }, 120_000);
});
