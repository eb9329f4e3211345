/**
 * A swap's output reaching an address of the wallet that swapped (an auto-settlement's swap at
 * the master or a child, an API swap paying the swapper) is the service's own movement, as a
 * top-up or a sweep is: the pair contract's transfer is not a deposit. Recorded as one, a rule
 * taking the output asset (a common "everything into USDT" rule) settled the output a second
 * time, out of the address's other funds, and the client was told of a deposit nobody made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import type { Harness } from '../support/harness.js';
import type { TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';
import { drain, freshAddress, startEthSettleWorld, USDC } from './eth-settle-world.js';

let h: Harness;
let eth: TestChain;
let indexer: ChainIndexer;

const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;

beforeAll(async () => {
  ({ h, eth, indexer } = await startEthSettleWorld());
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

async function depositsOf(hash: string) {
  const { rows } = await sql<{ id: string; currency: string; amount: string }>`
    SELECT id, currency, amount::text FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${hash})`.execute(h.database.db);
  return rows;
}

describe("an auto-settlement's swap at the master, under a rule that also takes the output asset", () => {
  it('pays the destination the output once; the output is no deposit, and the master keeps its other funds', async () => {
    const master = wallet().address;
    // USDT the master held before any rule: no rule takes it.
    await eth.sendToken('USDT', master, '100');
    await drain(indexer);
    const dest = freshAddress();
    const rule = await h.api('POST', `${base()}/auto-settlements/rules`, {
      body: {
        name: 'everything into USDT',
        slippageTolerance: '1',
        source: { assets: ['USDC', 'USDT'], blockchain: 'devnet-eth' },
        destination: { asset: 'USDT', address: dest, blockchain: 'devnet-eth' },
      },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(200);
    const heldBefore = await eth.balanceOf('USDT', master);

    const receipt = await eth.sendToken('USDC', master, '40');
    await drain(indexer);
    const [deposit] = await depositsOf(receipt.transactionHash);
    const done = await eventually(
      async () => {
        await drain(indexer);
        const { rows } = await sql<{ status: string; swap_transaction_id: string | null }>`
          SELECT status, swap_transaction_id FROM auto_settlements WHERE deposit_id = ${deposit!.id}`.execute(h.database.db);
        return rows[0];
      },
      (s) => s !== undefined && s.status !== 'pending',
      60_000,
    );
    expect(done!.status).toBe('success');
    const swap = (await h.api('GET', `${base()}/transactions/${done!.swap_transaction_id}`)).body.data as {
      hash: string;
      toAmount: string;
    };
    const output = BigInt(Math.round(Number(swap.toAmount) * 1e6));
    expect(output).toBeGreaterThan(39n * USDC);

    // Whatever the indexer and the worker would do with the swap's output, let them do it.
    for (let i = 0; i < 10; i++) {
      await eth.mine(1);
      await drain(indexer);
      await new Promise((r) => setTimeout(r, 300));
    }
    await eventually(
      async () => {
        const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM auto_settlements WHERE status = 'pending'`.execute(
          h.database.db,
        );
        return Number(rows[0]!.n);
      },
      (n) => n === 0,
      30_000,
    );
    expect(await eth.balanceOf('USDT', dest)).toBe(output);
    expect(await eth.balanceOf('USDT', master)).toBe(heldBefore);
    expect(await depositsOf(swap.hash)).toEqual([]);
  }, 120_000);
});
