/**
 * A manual sweep while the child's own withdrawals are in flight (issue 27, 4): the balance
 * read at the latest block still counts what the pending withdrawals will take, so the sweep
 * moves only what is free (97 of 100 USDC, with 3 USDC on its way out), and says the funds
 * are in flight (409 FUNDS_IN_FLIGHT) when nothing is free, instead of NOTHING_TO_SWEEP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';

let h: Harness;
let eth: TestChain;
let indexer: ChainIndexer;
const USDC = 10n ** 6n;

const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  h = await startHarness({
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
  });
  eth = chainOf(h, 'devnet-eth');
  indexer = h.services.deposits.indexer(h.services.catalogue.findChain('devnet-eth', 'testnet')!);
  for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') break;
}, 60_000);
afterAll(async () => {
  await eth?.rpc('evm_setAutomine', [true]).catch(() => undefined);
  await h?.stop();
});

/** A child with a confirmed USDC deposit of `amount` and some ETH for its own fees; the deposit's id. */
async function childWithDeposit(amount: string) {
  const res = await h.api('POST', `${base()}/addresses`, { body: { disableAutoSweep: true } });
  const child = res.body.data as { id: string; address: string };
  const receipt = await eth.sendToken('USDC', child.address, amount);
  await eth.sendNative(child.address, '0.1');
  for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') break;
  const { rows } = await sql<{ id: string; status: string }>`
    SELECT id, status FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${receipt.transactionHash})`.execute(h.database.db);
  expect(rows[0]?.status).toBe('SUCCESS');
  return { ...child, depositId: rows[0]!.id };
}

/** A withdrawal from the child, signed and broadcast but not mined (automine is off). */
async function pendingWithdrawal(childId: string, amount: string, to: string) {
  const usdc = h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDC')!.id;
  const res = await h.api('POST', `${base()}/addresses/${childId}/withdraw`, { body: { assetId: usdc, address: to, amount } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await eventually(
    async () =>
      (await sql<{ stage: string }>`SELECT stage FROM outbound_txs WHERE owner_id = ${res.body.data.id}`.execute(h.database.db)).rows[0]
        ?.stage,
    (stage) => stage === 'signed' || stage === 'broadcast',
  );
  return res.body.data.id as string;
}

describe('a manual sweep while withdrawals of the child are in flight', () => {
  it('sweeps what is free (97 of 100 USDC); says FUNDS_IN_FLIGHT when nothing is', async () => {
    const a = await childWithDeposit('100');
    const b = await childWithDeposit('5');
    await eth.rpc('evm_setAutomine', [false]);
    const payee = fresh();
    await pendingWithdrawal(a.id, '3', payee);
    await pendingWithdrawal(b.id, '5', payee);
    const masterBefore = await eth.balanceOf('USDC', wallet().address);

    const held = await h.api('POST', `${base()}/transactions/sweep/assets`, { body: { transactionId: b.depositId } });
    expect([held.status, held.body.error], JSON.stringify(held.body)).toEqual([409, 'FUNDS_IN_FLIGHT']);

    const swept = await h.api('POST', `${base()}/transactions/sweep/assets`, { body: { transactionId: a.depositId } });
    expect(swept.status, JSON.stringify(swept.body)).toBe(200);
    const { rows } = await sql<{ amount: string }>`SELECT amount FROM sweeps WHERE address_id = ${a.id}`.execute(h.database.db);
    expect(rows.map((r) => BigInt(r.amount))).toEqual([97n * USDC]);

    await eth.rpc('evm_setAutomine', [true]);
    await eth.mine(1);
    await eventually(
      async () => (await h.api('GET', `${base()}/transactions/${a.depositId}`)).body.data.assetSwept,
      (v) => v === true,
      30_000,
    );
    expect(await eth.balanceOf('USDC', wallet().address)).toBe(masterBefore + 97n * USDC);
    expect(await eth.balanceOf('USDC', payee)).toBe(8n * USDC);
    expect(await eth.balanceOf('USDC', a.address)).toBe(0n);
  });
});
