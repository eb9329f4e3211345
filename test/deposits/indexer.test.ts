import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createWalletClient,
  encodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  http,
  keccak256,
  pad,
  parseAbi,
  parseEventLogs,
  toHex,
  type Address,
  type Hex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { devnetChain } from '../../src/devnet/chain.js';
import { sql } from 'kysely';
import pg from 'pg';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { createLogger } from '../../src/lib/logger.js';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { blockedBy, eventually } from '../support/fixtures.js';

const CONFIRMATIONS = 3;
let h: Harness;
let receiver: Receiver;
let eth: TestChain;
let bsc: TestChain;
const indexers: Record<string, ChainIndexer> = {};

beforeAll(async () => {
  h = await startHarness({ specs: DEVNET_CHAINS.map((s) => ({ ...s, confirmations: CONFIRMATIONS })), worker: true });
  receiver = await startReceiver();
  eth = chainOf(h, 'devnet-eth');
  bsc = chainOf(h, 'devnet-bsc');
  for (const slug of ['devnet-eth', 'devnet-bsc']) {
    const w = h.wallets[slug]!;
    // Sweeps (their own tests) would mine top-ups and sweeps at any moment here: off.
    const body = { webhookUrl: receiver.url, configurations: { autoSweeping: { isActive: false } } };
    expect((await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body })).status).toBe(200);
    indexers[slug] = h.services.deposits.indexer(h.services.catalogue.findChain(slug, 'testnet')!);
  }
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
});

/** Steps the indexer until it reaches the head. */
async function drain(slug: string) {
  for (let i = 0; i < 1000; i++) if ((await indexers[slug]!.step()) === 'idle') return;
  throw new Error('indexer did not reach the head');
}

async function newAddress(slug: string, metadata: Record<string, unknown> = {}) {
  const w = h.wallets[slug]!;
  const res = await h.api('POST', `/v1/wallets/${w.id}/addresses`, { key: w.apiKey, body: { metadata } });
  expect(res.status).toBe(200);
  return res.body.data as { id: string; address: string };
}

async function depositsOf(txHash: string) {
  const { rows } = await sql<{
    id: string;
    status: string;
    amount: string;
    confirmations: number;
    block_number: string;
    log_index: number;
  }>`
    SELECT id, status, amount, confirmations, block_number, log_index FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${txHash})`.execute(
    h.database.db,
  );
  return rows;
}

function eventsFor(transactionId: string) {
  return sql<{ name: string }>`SELECT name FROM events WHERE transaction_id = ${transactionId} ORDER BY created_at, id`
    .execute(h.database.db)
    .then((r) => r.rows.map((e) => e.name));
}

/** The verified webhook bodies the receiver got for a transaction. */
function received(slug: string, transactionId: string) {
  return receiver.requests
    .filter((r) => (JSON.parse(r.body) as { data?: { id?: string } }).data?.id === transactionId)
    .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey: h.wallets[slug]!.apiKey, replay: false }));
}

describe('token and native deposits', () => {
  it('a 6-decimal token deposit is PENDING, then SUCCESS at the configured depth, with verified webhooks', async () => {
    const child = await newAddress('devnet-eth', { customerId: 'c-42' });
    const receipt = await eth.sendToken('USDC', child.address, '12.345678');
    await drain('devnet-eth');
    let [dep] = await depositsOf(receipt.transactionHash);
    expect(dep).toMatchObject({ status: 'PENDING', amount: '12345678', confirmations: 1 });
    const pending = await h.api('GET', `/v1/wallets/${h.wallets['devnet-eth']!.id}/transactions/${dep!.id}`);
    expect(pending.body.data).toMatchObject({
      type: 'DEPOSIT',
      status: 'PENDING',
      confirmed: false,
      confirmations: 1,
      amount: '12.345678',
    });

    await eth.mine(1);
    await drain('devnet-eth');
    expect((await depositsOf(receipt.transactionHash))[0]).toMatchObject({ status: 'PENDING', confirmations: 2 });
    await eth.mine(1);
    await drain('devnet-eth');
    [dep] = await depositsOf(receipt.transactionHash);
    expect(dep).toMatchObject({ status: 'SUCCESS', confirmations: 3 });
    expect(await eventsFor(dep!.id)).toEqual(['deposit.processing', 'deposit.success']);

    await eventually(
      async () => received('devnet-eth', dep!.id).length,
      (n) => n === 2,
    );
    const [processing, success] = received('devnet-eth', dep!.id);
    expect(processing!.event).toBe('deposit.processing');
    expect(processing!.data).toMatchObject({ status: 'PENDING', confirmed: false });
    expect(success!.event).toBe('deposit.success');
    expect(success!.data).toMatchObject({
      type: 'DEPOSIT',
      status: 'SUCCESS',
      confirmed: true,
      confirmations: 3,
      amount: '12.345678',
      currency: 'USDC',
      hash: receipt.transactionHash,
      blockNumber: Number(receipt.blockNumber),
      senderAddress: eth.faucet,
      recipientAddress: child.address,
      metadata: { customerId: 'c-42' },
      amlScreening: {},
      assetSwept: false,
      assetSweptHash: null,
      address: { id: child.id, address: child.address },
      asset: { symbol: 'USDC', decimals: 6 },
      blockchain: { slug: 'devnet-eth' },
      wallet: { id: h.wallets['devnet-eth']!.id },
    });
  });

  it('an 18-decimal token deposit keeps every digit', async () => {
    const child = await newAddress('devnet-bsc');
    const receipt = await bsc.sendToken('USDT', child.address, '1.000000000000000001');
    await bsc.mine(2);
    await drain('devnet-bsc');
    const [dep] = await depositsOf(receipt.transactionHash);
    expect(dep).toMatchObject({ status: 'SUCCESS', amount: '1000000000000000001' });
    const res = await h.api('GET', `/v1/wallets/${h.wallets['devnet-bsc']!.id}/transactions/${dep!.id}`, {
      key: h.wallets['devnet-bsc']!.apiKey,
    });
    expect(res.body.data).toMatchObject({ amount: '1.000000000000000001', asset: { symbol: 'USDT', decimals: 18 } });
  });

  it('a deposit already at the depth when found (backfill) is SUCCESS in one pass, reported processing then success', async () => {
    const w = h.wallets['devnet-eth']!;
    // Non-ASCII and a raw RS control character (the bodies' separator on the way to PostgreSQL) survive.
    const metadata = { customerId: 'c-backfill', note: 'Zoë \u001e ✓' };
    const child = await newAddress('devnet-eth', metadata);
    const receipt = await eth.sendToken('USDC', child.address, '7.000001');
    await eth.mine(CONFIRMATIONS + 1);
    await drain('devnet-eth');
    const [dep] = await depositsOf(receipt.transactionHash);
    expect(dep).toMatchObject({ status: 'SUCCESS', amount: '7000001', confirmations: CONFIRMATIONS + 2 });
    expect(await eventsFor(dep!.id)).toEqual(['deposit.processing', 'deposit.success']);

    await eventually(
      async () => received('devnet-eth', dep!.id).length,
      (n) => n === 2,
    );
    const [processing, success] = received('devnet-eth', dep!.id);
    expect(processing!.event).toBe('deposit.processing');
    expect(success!.event).toBe('deposit.success');
    // The success body is the Transaction exactly as the API shows it (built from the inserted row, not re-read).
    const shown = await h.api('GET', `/v1/wallets/${w.id}/transactions/${dep!.id}`);
    expect(success!.data).toEqual(shown.body.data);
    expect(success!.data).toMatchObject({
      status: 'SUCCESS',
      confirmed: true,
      confirmations: CONFIRMATIONS + 2,
      amount: '7.000001',
      metadata,
      amlScreening: {},
      address: { id: child.id, address: child.address },
    });
    // The processing body is the same record as it was when found: not yet confirmed.
    expect(processing!.data).toEqual({ ...shown.body.data, status: 'PENDING', confirmed: false });
  });

  it('a native deposit is recorded when the native asset is enabled, and not before', async () => {
    const w = h.wallets['devnet-eth']!;
    const child = await newAddress('devnet-eth');
    const before = await eth.sendNative(child.address, '0.5');
    await drain('devnet-eth');
    expect(await depositsOf(before.transactionHash)).toEqual([]);

    const native = h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.is_native)!;
    expect((await h.api('PATCH', `/v1/wallets/${w.id}/assets/${native.id}`, { body: { isActive: true } })).status).toBe(200);
    const receipt = await eth.sendNative(child.address, '1.25');
    await eth.mine(2);
    await drain('devnet-eth');
    const [dep] = await depositsOf(receipt.transactionHash);
    expect(dep).toMatchObject({ status: 'SUCCESS', amount: '1250000000000000000', log_index: -1 });
    const view = await h.api('GET', `/v1/wallets/${w.id}/transactions/${dep!.id}`);
    expect(view.body.data).toMatchObject({ amount: '1.25', currency: 'ETH', tokenAddress: null, asset: { isNative: true } });
  });

  it('a deposit to the master address is recorded without an address', async () => {
    const w = h.wallets['devnet-bsc']!;
    const receipt = await bsc.sendToken('USDC', w.address, '3');
    await bsc.mine(2);
    await drain('devnet-bsc');
    const [dep] = await depositsOf(receipt.transactionHash);
    const view = await h.api('GET', `/v1/wallets/${w.id}/transactions/${dep!.id}`, { key: w.apiKey });
    expect(view.body.data).toMatchObject({ status: 'SUCCESS', amount: '3', address: null, recipientAddress: w.address });
  });
});

