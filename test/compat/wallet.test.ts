/**
 * Drop-in compatibility, wallet-level calls (issue 12, items 4, 5, 10, 11 and 12), made as a
 * client written for the described service makes them: `GET .../balance` without `assetId`,
 * the deposit finder by `blockNumber` and as `deposit-finder`, the sweep, resend and
 * webhook-log spellings, the wallet with `assets` and `analytics`, resend answering the
 * Transaction, and the `x-blockradar-signature` header. `/openapi.json` lists every alias
 * (deprecated) and the new fields.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import { formatUnits, type Address } from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { WebhookTargetPolicy } from '../../src/lib/ssrf.js';
import { signatureHeaders } from '../../src/lib/webhook-signature.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { WebhookSender } from '../../src/modules/webhooks/sender.js';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually, recordDeposit } from '../support/fixtures.js';

let h: Harness;
let receiver: Receiver;
let eth: TestChain;
let indexer: ChainIndexer;

beforeAll(async () => {
  h = await startHarness({
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
  });
  receiver = await startReceiver();
  eth = chainOf(h, 'devnet-eth');
  expect((await h.api('PATCH', `/v1/wallets/${w().id}`, { body: { webhookUrl: receiver.url } })).status).toBe(200);
  indexer = h.services.deposits.indexer(h.services.catalogue.findChain('devnet-eth', 'testnet')!);
  await drain(); // the indexer's cursor starts at the head
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
});

const w = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${w().id}`;
async function drain() {
  for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') return;
}
async function child(body: Record<string, unknown> = {}) {
  const res = await h.api('POST', `${base()}/addresses`, { body });
  expect(res.status).toBe(200);
  return res.body.data as { id: string; address: string };
}
async function depositsOf(hash: string) {
  return h.database.db
    .selectFrom('transactions')
    .select(['id', 'status', 'asset_swept'])
    .where('type', '=', 'DEPOSIT')
    .where('hash', '=', hash)
    .execute();
}
const native = () => h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.is_native)!;

describe('item 4: optional where clients omit them', () => {
  it("GET .../balance without assetId answers the native coin's entry of the master address", async () => {
    const res = await h.api('GET', `${base()}/balance`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ statusCode: 200, message: expect.any(String) });
    expect(Array.isArray(res.body.data)).toBe(false);
    const onChain = await eth.pub.getBalance({ address: w().address as Address });
    expect(res.body.data).toMatchObject({
      // The devnet wallet has no native wallet asset: the catalogue coin, shaped as a wallet asset.
      asset: { id: native().id, isActive: false, asset: { id: native().id, isNative: true, symbol: 'ETH' } },
      balance: formatUnits(onChain, 18),
    });
    expect(Object.keys(res.body.data).sort()).toEqual(['asset', 'balance', 'convertedBalance']);
    // With assetId, as before.
    const usdc = h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDC')!;
    const one = await h.api('GET', `${base()}/balance?assetId=${usdc.id}`);
    expect(one.status).toBe(200);
    expect(one.body.data.asset.asset.symbol).toBe('USDC');
    // Enabled on the wallet, the coin answers as its wallet asset.
    const enabled = await h.api('PATCH', `${base()}/assets/${native().id}`, { body: { isActive: true } });
    expect(enabled.status).toBe(200);
    const again = await h.api('GET', `${base()}/balance`);
    expect(again.body.data.asset).toMatchObject({ id: enabled.body.data.id, isActive: true });
    expect((await h.api('PATCH', `${base()}/assets/${native().id}`, { body: { isActive: false } })).status).toBe(200);
  });

  it('GET .../addresses/{addressId}/balance without assetId reads the child address', async () => {
    const a = await child();
    await eth.sendNative(a.address, '0.25');
    const res = await h.api('GET', `${base()}/addresses/${a.id}/balance`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ asset: { asset: { isNative: true } }, balance: '0.25' });
    // Still strict: unknown query parameters and malformed ids are 400s.
    expect((await h.api('GET', `${base()}/addresses/${a.id}/balance?asset_id=${native().id}`)).status).toBe(400);
    expect((await h.api('GET', `${base()}/balance?assetId=nope`)).status).toBe(400);
    expect((await h.api('GET', `${base()}/balance`, { key: h.businessKey })).status).toBe(200);
  });

  it('POST .../rescan/blocks { blockNumber } records the deposits of that block; deposit-finder is the same call', async () => {
    const a = await child();
    const receipt = await eth.sendToken('USDC', a.address, '7.5');
    const blockNumber = Number(receipt.blockNumber);
    expect(await depositsOf(receipt.transactionHash)).toHaveLength(0);

    const res = await h.api('POST', `${base()}/rescan/blocks`, { body: { blockNumber } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({
      type: 'DEPOSIT',
      hash: receipt.transactionHash,
      amount: '7.5',
      recipientAddress: a.address,
      address: { id: a.id },
    });
    // Idempotent, under either spelling and either form of the number.
    const alias = await h.api('POST', `${base()}/deposit-finder`, { body: { blockNumber: String(blockNumber) } });
    expect(alias.status).toBe(200);
    expect(alias.body.data.map((t: { id: string }) => t.id)).toEqual([res.body.data[0].id]);
    const byHash = await h.api('POST', `${base()}/deposit-finder`, { body: { transactionHash: receipt.transactionHash } });
    expect(byHash.body.data.map((t: { id: string }) => t.id)).toEqual([res.body.data[0].id]);
    expect(await depositsOf(receipt.transactionHash)).toHaveLength(1);

    // A block without deposits to the wallet answers an empty list; one beyond the head is a 422.
    const empty = await h.api('POST', `${base()}/rescan/blocks`, { body: { blockNumber: 0 } });
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual([]);
    const ahead = await h.api('POST', `${base()}/rescan/blocks`, { body: { blockNumber: blockNumber + 1000 } });
    expect(ahead.status).toBe(422);
    expect(ahead.body.error).toBe('BLOCK_NOT_FOUND');
    await drain();
  });

  it('a body with neither field (or both) is a 400 naming both; bad values stay 400s', async () => {
    for (const p of ['rescan/blocks', 'deposit-finder']) {
      for (const body of [{}, { transactionHash: `0x${'ab'.repeat(32)}`, blockNumber: 1 }]) {
        const res = await h.api('POST', `${base()}/${p}`, { body });
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('VALIDATION_ERROR');
        expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['blockNumber', 'transactionHash']);
      }
      for (const body of [{ blockNumber: -1 }, { blockNumber: 1.5 }, { blockNumber: 'latest' }, { blockNumber: 1, extra: true }]) {
        expect((await h.api('POST', `${base()}/${p}`, { body })).status, JSON.stringify(body)).toBe(400);
      }
    }
  });
});

describe('item 5: the sweep spellings', () => {
  async function confirmedDeposit(amount: string) {
    const a = await child({ disableAutoSweep: true });
    const receipt = await eth.sendToken('USDC', a.address, amount);
    await drain();
    const [d] = await depositsOf(receipt.transactionHash);
    expect(d).toMatchObject({ status: 'SUCCESS', asset_swept: false });
    return { address: a, id: d!.id };
  }
  async function swept(id: string) {
    return eventually(
      () => h.api('GET', `${base()}/transactions/${id}`),
      (r) => r.body.data.assetSwept === true,
      30_000,
    );
  }

  it('POST .../sweep/assets { transactionId } sweeps the deposit', async () => {
    const d = await confirmedDeposit('4');
    const res = await h.api('POST', `${base()}/sweep/assets`, { body: { transactionId: d.id } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ id: d.id, type: 'DEPOSIT' });
    expect((await swept(d.id)).body.data).toMatchObject({ assetSweptAmount: '4', assetSweptRecipientAddress: w().address });
    expect(await eth.balanceOf('USDC', d.address.address)).toBe(0n);
    // Already swept: the same 409 as the canonical path.
    const again = await h.api('POST', `${base()}/sweep/assets`, { body: { transactionId: d.id } });
    expect(again.status).toBe(409);
  });

  it('POST .../transactions/{id}/sweep takes the transaction from the path', async () => {
    const d = await confirmedDeposit('2.5');
    const res = await h.api('POST', `${base()}/transactions/${d.id}/sweep`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ id: d.id, type: 'DEPOSIT' });
    await swept(d.id);
    expect(await eth.balanceOf('USDC', d.address.address)).toBe(0n);
    expect((await h.api('POST', `${base()}/transactions/${d.id}/sweep`, { body: {} })).status).toBe(409);
    expect((await h.api('POST', `${base()}/transactions/not-a-uuid/sweep`)).status).toBe(400);
    expect((await h.api('POST', `${base()}/transactions/${d.id}/sweep`, { body: { transactionId: d.id } })).status).toBe(400);
    const other = await h.services.businesses.create('Other tenant');
    expect((await h.api('POST', `${base()}/transactions/${d.id}/sweep`, { key: other.apiKey })).status).toBe(404);
  });
});

describe('item 5: cancel and retry with the transaction in the path', () => {
  it('POST .../transactions/{id}/cancel cancels a withdrawal not yet broadcast; /retry answers as the body form', async () => {
    const usdc = h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDC')!;
    await eth.sendToken('USDC', w().address, '1');
    await h.stopWorker();
    try {
      const sent = await h.api('POST', `${base()}/withdraw`, {
        body: { assetId: usdc.id, address: '0x000000000000000000000000000000000000bEEF', amount: '1' },
      });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const id = sent.body.data.id as string;
      // A body on the path form is refused; nothing is cancelled by it.
      expect((await h.api('POST', `${base()}/transactions/${id}/cancel`, { body: { id } })).status).toBe(400);
      const res = await h.api('POST', `${base()}/transactions/${id}/cancel`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ statusCode: 200, message: 'Transaction cancelled successfully' });
      expect(res.body.data).toMatchObject({ id, type: 'WITHDRAW', status: 'CANCELLED' });
      // The same refusals as the body forms.
      const again = await h.api('POST', `${base()}/transactions/${id}/cancel`, { body: {} });
      const viaBody = await h.api('POST', `${base()}/transactions/cancel`, { body: { id } });
      expect([again.status, again.body.error]).toEqual([viaBody.status, viaBody.body.error]);
      expect(again.status).toBe(409);
      const retry = await h.api('POST', `${base()}/transactions/${id}/retry`);
      const retryViaBody = await h.api('POST', `${base()}/transactions/retry`, { body: { id } });
      expect(retry.status).toBe(409);
      expect(retry.body.error).toBe(retryViaBody.body.error);
      const other = await h.services.businesses.create('Third tenant');
      expect((await h.api('POST', `${base()}/transactions/${id}/retry`, { key: other.apiKey })).status).toBe(404);
      expect((await h.api('POST', `${base()}/transactions/not-a-uuid/cancel`)).status).toBe(400);
    } finally {
      await h.startWorker();
    }
  });
});

describe('items 5 and 11: resend and the webhook log', () => {
  it('POST .../transactions/{id}/resend-webhook answers the Transaction; the new delivery is in the log', async () => {
    const tx = await recordDeposit(h, 'devnet-eth', { event: 'deposit.success' });
    await eventually(
      () => h.api('GET', `${base()}/transactions/${tx.id}/webhooks`),
      (r) => r.body.data.length === 1,
    );
    for (const call of [
      () => h.api('POST', `${base()}/transactions/${tx.id}/resend-webhook`),
      () => h.api('POST', `${base()}/transactions/webhooks/resend`, { body: { id: tx.id } }),
    ]) {
      const res = await call();
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ statusCode: 200, message: expect.any(String) });
      // data is the Transaction, as the described service documents; the delivery beside it.
      expect(res.body.data).toMatchObject({ id: tx.id, reference: tx.reference, type: 'DEPOSIT', status: 'SUCCESS' });
      expect(res.body.webhookLog).toMatchObject({ event: 'deposit.success', transactionId: tx.id, url: receiver.url });
    }
    const log = await eventually(
      () => h.api('GET', `${base()}/transactions/${tx.id}/webhooks`),
      (r) => r.body.data.length === 3 && r.body.data.every((e: { status: string }) => e.status === 'success'),
    );
    expect(new Set(log.body.data.map((e: { payload: unknown }) => JSON.stringify(e.payload))).size).toBe(1);
    const other = await h.services.businesses.create('Another tenant');
    expect((await h.api('POST', `${base()}/transactions/${tx.id}/resend-webhook`, { key: other.apiKey })).status).toBe(404);
    expect((await h.api('POST', `${base()}/transactions/${tx.id}/resend-webhook`, { body: { id: tx.id } })).status).toBe(400);
  });

  it('GET .../webhook-logs is the wallet log, paginated like GET .../webhooks', async () => {
    const canonical = await h.api('GET', `${base()}/webhooks?page=1&limit=5`);
    expect(canonical.status).toBe(200);
    for (const alias of ['webhook-logs']) {
      const res = await h.api('GET', `${base()}/${alias}?page=1&limit=5`);
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual(canonical.body.meta);
      expect(res.body.data.map((e: { id: string }) => e.id)).toEqual(canonical.body.data.map((e: { id: string }) => e.id));
      expect((await h.api('GET', `${base()}/${alias}?limit=500`)).status).toBe(400);
    }
  });
});

describe('item 10: the wallet with assets and analytics', () => {
  it('GET and PATCH /v1/wallets/{walletId} include assets (the wallet asset list) and analytics', async () => {
    await h.api('POST', `${base()}/addresses/whitelist`, { body: { address: '0x000000000000000000000000000000000000dEaD' } });
    await recordDeposit(h, 'devnet-eth');
    const res = await h.api('GET', base());
    expect(res.status).toBe(200);
    const wallet = res.body.data;
    expect(wallet).toMatchObject({ id: w().id, address: w().address, configurations: expect.any(Object) });
    const assets = await h.api('GET', `${base()}/assets`);
    expect(wallet.assets).toEqual(assets.body.data);
    const list = await h.api('GET', `${base()}/addresses?limit=1`);
    const { transactions, currentBalance, numberOfAssets, unsweptBalance, ...addressCounts } = wallet.analytics;
    expect(addressCounts).toEqual(list.body.analytics);
    // Issue 27: the balance figures (test/compat/wallet-analytics.test.ts checks their values).
    expect(numberOfAssets).toBe(wallet.assets.filter((a: { isActive: boolean }) => a.isActive).length);
    expect(typeof currentBalance).toBe('string');
    expect(unsweptBalance).toBe('0');
    expect(addressCounts.externalAddressesCount).toBe(1);

    const { rows } = await sql<{ type: string; status: string; n: number }>`
      SELECT type, status, count(*)::int AS n FROM transactions WHERE wallet_id = ${w().id} GROUP BY type, status`.execute(h.database.db);
    expect(rows.length).toBeGreaterThan(0);
    expect(transactions.total).toBe(rows.reduce((s, r) => s + r.n, 0));
    for (const r of rows) expect(transactions.byTypeAndStatus[r.type][r.status]).toBe(r.n);
    expect(transactions.byType.DEPOSIT).toBe(rows.filter((r) => r.type === 'DEPOSIT').reduce((s, r) => s + r.n, 0));
    // Every known status and type is present, zero when none (the withdrawal cancelled above is one).
    const sum = (f: (r: (typeof rows)[number]) => boolean) => rows.filter(f).reduce((n, r) => n + r.n, 0);
    for (const status of ['PENDING', 'SUCCESS', 'FAILED', 'CANCELLED'])
      expect(transactions.byStatus[status]).toBe(sum((r) => r.status === status));
    for (const type of ['DEPOSIT', 'WITHDRAW', 'SALVAGE', 'SIGNED', 'CUSTOM_SMART_CONTRACT', 'SWAP', 'AUTO_SETTLEMENT'])
      expect(transactions.byType[type]).toBe(sum((r) => r.type === type));
    expect(transactions.byType.SALVAGE).toBe(0);
    expect(transactions.byStatus.FAILED).toBe(0);

    const patched = await h.api('PATCH', base(), { body: { description: 'with analytics' } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ description: 'with analytics', assets: wallet.assets, analytics: wallet.analytics });
    // The list of wallets stays the plain Wallet.
    const all = await h.api('GET', '/v1/wallets', { key: h.businessKey });
    expect(all.body.data[0].analytics).toBeUndefined();
  });
});

describe('item 12: x-blockradar-signature', () => {
  it('every delivery carries the HMAC-SHA512 under both names; a receiver reading either verifies it', async () => {
    const tx = await recordDeposit(h, 'devnet-eth');
    await eventually(
      async () => receiver.requests.filter((r) => r.body.includes(tx.id)),
      (rs) => rs.length > 0,
    );
    const req = receiver.requests.find((r) => r.body.includes(tx.id))!;
    const expected = createHmac('sha512', w().apiKey).update(req.body).digest('hex');
    expect(req.headers['x-service-signature']).toBe(expected);
    expect(req.headers['x-blockradar-signature']).toBe(expected);
    const { 'x-service-signature': _spec, ...compatOnly } = req.headers;
    const verified = verifyWebhook<{ id: string }>({ body: req.body, headers: compatOnly, apiKey: w().apiKey, replay: false });
    expect(verified).toMatchObject({ event: 'deposit.success', data: { id: tx.id } });
  });

  it('WEBHOOK_COMPAT_SIGNATURE_HEADER=false (compatSignatureHeader) sends x-service-signature alone', async () => {
    const localhost = (_h: string, cb: (e: null, a: { address: string; family: number }[]) => void) =>
      cb(null, [{ address: '127.0.0.1', family: 4 }]);
    const sender = new WebhookSender(new WebhookTargetPolicy({ allowPrivate: true, resolveAll: localhost as never }), {
      compatSignatureHeader: false,
    });
    try {
      const body = JSON.stringify({ event: 'webhook.test', data: { id: 'compat-off' } });
      const before = receiver.requests.length;
      const result = await sender.send(receiver.url, body, signatureHeaders(body, { id: 'msg_off', timestamp: 1, apiKey: 'k' }), 'testnet');
      expect(result.ok).toBe(true);
      const req = receiver.requests.slice(before).find((r) => r.body === body)!;
      expect(req.headers['x-service-signature']).toBe(createHmac('sha512', 'k').update(body).digest('hex'));
      expect(req.headers['x-blockradar-signature']).toBeUndefined();
    } finally {
      sender.close();
    }
  });
});

describe('/openapi.json', () => {
  it('lists every alias, deprecated and pointing at its canonical route, and the new fields', async () => {
    const spec = await fetch(`${h.baseUrl}/openapi.json`).then((r) => r.json());
    const op = (p: string, m: string) => spec.paths[p]?.[m];
    const aliases: [string, string, string][] = [
      ['/v1/wallets/{walletId}/deposit-finder', 'post', '/rescan/blocks'],
      ['/v1/wallets/{walletId}/sweep/assets', 'post', '/transactions/sweep/assets'],
      ['/v1/wallets/{walletId}/transactions/{transactionsId}/sweep', 'post', '/transactions/sweep/assets'],
      ['/v1/wallets/{walletId}/transactions/{transactionsId}/resend-webhook', 'post', '/transactions/webhooks/resend'],
      ['/v1/wallets/{walletId}/webhook-logs', 'get', '/webhooks'],
      ['/v1/wallets/{walletId}/transactions/{transactionsId}/cancel', 'post', '/transactions/cancel'],
      ['/v1/wallets/{walletId}/transactions/{transactionsId}/retry', 'post', '/transactions/retry'],
    ];
    for (const [p, m, canonical] of aliases) {
      expect(op(p, m), p).toBeDefined();
      expect(op(p, m).deprecated, p).toBe(true);
      expect(op(p, m).description, p).toContain(canonical);
    }
    const canonicals: [string, string][] = [
      ['/v1/wallets/{walletId}/rescan/blocks', 'post'],
      ['/v1/wallets/{walletId}/transactions/sweep/assets', 'post'],
      ['/v1/wallets/{walletId}/transactions/webhooks/resend', 'post'],
      ['/v1/wallets/{walletId}/webhooks', 'get'],
      ['/v1/wallets/{walletId}/transactions/cancel', 'post'],
      ['/v1/wallets/{walletId}/transactions/retry', 'post'],
    ];
    for (const [p, m] of canonicals) expect(op(p, m).deprecated, p).toBeUndefined();

    const body = (p: string, m: string) => op(p, m).requestBody.content['application/json'].schema.properties;
    expect(Object.keys(body('/v1/wallets/{walletId}/rescan/blocks', 'post'))).toEqual(['transactionHash', 'blockNumber']);
    expect(body('/v1/wallets/{walletId}/addresses', 'post')).toHaveProperty('showPrivateKey');
    expect(Object.keys(body('/v1/wallets/{walletId}/addresses/{addressId}', 'patch'))).toEqual(
      expect.arrayContaining(['disableAutoSweep', 'enableGaslessWithdraw', 'showPrivateKey', 'isActive', 'configurations']),
    );
    expect(Object.keys(body('/v1/wallets/{walletId}/addresses/whitelist', 'post'))).toEqual(
      expect.arrayContaining(['disableAutoSweep', 'enableGaslessWithdraw', 'privateKey', 'showPrivateKey']),
    );
    const balance = op('/v1/wallets/{walletId}/balance', 'get').parameters.find((p: { name: string }) => p.name === 'assetId');
    expect(balance.required).toBeFalsy();
    const wallet = op('/v1/wallets/{walletId}', 'get').responses['200'].content['application/json'].schema.properties.data.properties;
    expect(wallet).toHaveProperty('assets');
    expect(wallet.analytics.properties).toHaveProperty('transactions');
    const resend = op('/v1/wallets/{walletId}/transactions/webhooks/resend', 'post').responses['200'].content['application/json'].schema;
    expect(resend.properties).toHaveProperty('webhookLog');
  });
});
