/**
 * What the EVM auto-settlement tests that drive the indexer by hand share: a harness on
 * devnet-eth (one confirmation, the worker on, quick tracking) with the wallet's
 * auto-settlement switched on, the chain's indexer, a USDC rule to an address, fresh addresses.
 */
import { expect } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';

export const USDC = 10n ** 6n;

export const freshAddress = () => privateKeyToAccount(generatePrivateKey()).address;

/** A rule moving USDC deposits to `to` on devnet-eth. */
export const ruleTo = (to: string) => ({
  name: 'to the treasury',
  source: { assets: ['USDC'], blockchain: 'devnet-eth' },
  destination: { asset: 'USDC', address: to, blockchain: 'devnet-eth' },
});

export async function startEthSettleWorld(): Promise<{ h: Harness; eth: TestChain; indexer: ChainIndexer }> {
  const h = await startHarness({
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
  });
  const wallet = h.wallets['devnet-eth']!;
  expect((await h.api('PATCH', `/v1/wallets/${wallet.id}/auto-settlements`, { body: { isActive: true } })).status).toBe(200);
  return {
    h,
    eth: chainOf(h, 'devnet-eth'),
    indexer: h.services.deposits.indexer(h.services.catalogue.findChain('devnet-eth', 'testnet')!),
  };
}

/** Steps the indexer until it has nothing more to record. */
export async function drain(indexer: ChainIndexer): Promise<void> {
  for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') return;
}