describe('reorgs', () => {
  it('a deposit reorged out before its confirmations ends FAILED with deposit.failed, never SUCCESS', async () => {
    const child = await newAddress('devnet-eth');
    const snap = await eth.snapshot();
    const receipt = await eth.sendToken('USDT', child.address, '7');
    await drain('devnet-eth');
    const [dep] = await depositsOf(receipt.transactionHash);
    expect(dep!.status).toBe('PENDING');

    await eth.revert(snap);
    await eth.sendFiller(); // the new branch differs from the old one
    await eth.mine(CONFIRMATIONS + 1);
    await drain('devnet-eth');
    expect((await depositsOf(receipt.transactionHash))[0]).toMatchObject({ status: 'FAILED' });
    expect(await eventsFor(dep!.id)).toEqual(['deposit.processing', 'deposit.failed']);
    await eventually(
      async () => received('devnet-eth', dep!.id).map((w) => w.event),
      (e) => e.includes('deposit.failed'),
    );
    expect(received('devnet-eth', dep!.id).some((w) => w.event === 'deposit.success')).toBe(false);
  });

  it('a deposit re-mined in another block after a reorg keeps one record', async () => {
    const child = await newAddress('devnet-eth');
    const raw = await eth.signTokenTransfer('USDC', child.address, '5.5');
    const snap = await eth.snapshot();
    const first = await eth.sendRaw(raw);
    await drain('devnet-eth');
    const [dep] = await depositsOf(first.transactionHash);

    await eth.revert(snap);
    await eth.sendFiller();
    const again = await eth.sendRaw(raw);
    expect(again.transactionHash).toBe(first.transactionHash);
    expect(again.blockNumber).not.toBe(first.blockNumber);
    await eth.mine(CONFIRMATIONS);
    await drain('devnet-eth');
    const rows = await depositsOf(first.transactionHash);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: dep!.id, status: 'SUCCESS', block_number: String(again.blockNumber) });
    expect(await eventsFor(dep!.id)).toEqual(['deposit.processing', 'deposit.success']);
  });

  it('a deposit failed by a reorg and then re-mined is the same record, credited, without the reason it had failed with', async () => {
    const w = h.wallets['devnet-eth']!;
    const child = await newAddress('devnet-eth');
    const raw = await eth.signTokenTransfer('USDC', child.address, '6.5');
    const snap = await eth.snapshot();
    const first = await eth.sendRaw(raw);
    await drain('devnet-eth');
    const [dep] = await depositsOf(first.transactionHash);

    await eth.revert(snap);
    await eth.sendFiller();
    await eth.mine(CONFIRMATIONS + 1);
    await drain('devnet-eth');
    const failed = await h.api('GET', `/v1/wallets/${w.id}/transactions/${dep!.id}`);
    expect(failed.body.data).toMatchObject({
      status: 'FAILED',
      reason: 'The block holding this deposit was replaced (chain reorganisation)',
    });

    await eth.sendRaw(raw);
    await eth.mine(CONFIRMATIONS);
    await drain('devnet-eth');
    expect(await depositsOf(first.transactionHash)).toEqual([expect.objectContaining({ id: dep!.id, status: 'SUCCESS' })]);
    const credited = await h.api('GET', `/v1/wallets/${w.id}/transactions/${dep!.id}`);
    expect(credited.body.data).toMatchObject({ status: 'SUCCESS', confirmed: true, amount: '6.5', reason: null });
    expect(await eventsFor(dep!.id)).toEqual(['deposit.processing', 'deposit.failed', 'deposit.processing', 'deposit.success']);
    const hooks = await eventually(
      async () => received('devnet-eth', dep!.id),
      (r) => r.some((x) => x.event === 'deposit.success'),
    );
    expect(hooks.filter((x) => x.event !== 'deposit.failed').map((x) => x.data.reason)).toEqual([null, null, null]);
  });

  describe('a transaction with two transfers to one address (Multicall3 paying out of its own balance)', () => {
    const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11' as const;
    const aggregate3 = parseAbi([
      'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[])',
    ]);
    /** The devnet token's balance slot of `owner` (balanceOf is its 4th slot). */
    const balanceSlot = (owner: Address) => keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner, 3n]));

    /** Signed, not sent: from a fresh account (so the faucet's nonces stay free for a filler), Multicall3 paying `amounts` to `to`. */
    async function twoTransfers(to: string | string[], amounts: bigint[], symbols = ['USDC', 'USDC']): Promise<Hex> {
      const account = privateKeyToAccount(generatePrivateKey());
      await eth.rpc('anvil_setBalance', [account.address, '0xDE0B6B3A7640000']);
      const client = createWalletClient({
        account,
        chain: devnetChain(eth.config.chainId, eth.config.rpcUrl),
        transport: http(eth.config.rpcUrl),
      });
      const calls = amounts.map((amount, i) => ({
        target: eth.token(symbols[i]!).address as Address,
        allowFailure: true,
        callData: encodeFunctionData({
          abi: erc20Abi,
          functionName: 'transfer',
          args: [(Array.isArray(to) ? to[i] : to) as Address, amount],
        }),
      }));
      const data = encodeFunctionData({ abi: aggregate3, functionName: 'aggregate3', args: [calls] });
      return client.signTransaction((await client.prepareTransactionRequest({ to: MULTICALL3, data, gas: 300_000n })) as never);
    }
    /** The amounts of the receipt's Transfer logs to `to`, by log index. */
    async function logged(hash: Hex, to: string): Promise<Map<number, bigint>> {
      const receipt = await eth.pub.getTransactionReceipt({ hash });
      const events = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs });
      return new Map(events.filter((e) => e.args.to.toLowerCase() === to.toLowerCase()).map((e) => [e.logIndex, e.args.value]));
    }

    /**
     * `raw` mined and indexed (`afterFirst` then), the chain taken back before it, and `raw`
     * mined again after `beforeAgain` and another account's transaction; indexed to its depth.
     */
    async function minedTwice(
      raw: Hex,
      steps: { afterFirst?: (hash: Hex) => Promise<void>; beforeAgain?: () => Promise<void> },
    ): Promise<{ first: Hex; again: Hex }> {
      const snap = await eth.snapshot();
      const first = await eth.sendRaw(raw);
      await drain('devnet-eth');
      await steps.afterFirst?.(first.transactionHash);
      await eth.revert(snap);
      await steps.beforeAgain?.();
      await eth.sendFiller();
      const again = await eth.sendRaw(raw);
      expect(again.status).toBe('success');
      await eth.mine(CONFIRMATIONS);
      await drain('devnet-eth');
      return { first: first.transactionHash, again: again.transactionHash };
    }

    it('re-mined behind another transfer in one block (its logs one index later): one record of each, amounts and positions right', async () => {
      const child = await newAddress('devnet-eth');
      await eth.sendToken('USDC', MULTICALL3, '10');
      const raw = await twoTransfers(child.address, [1_500_000n, 2_500_000n]);
      const snap = await eth.snapshot();
      const first = await eth.sendRaw(raw);
      await drain('devnet-eth');
      const before = await depositsOf(first.transactionHash);
      expect(before.map((r) => r.amount).sort()).toEqual(['1500000', '2500000']);

      await eth.revert(snap);
      // The same transaction behind a faucet token transfer in one block: its logs move up by one.
      await eth.rpc('evm_setAutomine', [false]);
      try {
        const usdc = eth.token('USDC').address as Address;
        await eth.wallet.writeContract({
          address: usdc,
          abi: erc20Abi,
          functionName: 'transfer',
          args: [privateKeyToAccount(generatePrivateKey()).address, 1n],
          maxPriorityFeePerGas: 10n ** 10n,
          maxFeePerGas: 10n ** 11n,
        });
        await eth.rpc('eth_sendRawTransaction', [raw]);
        await eth.mine();
      } finally {
        await eth.rpc('evm_setAutomine', [true]);
      }
      const logs = await logged(first.transactionHash, child.address);
      expect([...logs.keys()].sort()).not.toEqual(before.map((r) => r.log_index).sort());
      await eth.mine(CONFIRMATIONS);
      await drain('devnet-eth');

      const after = await depositsOf(first.transactionHash);
      expect(after.map((r) => r.id).sort()).toEqual(before.map((r) => r.id).sort());
      for (const r of after) {
        expect(r.status).toBe('SUCCESS');
        expect(BigInt(r.amount), `deposit at log ${r.log_index}`).toBe(logs.get(r.log_index));
      }
      expect(after.reduce((sum, r) => sum + BigInt(r.amount), 0n)).toBe(4_000_000n);
    });

    it('re-executed with one transfer fewer (Multicall3 short of the second): that deposit ends FAILED with deposit.failed, the other SUCCESS', async () => {
      const child = await newAddress('devnet-eth');
      await eth.sendToken('USDC', MULTICALL3, '10');
      const raw = await twoTransfers(child.address, [1_500_000n, 2_500_000n]);
      const { first, again } = await minedTwice(raw, {
        afterFirst: async (hash) => expect(await depositsOf(hash)).toHaveLength(2),
        // In the new branch Multicall3 holds only the first amount: the second call fails (allowed).
        beforeAgain: () => eth.rpc('anvil_setStorageAt', [eth.token('USDC').address, balanceSlot(MULTICALL3), pad(toHex(1_500_000n))]),
      });
      expect([...(await logged(again, child.address)).values()]).toEqual([1_500_000n]);

      const rows = await depositsOf(first);
      expect(rows).toHaveLength(2);
      const byAmount = new Map(rows.map((r) => [r.amount, r]));
      expect(byAmount.get('1500000')!.status).toBe('SUCCESS');
      const goneRow = byAmount.get('2500000')!;
      expect(goneRow.status).toBe('FAILED');
      expect(await eventsFor(goneRow.id)).toEqual(['deposit.processing', 'deposit.failed']);
    });

    it('re-mined after the wallet stopped watching one of its recipients: that deposit is not failed (nothing was read for it), the other follows', async () => {
      const w = h.wallets['devnet-eth']!;
      const outside = privateKeyToAccount(generatePrivateKey()).address;
      const added = await h.api('POST', `/v1/wallets/${w.id}/addresses/whitelist`, { body: { address: outside } });
      expect(added.status).toBe(200);
      const child = await newAddress('devnet-eth');
      await eth.sendToken('USDC', MULTICALL3, '10');
      const raw = await twoTransfers([outside, child.address], [1_000_000n, 2_000_000n]);
      const { first } = await minedTwice(raw, {
        afterFirst: async (hash) => {
          expect(await depositsOf(hash)).toHaveLength(2);
          expect((await h.api('DELETE', `/v1/wallets/${w.id}/addresses/whitelist/${added.body.data.id}`)).status).toBe(200);
        },
      });
      const byAmount = new Map((await depositsOf(first)).map((r) => [r.amount, r]));
      expect(byAmount.get('2000000')).toMatchObject({ status: 'SUCCESS' });
      expect(byAmount.get('1000000')!.status).not.toBe('FAILED');
      expect(await eventsFor(byAmount.get('1000000')!.id)).not.toContain('deposit.failed');
    });

    it('a lone transfer re-mined after the wallet stopped watching its recipient: not failed, moved to its new block, confirmed', async () => {
      const w = h.wallets['devnet-eth']!;
      const outside = privateKeyToAccount(generatePrivateKey()).address;
      const added = await h.api('POST', `/v1/wallets/${w.id}/addresses/whitelist`, { body: { address: outside } });
      expect(added.status).toBe(200);
      await drain('devnet-eth');
      const raw = await eth.signTokenTransfer('USDC', outside, '3');
      const { first } = await minedTwice(raw, {
        afterFirst: async (hash) => {
          expect(await depositsOf(hash)).toMatchObject([{ status: 'PENDING', amount: '3000000' }]);
          expect((await h.api('DELETE', `/v1/wallets/${w.id}/addresses/whitelist/${added.body.data.id}`)).status).toBe(200);
        },
      });
      expect(await eth.balanceOf('USDC', outside)).toBe(3_000_000n);
      const receipt = await eth.pub.getTransactionReceipt({ hash: first });
      const [row] = await depositsOf(first);
      expect(row).toMatchObject({ status: 'SUCCESS', amount: '3000000', block_number: receipt.blockNumber.toString() });
      expect(await eventsFor(row!.id)).not.toContain('deposit.failed');
    });

    it("re-executed without its first transfer (another token), the second taking that one's position: the first FAILED, the second follows, the indexer goes on", async () => {
      const child = await newAddress('devnet-eth');
      await eth.sendToken('USDT', MULTICALL3, '10');
      await eth.sendToken('USDC', MULTICALL3, '10');
      const raw = await twoTransfers(child.address, [2_000_000n, 1_000_000n], ['USDT', 'USDC']);
      const { first, again } = await minedTwice(raw, {
        afterFirst: async (hash) => expect(await depositsOf(hash)).toHaveLength(2),
        // In the new branch Multicall3 holds no USDT: the first call fails (allowed), USDC's log comes first.
        beforeAgain: () => eth.rpc('anvil_setStorageAt', [eth.token('USDT').address, balanceSlot(MULTICALL3), pad(toHex(0n))]),
      });
      const logs = await logged(again, child.address);
      expect([...logs.values()]).toEqual([1_000_000n]);

      const byAmount = new Map((await depositsOf(first)).map((r) => [r.amount, r]));
      expect(byAmount.get('1000000')).toMatchObject({ status: 'SUCCESS', log_index: [...logs.keys()][0] });
      expect(byAmount.get('2000000')).toMatchObject({ status: 'FAILED' });
      expect(await eventsFor(byAmount.get('2000000')!.id)).toEqual(['deposit.processing', 'deposit.failed']);
    });
  });

  it('catching up, a reorg of the range after one still being written is not recorded', async () => {
    // Two-block ranges, so catching up writes one range while it reads and writes the next.
    const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    const ix = new ChainIndexer(h.services.db, chain, h.services.webhooks, h.services.events, createLogger('silent'), {
      batchBlocks: 2,
      extraWindow: 64,
    });
    const child = await newAddress('devnet-eth');
    for (let i = 0; i < 1000 && (await ix.step()) !== 'idle'; i++);
    await eth.mine(2); // the first range
    const snap = await eth.snapshot();
    const receipt = await eth.sendToken('USDC', child.address, '9'); // first block of the second range
    await eth.mine(CONFIRMATIONS + 4);
    // The first range, possibly still being written when step returns (the reorg below then
    // happens while it is in flight).
    expect(await ix.step()).toBe('progress');

    // The second range is replaced; the block before it is not, so it still links to the cursor.
    await eth.revert(snap);
    await eth.sendFiller();
    await eth.mine(CONFIRMATIONS + 6);
    for (let i = 0; i < 1000 && (await ix.step()) !== 'idle'; i++);
    expect(await depositsOf(receipt.transactionHash)).toEqual([]);
  });

  it('a deposit whose block is replaced while its transaction sits in a block past the range follows it there: gone with that block too, it ends FAILED, never SUCCESS', async () => {
    // Two-block ranges, so a range can end below the block the transaction was re-mined in.
    const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    const ix = new ChainIndexer(h.services.db, chain, h.services.webhooks, h.services.events, createLogger('silent'), {
      batchBlocks: 2,
      extraWindow: 64,
    });
    const steps = async () => {
      for (let i = 0; i < 1000 && (await ix.step()) !== 'idle'; i++);
    };
    const child = await newAddress('devnet-eth');
    await steps();
    const raw = await eth.signTokenTransfer('USDC', child.address, '3.25');
    const beforeDeposit = await eth.snapshot();
    const first = await eth.sendRaw(raw);
    await steps();
    const [dep] = await depositsOf(first.transactionHash);
    expect(dep).toMatchObject({ status: 'PENDING', block_number: String(first.blockNumber) });

    // A new branch: three other blocks, then the same transaction three blocks later than before.
    await eth.revert(beforeDeposit);
    await eth.sendFiller();
    await eth.mine(2);
    const beforeRemined = await eth.snapshot();
    const again = await eth.sendRaw(raw);
    expect(again.blockNumber).toBeGreaterThan(first.blockNumber + 1n);
    // The rewind, then the range holding the deposit's old block (two blocks, below the new one).
    expect(await ix.step()).toBe('progress');
    expect(await ix.step()).toBe('progress');

    // That block goes too, and the faucet's next transfer takes the transaction's nonce: it is
    // on no branch any more.
    await eth.revert(beforeRemined);
    await eth.sendToken('USDC', eth.faucet, '1');
    await eth.mine(CONFIRMATIONS + 4);
    await steps();
    const [after] = await depositsOf(first.transactionHash);
    expect(after).toMatchObject({ id: dep!.id, status: 'FAILED' });
    expect(await eventsFor(dep!.id)).toEqual(['deposit.processing', 'deposit.failed']);
  });

  it('a reorg above a confirmed deposit leaves it untouched', async () => {
    const child = await newAddress('devnet-eth');
    const receipt = await eth.sendToken('USDC', child.address, '2');
    await eth.mine(CONFIRMATIONS);
    await drain('devnet-eth');
    const [dep] = await depositsOf(receipt.transactionHash);
    expect(dep!.status).toBe('SUCCESS');
    const snap = await eth.snapshot();
    await eth.mine(2);
    await drain('devnet-eth');
    await eth.revert(snap);
    await eth.sendFiller();
    await eth.mine(2);
    await drain('devnet-eth');
    expect(await depositsOf(receipt.transactionHash)).toEqual([expect.objectContaining({ id: dep!.id, status: 'SUCCESS' })]);
    expect(await eventsFor(dep!.id)).toEqual(['deposit.processing', 'deposit.success']);
  });
});

