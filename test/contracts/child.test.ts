import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatUnits, parseTransaction, parseUnits, type Address, type Hex } from 'viem';
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
  h = await startHarness({ worker: true, services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } } });
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

async function fundedChild(slug: string, usdc = '50', native = '1') {
  const w = h.wallets[slug]!;
  const res = await h.api('POST', `/v1/wallets/${w.id}/addresses`, { key: w.apiKey, body: { disableAutoSweep: true } });
  const child = res.body.data as { id: string; address: string };
  const chain = chainOf(h, slug);
  if (usdc !== '0') await chain.sendToken('USDC', child.address, usdc);
  if (native !== '0') await chain.sendNative(child.address, native);
  return child;
}

function post(slug: string, addressId: string, action: string, body: unknown, key?: string) {
  const w = h.wallets[slug]!;
  return h.api('POST', `/v1/wallets/${w.id}/addresses/${addressId}/contracts/${action}`, { key: key ?? w.apiKey, body });
}

async function transaction(slug: string, id: string) {
  const w = h.wallets[slug]!;
  return (await h.api('GET', `/v1/wallets/${w.id}/transactions/${id}`, { key: w.apiKey })).body.data;
}

function eventsOf(slug: string, id: string) {
  return receiver.requests
    .filter((r) => r.body.includes(id))
    .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey: h.wallets[slug]!.apiKey, replay: false }))
    .filter((e) => e.data.id === id);
}

