import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { encodeFunctionData, erc20Abi, formatUnits, parseUnits, type Address, type Hash } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { chainOf } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';
import { call, writtenRows } from './support.js';

let h: Harness;
let receiver: Receiver;

beforeAll(async () => {
  h = await startHarness({ worker: true, services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200, waitRetryMs: 200 } } });
  receiver = await startReceiver();
  for (const w of Object.values(h.wallets)) {
    expect((await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { webhookUrl: receiver.url } })).status).toBe(200);
  }
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
});

const stranger = () => privateKeyToAccount(generatePrivateKey()).address;

function post(slug: string, action: 'write' | 'network-fee', body: unknown, key?: string | null) {
  const w = h.wallets[slug]!;
  return h.api('POST', `/v1/wallets/${w.id}/contracts/${action}`, { key: key === undefined ? w.apiKey : key, body });
}

async function settled(slug: string, id: string) {
  const w = h.wallets[slug]!;
  return eventually(
    async () => (await h.api('GET', `/v1/wallets/${w.id}/transactions/${id}`, { key: w.apiKey })).body.data,
    (t) => t.status !== 'PENDING',
    20_000,
  );
}

function events(slug: string, id: string) {
  return receiver.requests
    .filter((r) => r.body.includes(id))
    .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey: h.wallets[slug]!.apiKey, replay: false }))
    .filter((e) => e.data.id === id);
}

