/**
 * The SDK against the real service (embedded PostgreSQL, anvil devnets, the worker): one
 * test per resource group, a withdrawal followed to withdraw.success through the event
 * stream, and the service's errors as typed ApiErrors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc20Abi, type Address } from 'viem';
import { ApiError, ConnectionError, WalletClient, isApiError, type WalletEvent } from '../../packages/sdk/src/index.js';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { randomAddress } from '../withdrawals/world.js';
import { eventually } from '../support/fixtures.js';
import { setDevnetSanctioned } from '../../src/devnet/sanctions.js';

let h: Harness;
let w: TestWallet;
let chain: TestChain;
let client: WalletClient;
let business: WalletClient;
let receiver: Receiver;
let usdc: string;

const expectApiError = async (p: Promise<unknown>, status: number, code: string) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, `expected ${code}`).toBeInstanceOf(ApiError);
  expect(err).toMatchObject({ status, code });
  return err as ApiError;
};

beforeAll(async () => {
  h = await startHarness({ worker: true, services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } } });
  w = h.wallets['devnet-eth']!;
  chain = chainOf(h, 'devnet-eth');
  client = new WalletClient({ baseUrl: h.baseUrl, apiKey: w.apiKey });
  business = new WalletClient({ baseUrl: `${h.baseUrl}/`, apiKey: h.businessKey });
  receiver = await startReceiver();
  usdc = (await client.assets.list(w.id)).find((a) => a.asset.symbol === 'USDC')!.asset.id;
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
});

describe('resource groups', () => {
  it('blockchains and assets: the catalogue, rates, and the wallet assets', async () => {
    const chains = await client.blockchains.list();
    expect(chains.map((c) => c.slug)).toContain('devnet-eth');
    const first = await client.assets.catalogue({ limit: 1 });
    expect(first.data).toHaveLength(1);
    expect(first.meta.totalItems).toBeGreaterThan(1);
    // for await walks every page.
    const all = await client.assets.catalogue({ limit: 1 }).toArray();
    expect(all).toHaveLength(first.meta.totalItems);
    expect(new Set(all.map((a) => a.id)).size).toBe(all.length);
    expect(await client.assets.rates({ assets: 'USDC' })).toBeDefined();
    const mine = await client.assets.list(w.id);
    const usdt = mine.find((a) => a.asset.symbol === 'USDT')!;
    expect((await client.assets.update(w.id, usdt.id, { isActive: false })).isActive).toBe(false);
    expect((await client.assets.update(w.id, usdt.id, { isActive: true })).isActive).toBe(true);
    const native = all.find((a) => a.symbol === 'ETH' && a.blockchain?.slug === 'devnet-eth');
    expect(native).toBeDefined();
    const added = await client.assets.add(w.id, { assetId: native!.id });
    expect(added.asset.id).toBe(native!.id);
    await client.assets.remove(w.id, added.id);
  });

  it('wallets: create, list, get, update, regenerate the key', async () => {
    const created = await business.wallets.create({ blockchain: 'devnet-bsc', network: 'testnet', name: 'sdk wallet' });
    expect(created.apiKey).toMatch(/^sk_test_/);
    const listed: string[] = [];
    for await (const wallet of business.wallets.list({ limit: 1 })) listed.push(wallet.id);
    expect(listed).toEqual(expect.arrayContaining([created.id, w.id]));
    expect((await business.wallets.get(created.id)).name).toBe('sdk wallet');
    expect((await business.wallets.update(created.id, { name: 'renamed' })).name).toBe('renamed');
    const regenerated = await business.wallets.regenerateApiKey(created.id);
    const old = new WalletClient({ baseUrl: h.baseUrl, apiKey: created.apiKey });
    await expectApiError(old.wallets.get(created.id), 401, 'UNAUTHORIZED');
    expect((await new WalletClient({ baseUrl: h.baseUrl, apiKey: regenerated.apiKey }).wallets.get(created.id)).id).toBe(created.id);
  });

  it('addresses: create, paginate, get, update, watch an external one', async () => {
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await client.addresses.create(w.id, { name: `c-${i}`, metadata: { customer: String(i) } }));
    const page = await client.addresses.list(w.id, { limit: 2 });
    expect(page.data).toHaveLength(2);
    const seen = await client.addresses.list(w.id, { limit: 2, type: 'INTERNAL' }).toArray();
    expect(seen.map((a) => a.id)).toEqual(expect.arrayContaining(made.map((a) => a.id)));
    expect((await client.addresses.get(w.id, made[0]!.id)).metadata).toEqual({ customer: '0' });
    expect((await client.addresses.update(w.id, made[0]!.id, { name: 'renamed' })).name).toBe('renamed');
    const external = await client.addresses.whitelist(w.id, { address: randomAddress(), name: 'outside' });
    expect(external.type).toBe('EXTERNAL');
    await client.addresses.removeWhitelisted(w.id, external.id);
  });

  it('deposits, balances and transactions: a deposit found, read and listed', async () => {
    const child = await client.addresses.create(w.id, { name: 'depositor' });
    const receipt = await chain.sendToken('USDC', child.address, '12.5');
    const found = await client.deposits.rescan(w.id, { transactionHash: receipt.transactionHash });
    expect(found[0]).toMatchObject({ type: 'DEPOSIT', amount: '12.5', hash: receipt.transactionHash });
    const deposit = found[0]!;
    expect((await client.transactions.get(w.id, deposit.id)).id).toBe(deposit.id);
    const listed = await client.transactions.list(w.id, { type: 'DEPOSIT', assets: 'USDC' }).toArray();
    expect(listed.map((t) => t.id)).toContain(deposit.id);
    expect((await client.transactions.listForAddress(w.id, child.id)).data.map((t) => t.id)).toEqual([deposit.id]);
    const balances = await client.balances.list(w.id, { address: child.address });
    expect(balances.find((b) => b.asset.asset.symbol === 'USDC')?.balance).toBe('12.5');
    expect((await client.balances.ofAddress(w.id, child.id)).find((b) => b.asset.asset.symbol === 'USDC')?.balance).toBe('12.5');
    expect((await client.balances.ofAddressAsset(w.id, child.id, { assetId: usdc })).balance).toBe('12.5');
    expect((await client.balances.get(w.id, { assetId: usdc })).asset.asset.symbol).toBe('USDC');
    // A deposit the service already swept, or still sweeping: a typed refusal, or a sweep.
    await client.deposits.sweep(w.id, { transactionId: deposit.id }).catch((err: unknown) => {
      expect(err).toBeInstanceOf(ApiError);
      expect(['ALREADY_SWEPT', 'DEPOSIT_NOT_CONFIRMED', 'NOTHING_TO_SWEEP']).toContain((err as ApiError).code);
    });
  });

  it('withdrawals: the fee, a withdrawal followed to withdraw.success through the event stream, and an Idempotency-Key replayed', async () => {
    await chain.sendToken('USDC', w.address, '50');
    const to = randomAddress();
    const body = { assetId: usdc, address: to, amount: '7.25' };
    const fee = await client.withdrawals.networkFee(w.id, body);
    expect(Number(fee.networkFee)).toBeGreaterThan(0);
    const events = client.events.stream({ types: ['withdraw.success', 'withdraw.failed'] });
    const iterator = events[Symbol.asyncIterator]();
    const next = iterator.next();
    const created = await client.withdrawals.create(w.id, body, { idempotencyKey: 'sdk-withdraw-1' });
    const tx = Array.isArray(created) ? created[0]! : created;
    // The same key answers the first withdrawal again: nothing is paid twice.
    const again = await client.withdrawals.create(w.id, body, { idempotencyKey: 'sdk-withdraw-1' });
    expect((Array.isArray(again) ? again[0]! : again).id).toBe(tx.id);
    const { value } = (await next) as { value: WalletEvent };
    await iterator.return?.(undefined);
    expect(value).toMatchObject({ event: 'withdraw.success', walletId: w.id, test: false });
    expect(value.data).toMatchObject({ id: tx.id, status: 'SUCCESS', amount: '7.25', recipientAddress: to });
    expect(await chain.balanceOf('USDC', to)).toBe(7_250_000n);
    const signed = await client.withdrawals.sign(w.id, { assetId: usdc, address: to, amount: '1' });
    expect((Array.isArray(signed) ? signed[0]! : signed).type).toBe('SIGNED');
  });

  it('signing: a message and typed data', async () => {
    const message = await client.signing.message(w.id, { message: 'hello from the SDK' });
    expect(JSON.stringify(message)).toMatch(/0x[0-9a-f]{130}/);
    const typed = await client.signing.typedData(w.id, {
      domain: { name: 'SDK', version: '1', chainId: 31337, verifyingContract: chain.token('USDC').address },
      types: { Mail: [{ name: 'contents', type: 'string' }] },
      primaryType: 'Mail',
      message: { contents: 'hi' },
    });
    expect(JSON.stringify(typed)).toMatch(/0x[0-9a-f]{130}/);
  });

  it('contracts: a read', async () => {
    const result = await client.contracts.read(w.id, {
      address: chain.token('USDC').address,
      method: 'balanceOf',
      parameters: [w.address],
      abi: erc20Abi as never,
    });
    const onChain = await chain.pub.readContract({
      address: chain.token('USDC').address as Address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [w.address as Address],
    });
    expect(JSON.stringify(result)).toContain(onChain.toString());
  });

  it('webhooks: trigger, test, logs, resend, and the signing secret', async () => {
    await client.wallets.update(w.id, { webhookUrl: receiver.url });
    const triggered = await client.webhooks.trigger(w.id, 'deposit.success');
    expect(triggered).toMatchObject({ event: 'deposit.success', test: true });
    const test = await client.webhooks.test(w.id);
    expect(test.event).toBe('webhook.test');
    await receiver.waitForRequests(2);
    const deposits = await client.transactions.list(w.id, { type: 'DEPOSIT' });
    const resent = await client.webhooks.resend(w.id, deposits.data[0]!.id);
    expect(resent.transaction.id).toBe(deposits.data[0]!.id);
    expect(resent.webhookLog.transactionId).toBe(deposits.data[0]!.id);
    expect((await client.webhooks.logs(w.id, deposits.data[0]!.id)).map((l) => l.id)).toContain(resent.webhookLog.id);
    expect((await client.webhooks.list(w.id)).meta.totalItems).toBeGreaterThanOrEqual(3);
    expect((await client.webhooks.secretStatus(w.id)).hasSecret).toBe(false);
    expect((await client.webhooks.rotateSecret(w.id)).secret).toMatch(/^whsec_/);
  });

  it('auto-settlements: the switch and the rules', async () => {
    const settings = await client.autoSettlements.get(w.id);
    expect(settings).toBeDefined();
    expect(await client.autoSettlements.listRules(w.id)).toEqual([]);
    const child = await client.addresses.create(w.id);
    expect(await client.autoSettlements.listAddressRules(w.id, child.id)).toEqual([]);
    expect(await client.autoSettlements.getForAddress(w.id, child.id)).toBeDefined();
  });

  it('beneficiaries: create, list, get, update, settlements, delete', async () => {
    const created = await client.beneficiaries.create(w.id, { name: 'Supplier', address: randomAddress() });
    expect((await client.beneficiaries.list(w.id)).data.map((b) => b.id)).toContain(created.id);
    expect((await client.beneficiaries.get(w.id, created.id)).name).toBe('Supplier');
    expect((await client.beneficiaries.update(w.id, created.id, { name: 'Supplier Ltd' })).name).toBe('Supplier Ltd');
    expect((await client.beneficiaries.settlements(w.id, created.id)).data).toEqual([]);
    await client.beneficiaries.delete(w.id, created.id);
    expect((await client.beneficiaries.list(w.id)).data.map((b) => b.id)).not.toContain(created.id);
  });

  it('aml: a lookup by wallet and by blockchain, a sanctioned address flagged, a release refused for a deposit not held', async () => {
    const clean = randomAddress();
    const screened = await client.aml.lookupForWallet(w.id, { address: clean });
    expect(screened).toMatchObject({ address: clean, blockchain: 'devnet-eth', isBlacklisted: false, lists: [] });
    const sanctioned = randomAddress();
    const c = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    await setDevnetSanctioned(c.config.rpcUrl, c.config.chainId, [sanctioned]);
    const flagged = await business.aml.lookup({ address: sanctioned, blockchain: 'devnet-eth', network: 'testnet' });
    expect(flagged).toMatchObject({ isBlacklisted: true, status: 'FLAGGED', lists: ['sanctions-oracle'] });
    await expectApiError(
      business.aml.lookup({ address: 'not an address', blockchain: 'devnet-eth', network: 'testnet' }),
      400,
      'VALIDATION_ERROR',
    );
    const deposit = (await client.transactions.list(w.id, { type: 'DEPOSIT' }).toArray())[0]!;
    await expectApiError(business.aml.release(w.id, deposit.id), 409, 'NOT_HELD');
  });

  it('api-keys: create, list, get, revoke', async () => {
    const key = await business.apiKeys.create({ name: 'sdk', scopes: ['READ_ONLY'] });
    expect(key.apiKey).toMatch(/^sk_biz_/);
    expect((await business.apiKeys.list()).data.map((k) => k.id)).toContain(key.id);
    expect((await business.apiKeys.get(key.id)).name).toBe('sdk');
    const readOnly = new WalletClient({ baseUrl: h.baseUrl, apiKey: key.apiKey });
    await expectApiError(readOnly.addresses.create(w.id), 403, 'KEY_READ_ONLY');
    await business.apiKeys.revoke(key.id);
    await expectApiError(readOnly.blockchains.list(), 401, 'UNAUTHORIZED');
  });

  it('events: the feed page by page, and a business key sees every wallet', async () => {
    const bsc = h.wallets['devnet-bsc']!;
    await new WalletClient({ baseUrl: h.baseUrl, apiKey: bsc.apiKey }).webhooks.trigger(bsc.id, 'swap.success');
    const mine = await client.events.list({ limit: 2 }).toArray();
    expect(mine.length).toBeGreaterThan(2);
    expect(new Set(mine.map((e) => e.cursor)).size).toBe(mine.length);
    expect(mine.every((e) => e.walletId === w.id)).toBe(true);
    // The feed shows an event once no transaction older than it is open anywhere in the cluster
    // (another test file's may be, for a while): polled, like a client reading the feed.
    const swaps = await eventually(
      async () => await business.events.list({ types: ['swap.success'] }),
      (page) => page.data.length > 0,
      30_000,
    );
    expect(swaps.data.map((e) => e.walletId)).toEqual([bsc.id]);
    const after = await client.events.list({ after: mine[1]!.cursor, limit: 1 });
    expect(after.data[0]!.id).toBe(mine[2]!.id);
  });
});

describe('errors', () => {
  it('map the error body: code, status, request id, details', async () => {
    const missing = await expectApiError(client.transactions.get(w.id, '0190f0a2-7b3c-7d4e-8f00-112233445566'), 404, 'NOT_FOUND');
    expect(missing.requestId).toMatch(/.+/);
    expect(missing.retryable).toBe(false);
    const invalid = await expectApiError(client.addresses.create(w.id, { name: 'x'.repeat(300) }), 400, 'VALIDATION_ERROR');
    expect(invalid.details[0]?.field).toBe('name');
    const poor = await expectApiError(
      client.withdrawals.create(w.id, { assetId: usdc, address: randomAddress(), amount: '1000000000' }),
      422,
      'INSUFFICIENT_BALANCE',
    );
    expect(isApiError(poor, 'INSUFFICIENT_BALANCE')).toBe(true);
    const other = h.wallets['devnet-bsc']!;
    await expectApiError(client.wallets.get(other.id), 404, 'NOT_FOUND');
    await expectApiError(new WalletClient({ baseUrl: h.baseUrl, apiKey: 'sk_test_nope' }).blockchains.list(), 401, 'UNAUTHORIZED');
  });

  it('a service that cannot be reached is a ConnectionError, after the retries a read allows', async () => {
    const down = new WalletClient({ baseUrl: 'http://127.0.0.1:1', apiKey: w.apiKey, maxRetries: 1, maxRetryDelayMs: 10 });
    await expect(down.blockchains.list()).rejects.toBeInstanceOf(ConnectionError);
  });
});