describe('contract calls from a child address', () => {
  for (const slug of ['devnet-eth', 'devnet-bsc']) {
    it(`write on ${slug}: the child sends, pays exactly the recorded fee, and the token moves`, async () => {
      const chain = chainOf(h, slug);
      const child = await fundedChild(slug);
      const usdc = chain.token('USDC');
      const to = stranger();
      const amount = parseUnits('7.5', usdc.decimals);
      const nativeBefore = await chain.pub.getBalance({ address: child.address as Address });

      const res = await post(slug, child.id, 'write', { calls: [call(usdc.address, 'transfer', [to, amount.toString()])] });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toMatchObject({ type: 'CUSTOM_SMART_CONTRACT', status: 'PENDING', senderAddress: child.address });
      expect(res.body.data.address.id).toBe(child.id);
      const done = await eventually(
        () => transaction(slug, res.body.data.id),
        (t) => t.status !== 'PENDING',
        20_000,
      );
      expect(done.status).toBe('SUCCESS');
      expect(await chain.balanceOf('USDC', to)).toBe(amount);
      expect(await chain.balanceOf('USDC', child.address)).toBe(parseUnits('50', usdc.decimals) - amount);
      const nativeAfter = await chain.pub.getBalance({ address: child.address as Address });
      expect(formatUnits(nativeBefore - nativeAfter, 18)).toBe(done.gasFee);
      await eventually(
        async () => eventsOf(slug, done.id).map((e) => e.event),
        (e) => e.includes('custom-smart-contract.success'),
      );
    });

    it(`write/sign on ${slug}: a SIGNED raw transaction that mines when the client broadcasts it`, async () => {
      const chain = chainOf(h, slug);
      const child = await fundedChild(slug);
      const usdc = chain.token('USDC');
      const to = stranger();
      const before = await writtenRows(h);
      const res = await post(slug, child.id, 'write/sign', { calls: [call(usdc.address, 'transfer', [to, '1000'])] });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const t = res.body.data;
      expect(t).toMatchObject({ type: 'SIGNED', status: 'SUCCESS', confirmed: true, hash: null, senderAddress: child.address });
      expect(typeof t.signedTransaction).toBe('string');
      // Only the SIGNED row: nothing queued for broadcast.
      expect(await writtenRows(h)).toEqual({ transactions: before.transactions + 1, outbound: before.outbound });

      const parsed = parseTransaction(t.signedTransaction as Hex);
      expect(parsed).toMatchObject({ type: 'eip1559', chainId: chain.config.chainId, nonce: 0, to: usdc.address.toLowerCase() });
      expect(t.response.hash).toMatch(/^0x[0-9a-f]{64}$/);
      const receipt = await chain.sendRaw(t.signedTransaction as Hex);
      expect(receipt.status).toBe('success');
      expect(receipt.transactionHash).toBe(t.response.hash);
      expect(receipt.from.toLowerCase()).toBe(child.address.toLowerCase());
      expect(await chain.balanceOf('USDC', to)).toBe(1000n);
      await eventually(
        async () => eventsOf(slug, t.id).map((e) => e.event),
        (e) => e.includes('signed.success'),
      );
    });
  }

  it("sign-only takes the nonce after the service's own unsent ones", async () => {
    const chain = chainOf(h, 'devnet-eth');
    const child = await fundedChild('devnet-eth');
    const usdc = chain.token('USDC').address;
    await h.stopWorker();
    try {
      const sent = await post('devnet-eth', child.id, 'write', { calls: [call(usdc, 'transfer', [stranger(), '1'])] });
      expect(sent.status).toBe(200);
      // Nothing broadcast yet: the chain's pending count is 0, our counter has handed out 0.
      expect(await chain.pub.getTransactionCount({ address: child.address as Address, blockTag: 'pending' })).toBe(0);
      const signed = await post('devnet-eth', child.id, 'write/sign', { calls: [call(usdc, 'transfer', [stranger(), '2'])] });
      expect(signed.status).toBe(200);
      expect(parseTransaction(signed.body.data.signedTransaction as Hex).nonce).toBe(1);

      // The hash is known from the moment the pipeline signs, before anything is mined.
      expect(sent.body.data.hash).toBeNull();
      const [outbound] = await h.services.outbound.ofOwner(sent.body.data.id);
      await h.services.outbound.signAndStore(outbound!.id);
      const signedRow = (await h.services.outbound.get(outbound!.id))!;
      expect(await transaction('devnet-eth', sent.body.data.id)).toMatchObject({ status: 'PENDING', hash: signedRow.hash });

      await h.startWorker();
      const done = await eventually(
        () => transaction('devnet-eth', sent.body.data.id),
        (t) => t.status === 'SUCCESS',
        20_000,
      );
      expect(done.hash).toBe(signedRow.hash);
      expect((await chain.sendRaw(signed.body.data.signedTransaction as Hex)).status).toBe('success');
    } finally {
      await h.startWorker();
    }
  });

  it('network fee: the child balance and a positive fee, also with no coin at all', async () => {
    const chain = chainOf(h, 'devnet-eth');
    const child = await fundedChild('devnet-eth', '5', '0.25');
    const body = { calls: [call(chain.token('USDC').address, 'transfer', [stranger(), '1'])] };
    const res = await post('devnet-eth', child.id, 'network-fee', body);
    expect(res.status).toBe(200);
    expect(res.body.data.balance).toBe('0.25');
    expect(parseUnits(res.body.data.fee, 18)).toBeGreaterThan(0n);
    const broke = await fundedChild('devnet-eth', '5', '0');
    const fee = await post('devnet-eth', broke.id, 'network-fee', body);
    expect(fee.status).toBe(200);
    expect(fee.body.data.balance).toBe('0');
    expect(parseUnits(fee.body.data.fee, 18)).toBeGreaterThan(0n);
  });

  it('without coin for gas, write and write/sign are 422 and write nothing', async () => {
    const chain = chainOf(h, 'devnet-eth');
    const broke = await fundedChild('devnet-eth', '5', '0');
    const before = await writtenRows(h);
    const body = { calls: [call(chain.token('USDC').address, 'transfer', [stranger(), '1'])] };
    for (const action of ['write', 'write/sign']) {
      const res = await post('devnet-eth', broke.id, action, body);
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('INSUFFICIENT_FUNDS_FOR_GAS');
    }
    expect(await writtenRows(h)).toEqual(before);
  });

  it('a reverting write/sign is a 422 and signs nothing', async () => {
    const chain = chainOf(h, 'devnet-eth');
    const child = await fundedChild('devnet-eth', '1');
    const before = await writtenRows(h);
    const res = await post('devnet-eth', child.id, 'write/sign', {
      calls: [call(chain.token('USDC').address, 'transfer', [stranger(), '1000001'])],
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain(`ERC20InsufficientBalance(${child.address}, 1000000, 1000001)`);
    expect(await writtenRows(h)).toEqual(before);
  });

  it('an external address can read and estimate but not write or sign', async () => {
    const chain = chainOf(h, 'devnet-eth');
    const w = h.wallets['devnet-eth']!;
    const external = (await h.api('POST', `/v1/wallets/${w.id}/addresses/whitelist`, { key: w.apiKey, body: { address: stranger() } })).body
      .data;
    const body = { calls: [call(chain.token('USDC').address, 'approve', [stranger(), '1'])] };
    expect((await post('devnet-eth', external.id, 'network-fee', body)).status).toBe(200);
    for (const action of ['write', 'write/sign']) {
      const res = await post('devnet-eth', external.id, action, body);
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('NO_PRIVATE_KEY');
    }
  });

  it("tenancy: another wallet's address, another business, bad ids; nothing written", async () => {
    const chain = chainOf(h, 'devnet-eth');
    const child = await fundedChild('devnet-eth', '0', '0');
    const before = await writtenRows(h);
    const body = { calls: [call(chain.token('USDC').address, 'approve', [stranger(), '1'])] };
    const bsc = h.wallets['devnet-bsc']!;
    const other = await h.services.businesses.create('Other');
    for (const action of ['read', 'write', 'network-fee', 'write/sign']) {
      expect((await post('devnet-eth', child.id, action, body, bsc.apiKey)).status).toBe(404);
      expect((await post('devnet-eth', child.id, action, body, other.apiKey)).status).toBe(404);
      const crossed = await h.api('POST', `/v1/wallets/${bsc.id}/addresses/${child.id}/contracts/${action}`, { key: h.businessKey, body });
      expect(crossed.status).toBe(404);
      expect((await post('devnet-eth', '00000000-0000-4000-8000-000000000000', action, body)).status).toBe(404);
    }
    expect(await writtenRows(h)).toEqual(before);
  });
});