describe('exactly once', () => {
  async function depositCount() {
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM transactions WHERE type = 'DEPOSIT'`.execute(h.database.db);
    return Number(rows[0]!.n);
  }
  async function eventCount() {
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM events`.execute(h.database.db);
    return Number(rows[0]!.n);
  }

  it('replaying a block range records nothing twice', async () => {
    const child = await newAddress('devnet-bsc');
    for (const amount of ['1', '2', '3']) await bsc.sendToken('USDC', child.address, amount);
    await bsc.mine(CONFIRMATIONS);
    await drain('devnet-bsc');
    const deposits = await depositCount();
    const events = await eventCount();
    const chainId = h.services.catalogue.findChain('devnet-bsc', 'testnet')!.id;
    await sql`UPDATE chain_cursors SET block_number = -1, block_hash = NULL WHERE chain_id = ${chainId}`.execute(h.database.db);
    await drain('devnet-bsc');
    expect(await depositCount()).toBe(deposits);
    expect(await eventCount()).toBe(events);
  });

  it('a failure in the middle of recording a range leaves nothing half-written', async () => {
    await drain('devnet-eth'); // the cursor exists and is at the head
    const child = await newAddress('devnet-eth');
    const receipts = [];
    for (const amount of ['10', '20']) receipts.push(await eth.sendToken('USDT', child.address, amount));
    await eth.mine(CONFIRMATIONS);
    const chainId = h.services.catalogue.findChain('devnet-eth', 'testnet')!.id;
    const before = await sql<{ block_number: string }>`SELECT block_number FROM chain_cursors WHERE chain_id = ${chainId}`.execute(
      h.database.db,
    );
    let armed = true;
    const unobserve = h.services.events.observe('deposit.confirmed', async () => {
      if (armed) {
        armed = false;
        throw new Error('simulated crash while recording');
      }
    });
    await expect(drain('devnet-eth')).rejects.toThrow('simulated crash');
    const after = await sql<{ block_number: string }>`SELECT block_number FROM chain_cursors WHERE chain_id = ${chainId}`.execute(
      h.database.db,
    );
    expect(after.rows[0]!.block_number).toBe(before.rows[0]!.block_number);
    for (const r of receipts) expect(await depositsOf(r.transactionHash)).toEqual([]);
    await drain('devnet-eth');
    for (const r of receipts) expect(await depositsOf(r.transactionHash)).toEqual([expect.objectContaining({ status: 'SUCCESS' })]);
    unobserve();
  });

  it('catching up with overlapping range transactions: when one fails, the next does not commit past it', async () => {
    await drain('devnet-eth');
    const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    let armed = false;
    const unobserve = h.services.events.observe('deposit.confirmed', async () => {
      if (armed) {
        armed = false;
        throw new Error('simulated failure of a range');
      }
    });
    const ix = new ChainIndexer(h.services.db, chain, h.services.webhooks, h.services.events, createLogger('silent'), {
      batchBlocks: 2,
      extraWindow: 64,
    });
    const child = await newAddress('devnet-eth');
    const receipts = [];
    for (let i = 1; i <= 8; i++) receipts.push(await eth.sendToken('USDC', child.address, String(i))); // a block each
    await eth.mine(CONFIRMATIONS);
    armed = true;
    let failed: unknown = null;
    for (let i = 0; i < 100 && !failed; i++) {
      try {
        if ((await ix.step()) === 'idle') break;
      } catch (err) {
        failed = err;
      }
    }
    expect(String(failed)).toMatch(/simulated failure/);
    await ix.settle();
    // The cursor and the deposits agree: every deposit at or below it is recorded, none above.
    const { rows } = await sql<{ block_number: string }>`SELECT block_number FROM chain_cursors WHERE chain_id = ${chain.id}`.execute(
      h.database.db,
    );
    const cursor = BigInt(rows[0]!.block_number);
    expect(cursor).toBeLessThan(receipts.at(-1)!.blockNumber);
    for (const r of receipts) expect(await depositsOf(r.transactionHash)).toHaveLength(r.blockNumber <= cursor ? 1 : 0);
    for (let i = 0; i < 100 && (await ix.step()) !== 'idle'; i++);
    for (const r of receipts) {
      const [dep, ...more] = await depositsOf(r.transactionHash);
      expect(more).toEqual([]);
      expect(dep).toMatchObject({ status: 'SUCCESS' });
      expect(await eventsFor(dep!.id)).toEqual(['deposit.processing', 'deposit.success']);
    }
    unobserve();
  });

  it('two indexers racing on one chain record each deposit once', async () => {
    const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    // Two-block ranges: each indexer also overlaps its own ranges while catching up.
    const make = () =>
      new ChainIndexer(h.services.db, chain, h.services.webhooks, h.services.events, createLogger('silent'), {
        batchBlocks: 2,
        extraWindow: 64,
      });
    const [a, b, c, d] = [make(), make(), make(), make()];
    const child = await newAddress('devnet-eth');
    const receipts = [];
    for (let i = 1; i <= 5; i++) receipts.push(await eth.sendToken('USDC', child.address, String(i)));
    await eth.mine(CONFIRMATIONS);
    const run = async (ix: ChainIndexer) => {
      for (let i = 0; i < 100; i++) if ((await ix.step()) === 'idle') return;
    };
    await Promise.all([run(a), run(b), run(c), run(d)]);
    for (const r of receipts) {
      const rows = await depositsOf(r.transactionHash);
      expect(rows).toHaveLength(1);
      expect(await eventsFor(rows[0]!.id)).toEqual(['deposit.processing', 'deposit.success']);
    }
  });
});

