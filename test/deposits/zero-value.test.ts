/**
 * A payment of 0 is never a deposit. Anyone can send one to any address (address-poisoning
 * spam): a token's `transfer(child, 0)`, `transferFrom(anyone, child, 0)` (no allowance needed,
 * so the log names a sender of the spammer's choosing), a 0-value native transfer. The indexer
 * and the deposit finder write nothing for them: no transaction row, no event (webhook, event
 * feed), no job; a real deposit of 1 base unit is still recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { erc20Abi, type Address } from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';

let h: Harness;
let eth: TestChain;
let indexer: ChainIndexer;

beforeAll(async () => {
  // No worker: every job the indexer queues stays in the table, to be counted.
  h = await startHarness({ specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }] });
  eth = chainOf(h, 'devnet-eth');
  const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
  indexer = h.services.deposits.indexer(chain);
  // Native deposits are recorded once the native coin is enabled on the wallet.
  const native = chain.assets.find((a) => a.is_native)!;
  const res = await h.api('PATCH', `/v1/wallets/${wallet().id}/assets/${native.id}`, { body: { isActive: true } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
});
afterAll(async () => {
  await h?.stop();
});

const wallet = () => h.wallets['devnet-eth']!;
async function drain() {
  for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') return;
  throw new Error('indexer did not reach the head');
}
async function newAddress() {
  const res = await h.api('POST', `/v1/wallets/${wallet().id}/addresses`, { body: { disableAutoSweep: true } });
  expect(res.status).toBe(200);
  return res.body.data as { id: string; address: string };
}
async function deposits(hash: string) {
  const { rows } = await sql<{ id: string; status: string; amount: string }>`
    SELECT id, status, amount FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${hash})`.execute(h.database.db);
  return rows;
}
/** What the service has written that a deposit would add to: transactions, events, jobs. */
async function written() {
  const { rows } = await sql<{ transactions: string; events: string; jobs: string }>`
    SELECT (SELECT count(*) FROM transactions WHERE wallet_id = ${wallet().id}) AS transactions,
           (SELECT count(*) FROM events WHERE wallet_id = ${wallet().id}) AS events,
           (SELECT count(*) FROM graphile_worker._private_jobs) AS jobs`.execute(h.database.db);
  return rows[0]!;
}

describe('a transfer of 0 to a watched address', () => {
  it('records nothing (indexer and deposit finder); a deposit of 1 base unit still is', async () => {
    const child = await newAddress();
    await drain();
    const before = await written();

    // Spam: transfer(child, 0), transferFrom(a stranger, child, 0) sent by the faucet (which
    // holds no allowance of the stranger's), and 0 of the native coin.
    const usdc = eth.token('USDC').address as Address;
    const stranger = '0x000000000000000000000000000000000000dEaD';
    const plain = await eth.sendToken('USDC', child.address, '0');
    const spoofed = await eth.pub.waitForTransactionReceipt({
      hash: await eth.wallet.writeContract({
        address: usdc,
        abi: erc20Abi,
        functionName: 'transferFrom',
        args: [stranger, child.address as Address, 0n],
      }),
      pollingInterval: 50,
    });
    const native = await eth.sendNative(child.address, '0');
    for (const r of [plain, spoofed, native]) expect(r.status).toBe('success');
    // Each made a Transfer log to the child (the token emits one for 0 too).
    for (const r of [plain, spoofed]) expect(r.logs.length).toBe(1);
    await eth.mine(3);

    // The deposit finder, before the indexer reads them: by hash, nothing to record; by block, none.
    const found = await h.api('POST', `/v1/wallets/${wallet().id}/rescan/blocks`, { body: { transactionHash: spoofed.transactionHash } });
    expect(found.status, JSON.stringify(found.body)).toBe(422);
    expect(found.body.error).toBe('NO_DEPOSIT_FOUND');
    const byBlock = await h.api('POST', `/v1/wallets/${wallet().id}/rescan/blocks`, {
      body: { blockNumber: plain.blockNumber.toString() },
    });
    expect(byBlock.status, JSON.stringify(byBlock.body)).toBe(200);
    expect(byBlock.body.data).toEqual([]);
    for (const r of [plain, spoofed, native]) expect(await deposits(r.transactionHash)).toEqual([]);
    expect(await written()).toEqual(before);

    // The indexer.
    await drain();
    for (const r of [plain, spoofed, native]) expect(await deposits(r.transactionHash)).toEqual([]);
    expect(await written()).toEqual(before);

    // One base unit is a deposit like any other.
    const one = await eth.sendToken('USDC', child.address, '0.000001');
    await eth.mine(1);
    await drain();
    const [d] = await deposits(one.transactionHash);
    expect(d).toMatchObject({ status: 'SUCCESS', amount: '1' });
    const { rows } = await sql<{ name: string }>`
      SELECT name FROM events WHERE transaction_id = ${d!.id} ORDER BY created_at, id`.execute(h.database.db);
    expect(rows.map((r) => r.name)).toEqual(['deposit.processing', 'deposit.success']);
  });
});
