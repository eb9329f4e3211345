/**
 * An auto-settlement from a child address is planned before the transaction that records
 * it: its quotes, the router's allowance and the child's balance are read with no
 * transaction open, then checked under the sender's lock (executor.ts, movedSince). The
 * node sits behind test/support/rpc-gate.ts, which asks PostgreSQL at each call whether a
 * session of the service's database waits idle inside a transaction. The worker runs here
 * (the settlement is its job); the indexer is stepped by the test, between the checks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startRpcGate, type RpcGate } from '../support/rpc-gate.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';

let h: Harness;
let gate: RpcGate;
let eth: TestChain;
let indexer: ChainIndexer;

const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;

beforeAll(async () => {
  gate = await startRpcGate();
  h = await startHarness({
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
    rpcUrlOf: (config) => {
      gate.forwardTo(config.rpcUrl);
      return gate.url;
    },
  });
  eth = chainOf(h, 'devnet-eth');
  expect((await h.api('PATCH', `${base()}/auto-settlements`, { body: { isActive: true } })).status).toBe(200);
  indexer = h.services.deposits.indexer(h.services.catalogue.findChain('devnet-eth', 'testnet')!);
}, 60_000);
afterAll(async () => {
  await gate?.close();
  await h?.stop();
});

/** A child address whose USDC deposits are swapped to USDT and sent to `dest`. */
async function swappingChild(dest: string) {
  const res = await h.api('POST', `${base()}/addresses`, { body: { disableAutoSweep: true } });
  expect(res.status).toBe(200);
  const child = res.body.data as { id: string; address: string };
  const rule = {
    name: 'gate rule',
    order: 'NO_SLIPPAGE',
    slippageTolerance: '0.5',
    source: { assets: ['USDC'], blockchain: 'devnet-eth', minAmount: '0', maxAmount: null },
    destination: { asset: 'USDT', address: dest, blockchain: 'devnet-eth' },
  };
  expect((await h.api('POST', `${base()}/addresses/${child.id}/auto-settlements/rules`, { body: rule })).status).toBe(200);
  return child;
}

/** Sends `amount` USDC to the child, indexes it and waits for its settlement to end. */
async function settle(child: string, amount: string) {
  const receipt = await eth.sendToken('USDC', child, amount);
  for (let i = 0; i < 100 && (await indexer.step()) !== 'idle'; i++);
  const { rows } = await sql<{ id: string }>`
    SELECT id FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${receipt.transactionHash})`.execute(h.database.db);
  const ended = await eventually(
    async () =>
      (
        await sql<{ id: string; status: string; stage: string }>`
          SELECT id, status, stage FROM auto_settlements WHERE deposit_id = ${rows[0]!.id}`.execute(h.database.db)
      ).rows,
    (r) => r.length === 1 && r[0]!.status !== 'pending',
    30_000,
  );
  return ended[0]!;
}

const dest = privateKeyToAccount(generatePrivateKey()).address;
let child: { id: string; address: string };

describe('an auto-settlement from a child address', () => {
  it('swapping (top-up, approve, swap, transfer): no chain call while its plan is recorded', async () => {
    child = await swappingChild(dest);
    await gate.watch(h.databaseUrl);
    const s = await settle(child.address, '40');
    expect(s).toMatchObject({ status: 'success', stage: 'done' });
    expect(await eth.balanceOf('USDC', child.address)).toBe(0n);
    expect(await eth.balanceOf('USDT', dest)).toBeGreaterThan(0n);
    await gate.settled();
    expect(gate.caught, 'chain calls made while a transaction was open').toEqual([]);
  });

  it("is planned again when another settlement of the sender moved between the plan's reads and its lock", async () => {
    const [earlier] = (await sql<{ id: string }>`SELECT id FROM auto_settlements WHERE status = 'success' LIMIT 1`.execute(h.database.db))
      .rows;
    const owner = child.address.slice(2).toLowerCase();
    const isAllowanceOfChild = (call: { method: string; params: unknown[] }) => {
      const data = String(
        (call.params[0] as { data?: string; input?: string } | undefined)?.data ?? (call.params[0] as { input?: string })?.input ?? '',
      );
      return call.method === 'eth_call' && data.startsWith('0xdd62ed3e') && data.toLowerCase().includes(owner);
    };
    let reads = 0;
    const count = (call: { method: string; params: unknown[] }) => {
      if (isAllowanceOfChild(call)) reads++;
      return false;
    };
    // The plan's allowance read answered, the earlier settlement of the same child is seen to
    // move (its row updated, as its legs' progress updates it): what was read may be stale.
    gate.afterAnswer(isAllowanceOfChild, async () => {
      reads++;
      gate.afterAnswer(count, async () => undefined);
      await sql`UPDATE auto_settlements SET updated_at = now() WHERE id = ${earlier!.id}`.execute(h.database.db);
    });
    const s = await settle(child.address, '25');
    expect(s).toMatchObject({ status: 'success', stage: 'done' });
    expect(reads, 'the allowance read again for the second plan').toBeGreaterThanOrEqual(2);
    await gate.settled();
    expect(gate.caught).toEqual([]);
  });
});
