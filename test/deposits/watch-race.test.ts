/**
 * An address issued while the indexer reads a step: its watch set is loaded, then the head
 * read. A customer who is shown the new address and pays it at once may be mined in a block
 * at or below that head; the range must see the address, or the deposit is never credited
 * (the cursor moves past its block).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import type { ChainHandle } from '../../src/modules/catalogue/service.js';
import { createLogger } from '../../src/lib/logger.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';

let h: Harness;
let eth: TestChain;

beforeAll(async () => {
  h = await startHarness({ specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }] });
  eth = chainOf(h, 'devnet-eth');
});
afterAll(async () => {
  await h?.stop();
});

it('a deposit to an address issued while a step is read (after its watch set, before its head) is credited', async () => {
  const w = h.wallets['devnet-eth']!;
  const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
  // The issue and the payment happen during the step's head read (a slow or retried RPC).
  let during: (() => Promise<void>) | null = null;
  const adapter = new Proxy(chain.adapter, {
    get(target, prop, receiver) {
      if (prop === 'getBlockNumber')
        return async () => {
          const run = during;
          during = null;
          if (run) await run();
          return target.getBlockNumber();
        };
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const indexer = new ChainIndexer(
    h.services.db,
    { ...chain, adapter } as ChainHandle,
    h.services.webhooks,
    h.services.events,
    createLogger('error'),
  );
  const drain = async () => {
    for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') return;
    throw new Error('indexer did not reach the head');
  };
  await drain();

  let hash = '';
  during = async () => {
    const res = await h.api('POST', `/v1/wallets/${w.id}/addresses`, { key: w.apiKey, body: {} });
    expect(res.status).toBe(200);
    hash = (await eth.sendToken('USDC', (res.body.data as { address: string }).address, '5')).transactionHash;
  };
  await drain();
  expect(hash).not.toBe('');
  const { rows } = await sql<{ status: string; amount: string }>`
    SELECT status, amount FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${hash})`.execute(h.database.db);
  expect(rows).toEqual([{ status: 'SUCCESS', amount: '5000000' }]);
});
