/**
 * INSTANT settlement, on real anvil and PostgreSQL with the worker: a deposit straight to
 * the master and a swept one are each settled once; a deposit an auto-settlement rule
 * takes is left to the rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import type { Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';
import { periods, randomAddress, runOf, startSettlementWorld, transactions } from './world.js';

let h: Harness;
let bsc: TestChain;
const BSC = 'devnet-bsc';
const E18 = 10n ** 18n;

beforeAll(async () => {
  h = await startSettlementWorld(BSC, new ManualClock());
  bsc = chainOf(h, BSC);
});
afterAll(async () => {
  await h?.stop();
});

describe('INSTANT settlement', () => {
  let indexer: ChainIndexer;
  const drain = async () => {
    for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') return;
  };

  beforeAll(() => {
    indexer = h.services.deposits.indexer(h.services.catalogue.findChain(BSC, 'testnet')!);
  });

  it('settles a deposit straight to the master, and a swept one, each once', async () => {
    const w = h.wallets[BSC]!;
    await drain();
    const to = randomAddress();
    const res = await h.api('POST', `/v1/wallets/${w.id}/beneficiaries`, {
      key: w.apiKey,
      body: { name: 'Instant', address: to, settlementFrequency: 'INSTANT' },
    });
    expect(res.status).toBe(200);
    const b = res.body.data;

    // Straight to the master: settled once the deposit is confirmed.
    const receipt = await bsc.sendToken('USDT', w.address, '25');
    await drain();
    const deposit = (await h.api('GET', `/v1/wallets/${w.id}/transactions?type=DEPOSIT&hash=${receipt.transactionHash}`, { key: w.apiKey }))
      .body.data[0];
    expect(deposit).toMatchObject({ status: 'SUCCESS', address: null });
    const run = await runOf(h, b.id, `deposit:${deposit.id}`);
    expect(run).toMatchObject({ status: 'done' });
    await eventually(
      () => bsc.balanceOf('USDT', to),
      (v) => v === 25n * E18,
      20_000,
    );
    const [t] = await eventually(
      () => transactions(h, BSC, run!.transaction_ids),
      (txs) => txs[0]?.status === 'SUCCESS',
      20_000,
    );
    expect(t).toMatchObject({ type: 'WITHDRAW', amount: '25', recipientAddress: to });

    // To a child address: swept to the master first, then settled.
    const child = (await h.api('POST', `/v1/wallets/${w.id}/addresses`, { key: w.apiKey, body: {} })).body.data;
    await bsc.sendToken('USDT', child.address, '4.25');
    await drain();
    await eventually(
      () => bsc.balanceOf('USDT', to),
      (v) => v === 2925n * 10n ** 16n,
      30_000,
    );
    expect(await bsc.balanceOf('USDT', w.address)).toBe(0n);
    expect(await bsc.balanceOf('USDT', child.address)).toBe(0n);
    const childDeposit = (await h.api('GET', `/v1/wallets/${w.id}/addresses/${child.id}/transactions?type=DEPOSIT`, { key: w.apiKey })).body
      .data[0];
    expect(childDeposit).toMatchObject({ assetSwept: true, amount: '4.25' });
    expect(await periods(h, BSC, b.id)).toEqual([`deposit:${childDeposit.id}`, `deposit:${deposit.id}`].sort());
    // Indexing again (replays) adds no run and moves nothing more.
    await drain();
    expect(await bsc.balanceOf('USDT', to)).toBe(2925n * 10n ** 16n);
    expect(await periods(h, BSC, b.id)).toHaveLength(2);
  });

  it('leaves a deposit an active auto-settlement rule takes to that rule', async () => {
    const w = h.wallets[BSC]!;
    const base = `/v1/wallets/${w.id}/auto-settlements`;
    expect((await h.api('PATCH', base, { key: w.apiKey, body: { isActive: true } })).status).toBe(200);
    const rule = await h.api('POST', `${base}/rules`, {
      key: w.apiKey,
      body: {
        name: 'USDT out',
        order: 'RECOMMENDED',
        slippageTolerance: '1',
        source: { assets: ['USDT'], blockchain: BSC, minAmount: '1', maxAmount: '1000' },
        destination: { asset: 'USDT', address: randomAddress(), blockchain: BSC },
      },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(200);
    const b = (await h.api('GET', `/v1/wallets/${w.id}/beneficiaries?isSettlement=true`, { key: w.apiKey })).body.data[0];
    const before = await periods(h, BSC, b.id);

    const receipt = await bsc.sendToken('USDT', w.address, '3');
    await drain();
    const deposit = (await h.api('GET', `/v1/wallets/${w.id}/transactions?type=DEPOSIT&hash=${receipt.transactionHash}`, { key: w.apiKey }))
      .body.data[0];
    expect(deposit.status).toBe('SUCCESS');
    expect(await periods(h, BSC, b.id)).toEqual(before);
    expect(await h.services.settlements.findRun(b.id, `deposit:${deposit.id}`)).toBeUndefined();
  });
});