describe('contract writes from the master address', () => {
  for (const slug of ['devnet-eth', 'devnet-bsc']) {
    it(`transfers USDC on ${slug}: PENDING, then SUCCESS with the receipt, the event, and the exact balances`, async () => {
      const chain = chainOf(h, slug);
      const w = h.wallets[slug]!;
      const usdc = chain.token('USDC');
      await chain.sendToken('USDC', w.address, '100');
      const to = stranger();
      const amount = parseUnits('12.345678', usdc.decimals);
      const masterBefore = await chain.balanceOf('USDC', w.address);

      const body = { calls: [call(usdc.address, 'transfer', [to, amount.toString()])] };
      const res = await post(slug, 'write', body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const t = res.body.data;
      expect(t).toMatchObject({ type: 'CUSTOM_SMART_CONTRACT', status: 'PENDING', confirmed: false, senderAddress: w.address });
      expect(t.recipientAddress).toBe(usdc.address);
      const { method, parameters, abi } = body.calls[0]!;
      expect(JSON.parse(t.reason)).toEqual({ method, parameters, abi });
      const { rows } = await sql<{ purpose: string; nonce: string }>`
        SELECT purpose, nonce FROM outbound_txs WHERE owner_id = ${t.id}`.execute(h.database.db);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.purpose).toBe('contract');

      const done = await settled(slug, t.id);
      expect(done).toMatchObject({ status: 'SUCCESS', confirmed: true });
      const receipt = await chain.pub.getTransactionReceipt({ hash: done.hash as Hash });
      expect(receipt.status).toBe('success');
      expect(receipt.from.toLowerCase()).toBe(w.address.toLowerCase());
      expect(receipt.to!.toLowerCase()).toBe(usdc.address.toLowerCase());
      expect(done.blockNumber).toBe(Number(receipt.blockNumber));
      expect(done.blockHash).toBe(receipt.blockHash);
      expect(done.gasUsed).toBe(receipt.gasUsed.toString());
      expect(done.gasPrice).toBe(receipt.effectiveGasPrice.toString());
      expect(done.gasFee).toBe(formatUnits(receipt.gasUsed * receipt.effectiveGasPrice, 18));
      expect(done.fee).toBe(done.gasFee);

      expect(await chain.balanceOf('USDC', to)).toBe(amount);
      expect(await chain.balanceOf('USDC', w.address)).toBe(masterBefore - amount);
      const seen = await eventually(
        async () => events(slug, t.id),
        (e) => e.length === 1,
      );
      expect(seen[0]!.event).toBe('custom-smart-contract.success');
      expect(seen[0]!.data).toMatchObject({ status: 'SUCCESS', hash: done.hash });
    });
  }

  it('several calls: an array in call order, consecutive nonces, all mined', async () => {
    const chain = chainOf(h, 'devnet-eth');
    const w = h.wallets['devnet-eth']!;
    await chain.sendToken('USDC', w.address, '10');
    const [a, b] = [stranger(), stranger()];
    const usdc = chain.token('USDC').address;
    const res = await post('devnet-eth', 'write', { calls: [call(usdc, 'transfer', [a, '1000000']), call(usdc, 'approve', [b, 5])] });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
    const ids = res.body.data.map((t: { id: string }) => t.id);
    const { rows } = await sql<{ owner_id: string; nonce: string }>`
      SELECT owner_id, nonce FROM outbound_txs WHERE owner_id = ANY(${ids}::uuid[])`.execute(h.database.db);
    const nonce = (id: string) => BigInt(rows.find((r) => r.owner_id === id)!.nonce);
    expect(nonce(ids[1]) - nonce(ids[0])).toBe(1n);
    for (const id of ids) expect((await settled('devnet-eth', id)).status).toBe('SUCCESS');
    expect(await chain.balanceOf('USDC', a)).toBe(1_000_000n);
    expect(
      await chain.pub.readContract({ address: usdc as Address, abi: erc20Abi, functionName: 'allowance', args: [w.address as Address, b] }),
    ).toBe(5n);
  });

  it('a call that passes simulation but cannot run when its turn comes ends FAILED with custom-smart-contract.failed', async () => {
    const chain = chainOf(h, 'devnet-eth');
    const w = h.wallets['devnet-eth']!;
    const usdc = chain.token('USDC').address;
    // Two calls spending the same allowance of someone else's tokens: not the wallet's funds,
    // so no reservation stops the second (two full-balance transfers of the wallet's own
    // tokens would: see rules.test.ts). Each simulates against the current state; the second
    // finds the allowance used up once the first is mined.
    const approval = await chain.wallet.writeContract({
      address: usdc as Address,
      abi: erc20Abi,
      functionName: 'approve',
      args: [w.address as Address, 1_000_000n],
    });
    await chain.pub.waitForTransactionReceipt({ hash: approval, pollingInterval: 50 });
    const pull = () => call(usdc, 'transferFrom', [chain.faucet, stranger(), '1000000']);
    const res = await post('devnet-eth', 'write', { calls: [pull(), pull()] });
    expect(res.status).toBe(200);
    const [first, second] = res.body.data;
    expect((await settled('devnet-eth', first.id)).status).toBe('SUCCESS');
    const failed = await settled('devnet-eth', second.id);
    expect(failed.status).toBe('FAILED');
    // Depending on timing the pipeline either signed it before the first was mined (it is
    // mined and reverts on chain, the fee is paid) or saw the revert coming and voided it.
    if (failed.hash) {
      expect((await chain.pub.getTransactionReceipt({ hash: failed.hash })).status).toBe('reverted');
      expect(failed).toMatchObject({ confirmed: true, response: { outcome: 'reverted' } });
      expect(Number(failed.gasFee)).toBeGreaterThan(0);
    } else {
      expect(failed).toMatchObject({ confirmed: false, response: { outcome: 'replaced' } });
    }
    const seen = await eventually(
      async () => events('devnet-eth', second.id),
      (e) => e.length === 1,
    );
    expect(seen[0]!.event).toBe('custom-smart-contract.failed');
  });

  it('a reverting write is a 422 with the reason; nothing is written or broadcast', async () => {
    const chain = chainOf(h, 'devnet-eth');
    const w = h.wallets['devnet-eth']!;
    const before = await writtenRows(h);
    const nonce = await chain.pub.getTransactionCount({ address: w.address as Address, blockTag: 'pending' });
    const balance = await chain.balanceOf('USDC', w.address);
    const res = await post('devnet-eth', 'write', {
      calls: [call(chain.token('USDC').address, 'transfer', [stranger(), (balance + 1n).toString()])],
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('CONTRACT_REVERTED');
    expect(res.body.message).toContain(`ERC20InsufficientBalance(${w.address}, ${balance}, ${balance + 1n})`);
    expect(await writtenRows(h)).toEqual(before);
    expect(await chain.pub.getTransactionCount({ address: w.address as Address, blockTag: 'pending' })).toBe(nonce);
  });

  it('refuses view functions, bad input and foreign wallets without writing anything', async () => {
    const chain = chainOf(h, 'devnet-eth');
    const usdc = chain.token('USDC').address;
    const before = await writtenRows(h);
    const view = await post('devnet-eth', 'write', { calls: [call(usdc, 'balanceOf', [stranger()])] });
    expect(view.status).toBe(400);
    expect(view.body.details[0].field).toBe('calls.0.method');
    expect((await post('devnet-eth', 'write', { calls: [call(usdc, 'transfer', [stranger(), '1.5'])] })).status).toBe(400);
    expect(
      (await post('devnet-eth', 'write', { calls: [call(usdc, 'transfer', [stranger(), '1'], [{ type: 'function', name: 'transfer' }])] }))
        .status,
    ).toBe(400);
    expect(
      (await post('devnet-eth', 'write', { calls: [call(usdc, 'transfer', [stranger(), '1'])] }, h.wallets['devnet-bsc']!.apiKey)).status,
    ).toBe(404);
    const other = await h.services.businesses.create('Other');
    expect((await post('devnet-eth', 'write', { calls: [call(usdc, 'transfer', [stranger(), '1'])] }, other.apiKey)).status).toBe(404);
    expect((await post('devnet-eth', 'network-fee', { calls: [call(usdc, 'transfer', [stranger(), '1'])] }, other.apiKey)).status).toBe(
      404,
    );
    expect(await writtenRows(h)).toEqual(before);
  });

  it('refuses writes of a deactivated wallet (422) but still estimates', async () => {
    const w = h.wallets['devnet-bsc']!;
    const usdc = chainOf(h, 'devnet-bsc').token('USDC').address;
    const body = { calls: [call(usdc, 'approve', [stranger(), '1'])] };
    expect((await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { isActive: false } })).status).toBe(200);
    const res = await post('devnet-bsc', 'write', body);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('WALLET_INACTIVE');
    expect((await post('devnet-bsc', 'network-fee', body)).status).toBe(200);
    expect((await h.api('PATCH', `/v1/wallets/${w.id}`, { key: h.businessKey, body: { isActive: true } })).status).toBe(200);
  });
});

