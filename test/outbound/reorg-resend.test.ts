/**
 * Every purpose the pipeline sends is followed to the chain's depth, so that a transaction a
 * reorganisation takes away is sent again (the same signed bytes): here a recovery's top-up
 * and transfer, and a contract write, on anvil (evm_snapshot / evm_revert give the chain
 * another branch at the same heights). Left alone, the master's lost nonce was a hole that no
 * later payout of the master could be mined past, and the moved funds stayed where they were.
 * The worker is stopped while the branch is switched and the confirmation check is run once
 * by hand per row (as in test/withdrawals/reorg.test.ts); then the real worker takes over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { parseAbi, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';

let h: Harness;
let eth: TestChain;

beforeAll(async () => {
  h = await startHarness({
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 2 }],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
  });
  eth = chainOf(h, 'devnet-eth');
  await eth.sendToken('USDC', wallet().address, '100');
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;
const chain = () => h.services.catalogue.findChain('devnet-eth', 'testnet')!;

async function rowsOf(ownerId: string) {
  const { rows } = await sql<{ id: string; purpose: string; stage: string; hash: string }>`
    SELECT id, purpose, stage, hash FROM outbound_txs WHERE owner_id = ${ownerId} ORDER BY created_at, id`.execute(h.database.db);
  return rows;
}
const txOf = async (id: string) => (await h.api('GET', `${base()}/transactions/${id}`)).body.data as Record<string, any>;
const settled = (id: string) =>
  eventually(
    () => txOf(id),
    (t) => t.status !== 'PENDING',
    30_000,
  );

/** Runs `act` (which sends and settles transactions of `ownerId`), then takes its blocks away and lets the worker send them again. */
async function reorgedAway(act: () => Promise<string>): Promise<{ ownerId: string; before: Awaited<ReturnType<typeof rowsOf>> }> {
  const snap = await eth.snapshot();
  const ownerId = await act();
  expect((await settled(ownerId)).status).toBe('SUCCESS');
  await h.stopWorker();
  try {
    const before = await rowsOf(ownerId);
    expect(before.every((r) => r.stage === 'mined')).toBe(true);
    // The other branch: the same heights, blocks without these transactions.
    await eth.revert(snap);
    await eth.mine(3);
    for (const r of before) await h.services.outbound.confirm(r.id);
    return { ownerId, before };
  } finally {
    await h.startWorker();
  }
}

/** A payout of the master after the reorg: mined only if no nonce of the master was left a hole. */
async function masterPaysOut(): Promise<void> {
  const to = fresh();
  const usdc = chain().assets.find((a) => a.symbol === 'USDC')!;
  const res = await h.api('POST', `${base()}/withdraw`, { body: { assetId: usdc.id, address: to, amount: '1' } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect((await settled(res.body.data.id)).status).toBe('SUCCESS');
  expect(await eth.balanceOf('USDC', to)).toBe(1_000_000n);
}

describe('a transaction reorganised away is sent again', () => {
  it("a recovery's top-up and transfer: the funds reach the recipient once, the master's nonces stay whole", async () => {
    const res = await h.api('POST', `${base()}/addresses`, { body: { disableAutoSweep: true } });
    expect(res.status).toBe(200);
    const child = res.body.data as { id: string; address: Address };
    await eth.sendNative(child.address, '0.5');
    const to = fresh();
    const { ownerId, before } = await reorgedAway(async () => {
      const made = await h.api('POST', `${base()}/salvage`, {
        body: { senderAddress: child.address, recipientAddress: to, amount: '0.5', blockchainId: chain().row.blockchain_id },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(200);
      return made.body.data.id as string;
    });
    expect(before.map((r) => r.purpose)).toEqual(['salvage-topup', 'salvage']);
    expect(await eth.pub.getBalance({ address: to })).toBe(0n);

    await eventually(
      async () => (await eth.pub.getBalance({ address: to })).toString(),
      (b) => b === (5n * 10n ** 17n).toString(),
      20_000,
    );
    const again = await eventually(
      () => rowsOf(ownerId),
      (list) => list.every((r) => r.stage === 'mined'),
    );
    expect(again.map((r) => [r.purpose, r.hash])).toEqual(before.map((r) => [r.purpose, r.hash]));
    expect(await txOf(ownerId)).toMatchObject({ status: 'SUCCESS', hash: before[1]!.hash });
    await masterPaysOut();
  });

  it("a contract write: sent again, the transfer lands once, the master's nonces stay whole", async () => {
    const to = fresh();
    const usdc = chain().assets.find((a) => a.symbol === 'USDC')!;
    const { ownerId, before } = await reorgedAway(async () => {
      const made = await h.api('POST', `${base()}/contracts/write`, {
        body: {
          address: usdc.address,
          method: 'transfer',
          parameters: [to, '2000000'],
          abi: parseAbi(['function transfer(address to, uint256 amount) returns (bool)']),
        },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(200);
      return made.body.data.id as string;
    });
    expect(before.map((r) => r.purpose)).toEqual(['contract']);
    expect(await eth.balanceOf('USDC', to)).toBe(0n);

    await eventually(
      async () => (await eth.balanceOf('USDC', to)).toString(),
      (b) => b === '2000000',
      20_000,
    );
    const again = await eventually(
      () => rowsOf(ownerId),
      (list) => list.every((r) => r.stage === 'mined'),
    );
    expect(again.map((r) => [r.stage, r.hash])).toEqual([['mined', before[0]!.hash]]);
    await masterPaysOut();
  });

  it('a contract write re-mined with the other outcome: its Transaction ends as the chain has it', async () => {
    const to = fresh();
    const usdc = chain().assets.find((a) => a.symbol === 'USDC')!;
    // The master holds `held`; 50 more arrive on the branch the write is mined in, and it
    // sends more than `held`: on the other branch (no such funding) the same bytes revert.
    const held = await eth.balanceOf('USDC', wallet().address);
    const amount = held + 10_000_000n;
    const { ownerId } = await reorgedAway(async () => {
      await eth.sendToken('USDC', wallet().address, '50');
      const made = await h.api('POST', `${base()}/contracts/write`, {
        body: {
          address: usdc.address,
          method: 'transfer',
          parameters: [to, amount.toString()],
          abi: parseAbi(['function transfer(address to, uint256 amount) returns (bool)']),
        },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(200);
      return made.body.data.id as string;
    });
    expect(await eth.balanceOf('USDC', to)).toBe(0n);

    // Sent again, the write reverts: nothing moved, and its record must not say SUCCESS.
    await eventually(
      () => rowsOf(ownerId),
      (list) => list.every((r) => r.stage === 'failed'),
      20_000,
    );
    expect(await eth.balanceOf('USDC', to)).toBe(0n);
    expect(await eth.balanceOf('USDC', wallet().address)).toBe(held);
    expect((await settled(ownerId)).status).toBe('FAILED');
  });
});