describe('history', () => {
  it('filters, orders and paginates a child address history; foreign wallets get 404', async () => {
    const w = h.wallets['devnet-eth']!;
    const child = await newAddress('devnet-eth');
    await eth.sendToken('USDC', child.address, '1');
    await eth.sendToken('USDT', child.address, '2');
    await eth.sendToken('USDC', child.address, '3');
    await drain('devnet-eth');
    const base = `/v1/wallets/${w.id}/addresses/${child.id}/transactions`;
    const all = await h.api('GET', base);
    expect(all.status).toBe(200);
    expect(all.body.data.map((t: { amount: string }) => t.amount)).toEqual(['3', '2', '1']);
    expect(all.body.meta).toEqual({ currentPage: 1, itemCount: 3, itemsPerPage: 100, totalItems: 3, totalPages: 1 });
    expect(all.body.data[0]).toMatchObject({
      address: { id: child.id },
      asset: { symbol: 'USDC' },
      blockchain: { slug: 'devnet-eth' },
      wallet: { id: w.id },
    });
    expect((await h.api('GET', `${base}?order=ASC`)).body.data.map((t: { amount: string }) => t.amount)).toEqual(['1', '2', '3']);
    expect((await h.api('GET', `${base}?assets=USDT`)).body.data.map((t: { amount: string }) => t.amount)).toEqual(['2']);
    expect((await h.api('GET', `${base}?assets=usdt,USDC`)).body.meta.totalItems).toBe(3);
    // Three blocks in a row with 3 confirmations required: the first is confirmed, the others wait.
    expect((await h.api('GET', `${base}?status=PENDING&type=DEPOSIT`)).body.data.map((t: { amount: string }) => t.amount)).toEqual([
      '3',
      '2',
    ]);
    expect((await h.api('GET', `${base}?status=SUCCESS`)).body.data.map((t: { amount: string }) => t.amount)).toEqual(['1']);
    expect((await h.api('GET', `${base}?status=FAILED`)).body.meta.totalItems).toBe(0);
    const page2 = await h.api('GET', `${base}?limit=2&page=2`);
    expect(page2.body.meta).toEqual({ currentPage: 2, itemCount: 1, itemsPerPage: 2, totalItems: 3, totalPages: 2 });
    const one = all.body.data[1];
    expect((await h.api('GET', `${base}?hash=${one.hash}`)).body.data.map((t: { id: string }) => t.id)).toEqual([one.id]);
    expect((await h.api('GET', `${base}?id=${one.id}`)).body.data).toHaveLength(1);
    expect((await h.api('GET', `${base}?reference=${one.reference}`)).body.data).toHaveLength(1);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await h.api('GET', `${base}?startDate=${future}`)).body.meta.totalItems).toBe(0);
    for (const bad of [
      'status=DONE',
      'type=GIFT',
      'order=UP',
      'limit=0',
      'limit=101',
      'hash=0x12',
      'startDate=yesterday',
      'page=0',
      'color=red',
    ]) {
      expect((await h.api('GET', `${base}?${bad}`)).status, bad).toBe(400);
    }
    expect((await h.api('GET', `${base}?startDate=${future}&endDate=2020-01-01T00:00:00.000Z`)).status).toBe(400);
    const other = h.wallets['devnet-bsc']!;
    expect((await h.api('GET', base, { key: other.apiKey })).status).toBe(404);
    expect((await h.api('GET', `/v1/wallets/${other.id}/addresses/${child.id}/transactions`, { key: other.apiKey })).status).toBe(404);
    expect((await h.api('GET', `/v1/wallets/${other.id}/transactions/${one.id}`, { key: other.apiKey })).status).toBe(404);
    const wallet = await h.api('GET', `/v1/wallets/${w.id}/transactions?limit=5`);
    expect(wallet.body.meta.totalItems).toBeGreaterThan(3);
  });
});

