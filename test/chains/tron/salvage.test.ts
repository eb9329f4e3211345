/**
 * Asset recovery on Tron through HTTP (issue 27, 2): a TRC-20 the catalogue does not list
 * (the stand-in's USDC, not in this chain's assets), sent to a fresh child address, is
 * recovered with the child's fee funded as a sweep's is: activated by the master, energy lent
 * from the master's stake (staked here through the staking API) and taken back. Exact amounts
 * on the node; the SALVAGE Transaction and salvage.success.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWallet, tokenBalance } from '../../../src/devnet/tron/testkit.js';
import { childOf, events, outboundRows, settled, startTronWorld, walletApi, type TronWorld } from './world.js';

let w: TronWorld;

beforeAll(async () => {
  w = await startTronWorld('tron-salvage', { chainId: 990_328, masterSun: 20_000_000_000 });
  // The master stakes for energy through the API: what the recovery lends the child.
  const staked = await walletApi(w, 'POST', '/staking/stake', { amount: '10000', resource: 'ENERGY' });
  expect(staked.status, JSON.stringify(staked.body)).toBe(200);
  expect((await settled(w, staked.body.data.id)).status).toBe('SUCCESS');
}, 90_000);
afterAll(async () => {
  await w?.stop();
});

describe('an unlisted TRC-20 at a fresh child address', () => {
  it('is recovered with energy lent from the master stake and taken back; exactly the amount moves', async () => {
    const usdc = w.s.tokens[1]!;
    expect(w.h.services.catalogue.findChain('tron-salvage', 'testnet')!.assets.map((a) => a.address)).not.toContain(usdc.address);
    const child = await childOf(w);
    await w.s.control.fund(child.address, { tokens: { USDC: 4_321_000n } });
    await w.s.control.produceBlocks(1);
    const to = newWallet().address;
    const blockchainId = w.h.services.catalogue.findChain('tron-salvage', 'testnet')!.row.blockchain_id;
    const body = { senderAddress: child.address, recipientAddress: to, amount: '4.321', blockchainId, tokenAddress: usdc.address };
    const fee = await walletApi(w, 'POST', '/salvage/network-fee', body);
    expect(fee.status, JSON.stringify(fee.body)).toBe(200);
    expect(fee.body.data).toMatchObject({ balance: '0', tokenBalance: '4.321' });

    const res = await walletApi(w, 'POST', '/salvage', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const done = await settled(w, res.body.data.id, 60_000);
    expect(done, JSON.stringify(done)).toMatchObject({ type: 'SALVAGE', status: 'SUCCESS', amount: '4.321', tokenAddress: usdc.address });
    expect(await tokenBalance(w.s, usdc.address, to)).toBe(4_321_000n);
    expect(await tokenBalance(w.s, usdc.address, child.address)).toBe(0n);
    expect((await outboundRows(w, done.id)).map((r) => [r.purpose, r.stage])).toEqual([
      ['salvage-topup', 'mined'], // activation of the child
      ['salvage-lend', 'mined'],
      ['salvage', 'mined'],
      ['salvage-give-back', 'mined'],
    ]);
    await events(w, done.id, 'salvage.success');
    const view = (await walletApi(w, 'GET', '/staking')).body.data;
    // The loan is back: nothing is lent out any more.
    expect(view.positions.find((p: { resource: string }) => p.resource === 'ENERGY').delegated).toBe('0');
  });
});