describe('network fee', () => {
  for (const slug of ['devnet-eth', 'devnet-bsc']) {
    it(`on ${slug}: the balance is the chain's, the fee is gas x max fee`, async () => {
      const chain = chainOf(h, slug);
      const w = h.wallets[slug]!;
      const usdc = chain.token('USDC').address;
      const spender = stranger();
      const body = { calls: [call(usdc, 'approve', [spender, '1'])] };
      const res = await post(slug, 'network-fee', body);
      expect(res.status).toBe(200);
      const balance = await chain.pub.getBalance({ address: w.address as Address });
      expect(res.body.data.balance).toBe(formatUnits(balance, 18));
      const fee = parseUnits(res.body.data.fee, 18);
      const data = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, 1n] });
      const gas = await chain.pub.estimateGas({ account: w.address as Address, to: usdc as Address, data });
      const { maxFeePerGas } = await chain.pub.estimateFeesPerGas();
      expect(fee).toBeGreaterThan(0n);
      expect(fee).toBeLessThan(balance);
      // The same gas; the fee cap may move by a block's base-fee change in between.
      expect(fee % gas).toBe(0n);
      expect(fee / gas).toBeGreaterThan((maxFeePerGas * 8n) / 10n);
      expect(fee / gas).toBeLessThan((maxFeePerGas * 12n) / 10n);

      const two = await post(slug, 'network-fee', { calls: [body.calls[0], body.calls[0]] });
      expect(two.status).toBe(200);
      expect(parseUnits(two.body.data.fee, 18)).toBeGreaterThan(fee);
    });
  }

  it('a reverting call is a 422, as for writes', async () => {
    const chain = chainOf(h, 'devnet-eth');
    const res = await post('devnet-eth', 'network-fee', {
      calls: [call(chain.token('USDC').address, 'transfer', [stranger(), (2n ** 255n).toString()])],
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('CONTRACT_REVERTED');
  });
});