describe('deposit finder', () => {
  it('records a deposit the indexer has not seen, idempotently, and the indexer does not double it', async () => {
    const w = h.wallets['devnet-eth']!;
    const child = await newAddress('devnet-eth');
    const receipt = await eth.sendToken('USDT', child.address, '9.99');
    const first = await h.api('POST', `/v1/wallets/${w.id}/rescan/blocks`, { body: { transactionHash: receipt.transactionHash } });
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(1);
    expect(first.body.data[0]).toMatchObject({ type: 'DEPOSIT', amount: '9.99', status: 'PENDING', address: { id: child.id } });
    const again = await h.api('POST', `/v1/wallets/${w.id}/rescan/blocks`, { body: { transactionHash: receipt.transactionHash } });
    expect(again.body.data.map((t: { id: string }) => t.id)).toEqual([first.body.data[0].id]);
    await eth.mine(CONFIRMATIONS);
    await drain('devnet-eth');
    expect(await depositsOf(receipt.transactionHash)).toEqual([expect.objectContaining({ id: first.body.data[0].id, status: 'SUCCESS' })]);

    const other = h.wallets['devnet-bsc']!;
    const notMine = await h.api('POST', `/v1/wallets/${w.id}/rescan/blocks`, {
      body: { transactionHash: (await eth.sendNative(eth.faucet, '0.1')).transactionHash },
    });
    expect(notMine.status).toBe(422);
    expect((await h.api('POST', `/v1/wallets/${w.id}/rescan/blocks`, { body: { transactionHash: `0x${'1'.repeat(64)}` } })).status).toBe(
      422,
    );
    expect((await h.api('POST', `/v1/wallets/${w.id}/rescan/blocks`, { body: { transactionHash: '0x1234' } })).status).toBe(400);
    expect(
      (await h.api('POST', `/v1/wallets/${w.id}/rescan/blocks`, { key: other.apiKey, body: { transactionHash: receipt.transactionHash } }))
        .status,
    ).toBe(404);
  });
});

