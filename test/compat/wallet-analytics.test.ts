/**
 * The wallet's analytics carry the balance figures the described service shows (issue 27, 4):
 * `currentBalance` (the master's balances of the enabled assets, in USD), `numberOfAssets`
 * and `unsweptBalance` (confirmed deposits still at child addresses, in USD), exact against
 * the devnet's price feeds; a figure is null when an asset held has no rate, the count stays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';

let h: Harness;
let eth: TestChain;
let indexer: ChainIndexer;

const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;

beforeAll(async () => {
  // USDC has a USD feed at 1; USDT has none on this devnet (usdPrices: null).
  h = await startHarness({ specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1, usdPrices: { USDT: null } }] });
  eth = chainOf(h, 'devnet-eth');
  indexer = h.services.deposits.indexer(h.services.catalogue.findChain('devnet-eth', 'testnet')!);
  for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') break;
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const analytics = async () => {
  const res = await h.api('GET', base());
  expect(res.status).toBe(200);
  return res.body.data.analytics as Record<string, unknown>;
};

describe('wallet analytics: currentBalance, numberOfAssets, unsweptBalance', () => {
  it('are the USD values of what the master holds and of the deposits not yet swept', async () => {
    expect(await analytics()).toMatchObject({ currentBalance: '0', numberOfAssets: 2, unsweptBalance: '0' });
    await eth.sendToken('USDC', wallet().address, '12.345678');
    const res = await h.api('POST', `${base()}/addresses`, { body: { disableAutoSweep: true } });
    await eth.sendToken('USDC', res.body.data.address, '7.25');
    for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') break;
    expect(await analytics()).toMatchObject({ currentBalance: '12.345678', numberOfAssets: 2, unsweptBalance: '7.25' });
  });

  it('a held asset without a rate makes its figure null; the count stays', async () => {
    await eth.sendToken('USDT', wallet().address, '1');
    const res = await h.api('POST', `${base()}/addresses`, { body: { disableAutoSweep: true } });
    await eth.sendToken('USDT', res.body.data.address, '2');
    for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') break;
    expect(await analytics()).toMatchObject({ currentBalance: null, numberOfAssets: 2, unsweptBalance: null });
  });
});
