/**
 * Staking operations of one master sent at once: the rules are checked again under the
 * master's staking lock with the operations accepted and not yet on chain counted
 * (staking/service.ts, pendingState). Two unstakes of the whole stake: one accepted, one 422
 * INSUFFICIENT_STAKE with nothing written (before: both written, the chain's pre-sign check
 * failing one). Two unstakes that fit together: both accepted and both done.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/fixtures.js';
import { settled, startTronWorld, txOf, walletApi, type TronWorld } from './world.js';

let w: TronWorld;

beforeAll(async () => {
  w = await startTronWorld('tron-staking-race', { chainId: 990_412, masterSun: 500_000_000 });
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

describe('staking operations of one master at once', () => {
  it('two unstakes of the whole stake: one accepted, the other 422 INSUFFICIENT_STAKE with nothing written', async () => {
    const stake = await walletApi(w, 'POST', '/staking/stake', { amount: '10', resource: 'ENERGY' });
    expect(stake.status, JSON.stringify(stake.body)).toBe(200);
    expect((await settled(w, stake.body.data.id)).status).toBe('SUCCESS');

    const answers = await Promise.all([0, 1].map(() => walletApi(w, 'POST', '/staking/unstake', { amount: '10', resource: 'ENERGY' })));
    const accepted = answers.filter((a) => a.status === 200);
    const outcomes = await Promise.all(
      accepted.map(async (a) => {
        const t = await eventually(
          () => txOf(w, a.body.data.id),
          (x) => x.status !== 'PENDING',
          40_000,
        );
        return `${t.status}${t.reason ? `: ${t.reason}` : ''}`;
      }),
    );
    expect({ answers: answers.map((a) => [a.status, a.body.error ?? null]).sort(), outcomes }).toEqual({
      answers: [
        [200, null],
        [422, 'INSUFFICIENT_STAKE'],
      ],
      outcomes: ['SUCCESS'],
    });
    const refused = answers.find((a) => a.status === 422)!.body;
    expect(refused.message).toBe('0 TRX is staked for ENERGY, less than 10 TRX');
    const unstakes = await walletApi(w, 'GET', '/transactions?type=UNSTAKING');
    expect(unstakes.body.data.map((t: { status: string }) => t.status)).toEqual(['SUCCESS']);
  });

  it('two unstakes that fit the stake together are both accepted and done', async () => {
    const stake = await walletApi(w, 'POST', '/staking/stake', { amount: '10', resource: 'BANDWIDTH' });
    expect((await settled(w, stake.body.data.id)).status).toBe('SUCCESS');
    const answers = await Promise.all([0, 1].map(() => walletApi(w, 'POST', '/staking/unstake', { amount: '5', resource: 'BANDWIDTH' })));
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    for (const a of answers) expect((await settled(w, a.body.data.id)).status).toBe('SUCCESS');
  });
});