describe('the deposit finder beside the indexer', () => {
  it('confirms only what it found: a pending deposit an indexer range holds does not make it wait', async () => {
    const w = h.wallets['devnet-eth']!;
    const held = await eth.sendToken('USDC', (await newAddress('devnet-eth')).address, '1.5');
    await drain('devnet-eth');
    const [x] = await depositsOf(held.transactionHash);
    expect(x).toMatchObject({ status: 'PENDING' });
    const found = await eth.sendToken('USDC', (await newAddress('devnet-eth')).address, '2.5');

    // An indexer range's shape: the pending deposit's row updated, its transaction still open.
    const range = new pg.Client({ connectionString: h.databaseUrl });
    await range.connect();
    try {
      await range.query('BEGIN');
      await range.query('UPDATE transactions SET updated_at = now() WHERE id = $1', [x!.id]);
      const waits = () => blockedBy(range);
      const request = h.api('POST', `/v1/wallets/${w.id}/rescan/blocks`, { body: { transactionHash: found.transactionHash } });
      let answered = false;
      void request.finally(() => (answered = true));
      // Either the answer comes, or the request is seen waiting for the held row (the defect).
      const blocked = await eventually(
        async () => (answered ? false : (await waits()) > 0),
        (b) => answered || b,
        20_000,
      );
      expect(blocked, 'the finder waited for a deposit it did not find').toBe(false);
      const res = await request;
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([expect.objectContaining({ amount: '2.5', status: 'PENDING' })]);
    } finally {
      await range.query('ROLLBACK');
      await range.end();
    }
  });
});

describe('the deposit finder and a record written beside it', () => {
  it("answers the record another writer committed at the transfer's position while it inserted, not NO_DEPOSIT_FOUND", async () => {
    const w = h.wallets['devnet-eth']!;
    const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    const usdc = chain.assets.find((a) => a.symbol === 'USDC')!;
    const child = await newAddress('devnet-eth');
    const receipt = await eth.sendToken('USDC', child.address, '3.75');
    const { insertDeposits } = await import('../../src/modules/transactions/deposit-store.js');
    const { shortReference, uuidv7 } = await import('../../src/lib/ids.js');
    const id = uuidv7();
    // An indexer range's insert of the same transfer, not yet committed when the finder inserts.
    let commit!: () => void;
    const open = new Promise<void>((resolve) => (commit = resolve));
    const range = h.database.db.transaction().execute(async (tx) => {
      await insertDeposits(tx, [
        {
          id,
          walletId: w.id,
          addressId: child.id,
          assetId: usdc.id,
          chainId: chain.id,
          reference: shortReference(),
          amount: 3_750_000n,
          amountUsd: null,
          currency: 'USDC',
          hash: receipt.transactionHash,
          logIndex: receipt.logs[0]!.logIndex,
          block: { number: receipt.blockNumber, hash: receipt.blockHash },
          from: eth.faucet,
          to: child.address,
          token: usdc.address,
          network: 'testnet',
        },
      ]);
      await open;
    });
    const request = h.api('POST', `/v1/wallets/${w.id}/rescan/blocks`, { body: { transactionHash: receipt.transactionHash } });
    // The finder's insert waits for the range's row.
    await eventually(
      async () =>
        (
          await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%INSERT INTO transactions%'`.execute(
            h.database.db,
          )
        ).rows[0]!.n,
      (n) => n > 0,
    ).finally(commit);
    await range;
    const res = await request;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual([expect.objectContaining({ id, amount: '3.75' })]);
    expect(await depositsOf(receipt.transactionHash)).toEqual([expect.objectContaining({ id })]);
  });
});

describe('a record the deposit finder writes while a range is being recorded', () => {
  it('from a block replaced since, at another log index: the range is read again and the transfer keeps one record', async () => {
    // What the finder leaves when it read the transaction off a branch the node has left
    // (its block at this height had another hash, its log another index) and commits while a
    // range holding the transaction's new position writes its inserts: the range had read no
    // record of the transaction, so it inserted its own beside the finder's, and both were
    // confirmed: the deposit credited twice.
    const w = h.wallets['devnet-eth']!;
    const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    const usdc = chain.assets.find((a) => a.symbol === 'USDC')!;
    const child = await newAddress('devnet-eth');
    await drain('devnet-eth');
    const receipt = await eth.sendToken('USDC', child.address, '4.25');
    await eth.mine(CONFIRMATIONS);

    const holder = new pg.Client({ connectionString: h.databaseUrl });
    await holder.connect();
    let step: Promise<unknown> | undefined;
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM chain_cursors WHERE chain_id = $1 FOR UPDATE', [chain.id]);
      // The range inserts its record, then waits for the cursor.
      step = indexers['devnet-eth']!.step();
      await eventually(
        () => blockedBy(holder),
        (n) => n > 0,
      );
      const { insertDeposits } = await import('../../src/modules/transactions/deposit-store.js');
      const { shortReference, uuidv7 } = await import('../../src/lib/ids.js');
      await insertDeposits(h.database.db, [
        {
          id: uuidv7(),
          walletId: w.id,
          addressId: child.id,
          assetId: usdc.id,
          chainId: chain.id,
          reference: shortReference(),
          amount: 4_250_000n,
          amountUsd: null,
          currency: 'USDC',
          hash: receipt.transactionHash,
          logIndex: receipt.logs[0]!.logIndex + 1,
          block: { number: receipt.blockNumber, hash: generatePrivateKey() },
          from: eth.faucet,
          to: child.address,
          token: usdc.address,
          network: 'testnet',
        },
      ]);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    await step;
    await drain('devnet-eth');
    expect(await depositsOf(receipt.transactionHash)).toEqual([
      expect.objectContaining({
        status: 'SUCCESS',
        amount: '4250000',
        block_number: String(receipt.blockNumber),
        log_index: receipt.logs[0]!.logIndex,
      }),
    ]);
  });
});

describe('external (whitelisted) addresses', () => {
  it('are registered, counted, watched for deposits, removable, and come back when added again', async () => {
    const w = h.wallets['devnet-eth']!;
    const { privateKeyToAccount, generatePrivateKey } = await import('viem/accounts');
    const external = privateKeyToAccount(generatePrivateKey()).address;
    const before = (await h.api('GET', `/v1/wallets/${w.id}/addresses?limit=1`)).body.analytics;

    const added = await h.api('POST', `/v1/wallets/${w.id}/addresses/whitelist`, {
      body: { address: external.toLowerCase(), name: 'exchange', metadata: { venue: 'x' } },
    });
    expect(added.status).toBe(200);
    expect(added.body.data).toMatchObject({
      address: external,
      type: 'EXTERNAL',
      derivationPath: null,
      name: 'exchange',
      configurations: { showPrivateKey: false },
    });
    const after = (await h.api('GET', `/v1/wallets/${w.id}/addresses?limit=1`)).body.analytics;
    expect(after.externalAddressesCount).toBe(before.externalAddressesCount + 1);
    expect(after.internalAddressesCount).toBe(before.internalAddressesCount);

    expect((await h.api('POST', `/v1/wallets/${w.id}/addresses/whitelist`, { body: { address: external } })).status).toBe(409);
    expect((await h.api('POST', `/v1/wallets/${w.id}/addresses/whitelist`, { body: { address: w.address } })).status).toBe(409);
    // One letter's case flipped, the address still in mixed case: always a broken EIP-55
    // checksum (changing the last character, as this did, now and then made another address
    // whose checksum happened to hold).
    const body = [...external.slice(2)];
    const lower = body.flatMap((c, i) => (/[a-f]/.test(c) ? [i] : []));
    const upper = body.flatMap((c, i) => (/[A-F]/.test(c) ? [i] : []));
    const at = lower.length >= 2 ? lower[0]! : upper[0]!;
    body[at] = lower.length >= 2 ? body[at]!.toUpperCase() : body[at]!.toLowerCase();
    const badChecksum = `0x${body.join('')}`;
    expect(badChecksum).toMatch(/[a-f]/);
    expect(badChecksum.slice(2)).toMatch(/[A-F]/);
    expect((await h.api('POST', `/v1/wallets/${w.id}/addresses/whitelist`, { body: { address: badChecksum } })).status).toBe(400);
    expect((await h.api('POST', `/v1/wallets/${w.id}/addresses/whitelist`, { body: { address: 'not-an-address' } })).status).toBe(400);
    expect((await h.api('POST', `/v1/wallets/${w.id}/addresses/whitelist`, { body: {} })).status).toBe(400);

    const receipt = await eth.sendToken('USDC', external, '4');
    await drain('devnet-eth');
    const [dep] = await depositsOf(receipt.transactionHash);
    const view = await h.api('GET', `/v1/wallets/${w.id}/transactions/${dep!.id}`);
    expect(view.body.data).toMatchObject({ amount: '4', address: { id: added.body.data.id, type: 'EXTERNAL' }, metadata: { venue: 'x' } });

    const internal = await newAddress('devnet-eth');
    expect((await h.api('DELETE', `/v1/wallets/${w.id}/addresses/whitelist/${internal.id}`)).status).toBe(422);
    expect(
      (await h.api('DELETE', `/v1/wallets/${w.id}/addresses/whitelist/${added.body.data.id}`, { key: h.wallets['devnet-bsc']!.apiKey }))
        .status,
    ).toBe(404);
    const removed = await h.api('DELETE', `/v1/wallets/${w.id}/addresses/whitelist/${added.body.data.id}`);
    expect(removed.status).toBe(200);
    expect((await h.api('GET', `/v1/wallets/${w.id}/addresses/${added.body.data.id}`)).status).toBe(404);
    expect((await h.api('GET', `/v1/wallets/${w.id}/addresses?limit=1`)).body.analytics.externalAddressesCount).toBe(
      before.externalAddressesCount,
    );
    const ignored = await eth.sendToken('USDC', external, '5');
    await drain('devnet-eth');
    expect(await depositsOf(ignored.transactionHash)).toEqual([]);
    // The deposit made while it was registered is still there, with its address.
    expect((await h.api('GET', `/v1/wallets/${w.id}/transactions/${dep!.id}`)).body.data.address.id).toBe(added.body.data.id);

    const again = await h.api('POST', `/v1/wallets/${w.id}/addresses/whitelist`, { body: { address: external } });
    expect(again.body.data.id).toBe(added.body.data.id);
    const watched = await eth.sendToken('USDC', external, '6');
    await drain('devnet-eth');
    expect(await depositsOf(watched.transactionHash)).toHaveLength(1);
  });

  it("a transfer from one of them to the wallet's own address is a deposit (only the wallet's own movements are not)", async () => {
    const w = h.wallets['devnet-eth']!;
    const outside = privateKeyToAccount(generatePrivateKey());
    const added = await h.api('POST', `/v1/wallets/${w.id}/addresses/whitelist`, { body: { address: outside.address, name: 'customer' } });
    expect(added.status).toBe(200);
    await eth.rpc('anvil_setBalance', [outside.address, '0xDE0B6B3A7640000']);
    await eth.sendToken('USDC', outside.address, '10');
    const child = await newAddress('devnet-eth');
    const client = createWalletClient({
      account: outside,
      chain: devnetChain(eth.config.chainId, eth.config.rpcUrl),
      transport: http(eth.config.rpcUrl),
    });
    const hash = await client.writeContract({
      address: eth.token('USDC').address as Address,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [child.address as Address, 7_000_000n],
    });
    await eth.pub.waitForTransactionReceipt({ hash });
    await drain('devnet-eth');
    const [dep] = await depositsOf(hash);
    expect(dep).toMatchObject({ amount: '7000000' });
    const view = await h.api('GET', `/v1/wallets/${w.id}/transactions/${dep!.id}`);
    expect(view.body.data).toMatchObject({ type: 'DEPOSIT', amount: '7', senderAddress: outside.address, address: { id: child.id } });
  });
});
