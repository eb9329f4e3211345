/**
 * Swaps through the API on the devnet AMM (issue 27, 1): quote and execute from the master
 * and from a child address (its gas topped up), the SWAP Transaction with toAmount, toAsset
 * and toBlockchain, swap.success carrying exactly what the recipient received (read from the
 * receipt's transfer logs), a quote used once, a stale quote re-quoted (and refused once the
 * pool moved below its minimum), a swap whose pool moves below its minimum after signing
 * reverting into swap.failed with the input where it was; refusals (cross-chain, the
 * whitelist, balances) write nothing.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';
import { movePool } from '../autosettlements/pool.js';
import { setDevnetSanctioned } from '../../src/devnet/sanctions.js';

let h: Harness;
let receiver: Receiver;
let eth: TestChain;
const USDC = 10n ** 6n;

const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;
const assetId = (slug: string, symbol: string) =>
  h.services.catalogue.findChain(slug, 'testnet')!.assets.find((a) => a.symbol === symbol)!.id;

beforeAll(async () => {
  h = await startHarness({
    specs: DEVNET_CHAINS.map((c) => ({ ...c, confirmations: 1 })),
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
  });
  receiver = await startReceiver();
  eth = chainOf(h, 'devnet-eth');
  expect((await h.api('PATCH', base(), { body: { webhookUrl: receiver.url } })).status).toBe(200);
  await eth.sendToken('USDC', wallet().address, '1000');
}, 90_000);
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
});

const swapBody = (amount: string, over: Record<string, unknown> = {}) => ({
  fromAssetId: assetId('devnet-eth', 'USDC'),
  toAssetId: assetId('devnet-eth', 'USDT'),
  amount,
  ...over,
});

async function quote(body: Record<string, unknown>, path = base()) {
  const res = await h.api('POST', `${path}/swaps/quote`, { body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as Record<string, any>;
}
async function execute(body: Record<string, unknown>, path = base()) {
  const res = await h.api('POST', `${path}/swaps/execute`, { body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data).toMatchObject({ type: 'SWAP', status: 'PENDING' });
  return res.body.data as Record<string, any>;
}
async function settled(id: string) {
  return eventually(
    async () => (await h.api('GET', `${base()}/transactions/${id}`)).body.data as Record<string, any>,
    (t) => t.status !== 'PENDING',
    30_000,
  );
}
async function eventOf(id: string, name: string) {
  const read = async () =>
    receiver.requests
      .filter((r) => r.body.includes(id))
      .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey: wallet().apiKey, replay: false }))
      .filter((e) => e.event === name && e.data.id === id);
  return (await eventually(read, (l) => l.length > 0, 15_000))[0]!;
}
async function counts() {
  const { rows } = await sql<{ t: string; o: string; q: string }>`
    SELECT (SELECT count(*) FROM transactions) AS t, (SELECT count(*) FROM outbound_txs) AS o,
           (SELECT count(*) FROM swaps) AS q`.execute(h.database.db);
  return rows[0];
}
const units = (decimal: string) => {
  const [w, f = ''] = decimal.split('.');
  return BigInt(w!) * USDC + BigInt(f.padEnd(6, '0'));
};

describe('from the master address', () => {
  it('quotes with every field, executes by quoteId, and reports exactly what arrived', async () => {
    const q = await quote(swapBody('100'));
    expect(Object.keys(q).sort()).toEqual(
      [
        'amount',
        'amountIn',
        'estimatedArrivalTime',
        'expiresAt',
        'fromAsset',
        'impact',
        'impactInUSD',
        'minAmount',
        'nativeBalance',
        'nativeBalanceInUSD',
        'networkFee',
        'networkFeeInUSD',
        'path',
        'quoteId',
        'rate',
        'recipientAddress',
        'slippage',
        'toAsset',
        'transactionFee',
      ].sort(),
    );
    expect(q).toMatchObject({
      fromAsset: 'USDC',
      toAsset: 'USDT',
      amountIn: '100',
      minAmount: '99.5',
      slippage: '0.5',
      transactionFee: '0',
    });
    expect(units(q.amount)).toBeGreaterThan(99_500_000n);
    expect(units(q.amount)).toBeLessThan(100_000_000n);
    expect(q.impactInUSD).not.toBeNull(); // the devnet USDT has a USD feed
    expect(Date.parse(q.expiresAt)).toBeGreaterThan(Date.now());

    const usdcBefore = await eth.balanceOf('USDC', wallet().address);
    const usdtBefore = await eth.balanceOf('USDT', wallet().address);
    const t = await execute({ quoteId: q.quoteId, reference: 'swap-1', metadata: { desk: 'fx' } });
    expect(t).toMatchObject({ amount: '100', currency: 'USDC', toCurrency: 'USDT', reference: 'swap-1' });
    expect(t.toAsset.symbol).toBe('USDT');
    expect(t.toBlockchain.slug).toBe('devnet-eth');
    const done = await settled(t.id);
    expect(done.status, JSON.stringify(done)).toBe('SUCCESS');
    const received = (await eth.balanceOf('USDT', wallet().address)) - usdtBefore;
    expect(await eth.balanceOf('USDC', wallet().address)).toBe(usdcBefore - 100n * USDC);
    expect(units(done.toAmount)).toBe(received);
    expect(received).toBeGreaterThanOrEqual(units(q.minAmount));
    expect(done.metadata).toMatchObject({ desk: 'fx', swap: { quoteId: q.quoteId, requoted: false, minAmount: '99500000' } });
    const event = await eventOf(t.id, 'swap.success');
    expect(event.data).toMatchObject({ type: 'SWAP', status: 'SUCCESS', toAmount: done.toAmount });

    const again = await h.api('POST', `${base()}/swaps/execute`, { body: { quoteId: q.quoteId } });
    expect([again.status, again.body.error]).toEqual([409, 'QUOTE_USED']);
    const history = await h.api('GET', `${base()}/transactions?type=SWAP`);
    expect(history.body.data.map((x: { id: string }) => x.id)).toContain(t.id);
  });

  it('takes asset ids spelt in capitals, as the same assets', async () => {
    const body = swapBody('1');
    const q = await quote({ ...body, fromAssetId: body.fromAssetId.toUpperCase(), toAssetId: body.toAssetId.toUpperCase() });
    expect(q).toMatchObject({ fromAsset: 'USDC', toAsset: 'USDT', amountIn: '1' });
  });

  it('refuses quoteId beside a field the quote fixes (a recipient, an amount), writing nothing', async () => {
    const q = await quote(swapBody('10'));
    const before = await counts();
    for (const extra of [
      { recipientAddress: '0x000000000000000000000000000000000000dEaD' },
      { amount: '20' },
      { slippageTolerance: '5' },
    ]) {
      const res = await h.api('POST', `${base()}/swaps/execute`, { body: { quoteId: q.quoteId, ...extra } });
      expect([res.status, res.body.error], JSON.stringify(res.body)).toEqual([400, 'VALIDATION_ERROR']);
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(Object.keys(extra));
    }
    expect(await counts()).toEqual(before);
    const { rows } = await sql<{ used: string | null }>`SELECT used_by AS used FROM swap_quotes WHERE id = ${q.quoteId}`.execute(
      h.database.db,
    );
    expect(rows[0]!.used).toBeNull();
  });

  it('a stale quote is quoted again at execution: executed at the fresh rate, flagged requoted', async () => {
    const q = await quote(swapBody('10'));
    await sql`UPDATE swap_quotes SET expires_at = now() - interval '1 second' WHERE id = ${q.quoteId}`.execute(h.database.db);
    const done = await settled((await execute({ quoteId: q.quoteId })).id);
    expect(done.status).toBe('SUCCESS');
    expect(done.metadata.swap).toMatchObject({ quoteId: q.quoteId, requoted: true });
    expect(units(done.toAmount)).toBeGreaterThanOrEqual(units(q.minAmount));
  });
});

describe('migration 045: a swap plan written with the flat block fields', () => {
  it('is read back in the layout the code writes now (plan.mined.block), the same values', async () => {
    const { rows } = await sql<{ id: string; plan: Record<string, any> }>`
      SELECT id, plan FROM swaps WHERE status = 'success' ORDER BY created_at LIMIT 1`.execute(h.database.db);
    const { id, plan } = rows[0]!;
    const shown = (await h.api('GET', `${base()}/transactions/${id}`)).body.data as Record<string, any>;
    expect(plan.mined).toMatchObject({ hash: shown.hash, block: { number: String(shown.blockNumber), hash: shown.blockHash } });

    // The layout swaps kept from migration 036 until 045.
    const { block, ...rest } = plan.mined;
    const flat = { ...plan, mined: { ...rest, blockNumber: block.number, blockHash: block.hash } };
    await sql`UPDATE swaps SET plan = ${JSON.stringify(flat)}::jsonb WHERE id = ${id}`.execute(h.database.db);
    const file = readFileSync(new URL('../../src/db/migrations/045_swap_mined_block.sql', import.meta.url), 'utf8');
    await sql.raw(file).execute(h.database.db);
    const after = await sql<{ plan: unknown }>`SELECT plan FROM swaps WHERE id = ${id}`.execute(h.database.db);
    expect(after.rows[0]!.plan).toEqual(plan);
    // Run again, nothing changes (a plan without flat fields is left alone).
    await sql.raw(file).execute(h.database.db);
    expect((await sql<{ plan: unknown }>`SELECT plan FROM swaps WHERE id = ${id}`.execute(h.database.db)).rows[0]!.plan).toEqual(plan);
  });
});

describe('from a child address', () => {
  it('tops the child up, sends the output to an outside recipient, exact amounts', async () => {
    const res = await h.api('POST', `${base()}/addresses`, { body: { disableAutoSweep: true } });
    const child = res.body.data as { id: string; address: string };
    await eth.sendToken('USDC', child.address, '50');
    const to = fresh();
    const path = `${base()}/addresses/${child.id}`;
    const q = await quote(swapBody('50', { recipientAddress: to, order: 'FASTEST', slippageTolerance: '1' }), path);
    expect(q).toMatchObject({ recipientAddress: to, minAmount: '49.5', nativeBalance: '0' });
    const done = await settled((await execute({ quoteId: q.quoteId }, path)).id);
    expect(done.status, JSON.stringify(done)).toBe('SUCCESS');
    expect(done.recipientAddress).toBe(to);
    expect(done.address.id).toBe(child.id);
    expect(await eth.balanceOf('USDC', child.address)).toBe(0n);
    expect(await eth.balanceOf('USDT', to)).toBe(units(done.toAmount));
    const { rows } = await sql<{ purpose: string; stage: string }>`
      SELECT purpose, stage FROM outbound_txs WHERE owner_id = ${done.id} ORDER BY created_at, id`.execute(h.database.db);
    expect(rows.map((r) => [r.purpose, r.stage])).toEqual([
      ['swap-topup', 'mined'],
      ['swap-approve', 'mined'],
      ['swap', 'mined'],
    ]);
    await eventOf(done.id, 'swap.success');
  });
});

describe('refusals write nothing', () => {
  it('cross-chain, the same asset, more than held, a recipient off the whitelist, a quote of another wallet', async () => {
    const before = await counts();
    const cases: [Record<string, unknown>, number, string][] = [
      [swapBody('1', { toAssetId: assetId('devnet-bsc', 'USDT') }), 422, 'CROSS_CHAIN_SWAP_NOT_SUPPORTED'],
      // Unknown ids: what is wrong with them, not a chain they do not have.
      [swapBody('1', { fromAssetId: '0190f0a2-7b3c-7d4e-8f00-112233445566' }), 422, 'ASSET_NOT_ENABLED'],
      [swapBody('1', { toAssetId: '0190f0a2-7b3c-7d4e-8f00-112233445566' }), 422, 'ASSET_NOT_AVAILABLE'],
      [swapBody('1', { toAssetId: assetId('devnet-eth', 'USDC') }), 400, 'VALIDATION_ERROR'],
      [swapBody('1000000'), 422, 'INSUFFICIENT_BALANCE'],
      [swapBody('0'), 400, 'VALIDATION_ERROR'],
      [swapBody('1', { slippageTolerance: '-1' }), 400, 'VALIDATION_ERROR'],
      [{ amount: '1' }, 400, 'VALIDATION_ERROR'],
      // A token's contract as the recipient: what is sent there is lost.
      [
        swapBody('1', {
          recipientAddress: h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDT')!.address,
        }),
        400,
        'VALIDATION_ERROR',
      ],
    ];
    for (const [body, status, code] of cases) {
      const res = await h.api('POST', `${base()}/swaps/execute`, { body });
      expect([res.status, res.body.error], JSON.stringify(body)).toEqual([status, code]);
    }
    const payee = await h.api('POST', `${base()}/beneficiaries`, { body: { name: 'Payee', address: fresh(), isWhitelisted: true } });
    expect(payee.status).toBe(200);
    const off = await h.api('POST', `${base()}/swaps/execute`, { body: swapBody('1', { recipientAddress: fresh() }) });
    expect([off.status, off.body.error]).toEqual([422, 'NOT_WHITELISTED']);
    expect((await h.api('DELETE', `${base()}/beneficiaries/${payee.body.data.id}`)).status).toBe(200);
    const bsc = h.wallets['devnet-bsc']!;
    const theirs = await h.api('POST', `/v1/wallets/${bsc.id}/swaps/quote`, {
      key: bsc.apiKey,
      body: { fromAssetId: assetId('devnet-bsc', 'USDT'), toAssetId: assetId('devnet-bsc', 'USDC'), amount: '1' },
    });
    // A quote is only the wallet's own: another wallet's id is unknown here.
    if (theirs.status === 200) {
      const stolen = await h.api('POST', `${base()}/swaps/execute`, { body: { quoteId: theirs.body.data.quoteId } });
      expect(stolen.status).toBe(404);
    }
    expect(await counts()).toEqual(before);
  });
});

describe('a client reference already used on the wallet', () => {
  it("a swap repeating it, or taking a withdrawal's: 409 REFERENCE_IN_USE, nothing written, the quote still unused", async () => {
    const first = await execute(swapBody('1', { reference: 'swap-ref-1' }));
    await settled(first.id);
    const paid = await h.api('POST', `${base()}/withdraw`, {
      body: { assetId: assetId('devnet-eth', 'USDC'), address: fresh(), amount: '1', reference: 'paid-ref-1' },
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    await settled(paid.body.data.id);

    const before = await counts();
    const usdc = await eth.balanceOf('USDC', wallet().address);
    const q = await quote(swapBody('1'));
    for (const [reference, holder] of [
      ['swap-ref-1', first.id],
      ['paid-ref-1', paid.body.data.id],
    ]) {
      const res = await h.api('POST', `${base()}/swaps/execute`, { body: { quoteId: q.quoteId, reference } });
      expect([res.status, res.body.error], JSON.stringify(res.body)).toEqual([409, 'REFERENCE_IN_USE']);
      expect(res.body.message).toBe(`The reference '${reference}' is already used on this wallet by another transaction (${holder})`);
    }
    expect(await counts()).toEqual(before);
    expect(await eth.balanceOf('USDC', wallet().address)).toBe(usdc);
    // The refused requests left the quote as it was: it executes once, under a new reference.
    const done = await settled((await execute({ quoteId: q.quoteId, reference: 'swap-ref-2' })).id);
    expect(done.status).toBe('SUCCESS');
  });

  it('two swaps sent at once with one reference: one is created, the other is 409 REFERENCE_IN_USE', async () => {
    const before = await counts();
    const [a, b] = await Promise.all(
      [0, 1].map(() => h.api('POST', `${base()}/swaps/execute`, { body: swapBody('1', { reference: 'swap-race' }) })),
    );
    const answers = [a!, b!].map((r) => [r.status, r.body.error ?? null]).sort();
    expect(answers, JSON.stringify([a!.body.message, b!.body.message])).toEqual([
      [200, null],
      [409, 'REFERENCE_IN_USE'],
    ]);
    const created = (a!.status === 200 ? a! : b!).body.data;
    const after = await counts();
    expect(Number(after!.t) - Number(before!.t)).toBe(1);
    expect(Number(after!.q) - Number(before!.q)).toBe(1);
    expect((await settled(created.id)).status).toBe('SUCCESS');
  });
});

describe('AML screening of the recipient', () => {
  it('an outside recipient on the sanctions list: 422 AML_BLOCKED, audited, nothing written', async () => {
    const sanctioned = fresh();
    const c = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    await setDevnetSanctioned(c.config.rpcUrl, c.config.chainId, [sanctioned]);
    const before = await counts();
    const res = await h.api('POST', `${base()}/swaps/execute`, { body: swapBody('1', { recipientAddress: sanctioned }) });
    expect([res.status, res.body.error]).toEqual([422, 'AML_BLOCKED']);
    expect(res.body.details).toEqual([expect.objectContaining({ field: 'recipientAddress' })]);
    expect(await counts()).toEqual(before);
    const { rows } = await sql<{ details: { operation: string } }>`
      SELECT details FROM audit_log WHERE action = 'aml.blocked' AND wallet_id = ${wallet().id}`.execute(h.database.db);
    expect(rows.map((r) => r.details.operation)).toContain('swap');
  });

  it('an outside address registered on the wallet (EXTERNAL) and listed since: still screened, 422 AML_BLOCKED, nothing written', async () => {
    const outside = fresh();
    // Registered while clear (screened then: 200), so it is one of the wallet's address rows.
    const reg = await h.api('POST', `${base()}/addresses/whitelist`, { body: { address: outside } });
    expect(reg.status, JSON.stringify(reg.body)).toBe(200);
    expect(reg.body.data.type).toBe('EXTERNAL');
    const c = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    await setDevnetSanctioned(c.config.rpcUrl, c.config.chainId, [outside]);
    h.services.aml.clearCache();
    const before = await counts();
    const res = await h.api('POST', `${base()}/swaps/execute`, { body: swapBody('1', { recipientAddress: outside }) });
    expect([res.status, res.body.error], JSON.stringify(res.body)).toEqual([422, 'AML_BLOCKED']);
    expect(res.body.details).toEqual([expect.objectContaining({ field: 'recipientAddress' })]);
    expect(await counts()).toEqual(before);
  });
});

describe('the pool moves below the minimum', () => {
  it('after signing: the swap reverts on chain, swap.failed, and the input stays with the sender', async () => {
    const q = await quote(swapBody('20', { order: 'NO_SLIPPAGE' }));
    expect(q.minAmount).toBe(q.amount);
    await h.stopWorker();
    const t = await execute({ quoteId: q.quoteId });
    const usdc = await eth.balanceOf('USDC', wallet().address);
    await movePool(eth);
    await h.startWorker();
    const done = await settled(t.id);
    expect(done.status, JSON.stringify(done)).toBe('FAILED');
    expect(done.reason).toMatch(/reverted/);
    expect(await eth.balanceOf('USDC', wallet().address)).toBe(usdc);
    await eventOf(t.id, 'swap.failed');
  });

  it('before signing: a stale quote re-quoted below its minimum is refused, nothing written', async () => {
    const q = await quote(swapBody('5', { order: 'NO_SLIPPAGE' }));
    await sql`UPDATE swap_quotes SET expires_at = now() - interval '1 second' WHERE id = ${q.quoteId}`.execute(h.database.db);
    await movePool(eth);
    const before = await counts();
    const res = await h.api('POST', `${base()}/swaps/execute`, { body: { quoteId: q.quoteId } });
    expect([res.status, res.body.error]).toEqual([422, 'SLIPPAGE_EXCEEDED']);
    expect(res.body.message).toMatch(/expired/);
    expect(await counts()).toEqual(before);
  });
});

describe('/openapi.json', () => {
  it('lists the swap, asset recovery and staking routes', async () => {
    const doc = (await h.api('GET', '/openapi.json', { key: null })).body as { paths: Record<string, Record<string, unknown>> };
    for (const path of [
      '/v1/wallets/{walletId}/swaps/quote',
      '/v1/wallets/{walletId}/swaps/execute',
      '/v1/wallets/{walletId}/addresses/{addressId}/swaps/quote',
      '/v1/wallets/{walletId}/addresses/{addressId}/swaps/execute',
      '/v1/wallets/{walletId}/salvage/network-fee',
      '/v1/wallets/{walletId}/salvage',
      '/v1/wallets/{walletId}/staking/stake',
      '/v1/wallets/{walletId}/staking/unstake',
      '/v1/wallets/{walletId}/staking/restake',
      '/v1/wallets/{walletId}/staking/withdraw',
    ])
      expect(doc.paths[path]?.post, path).toBeDefined();
    expect(doc.paths['/v1/wallets/{walletId}/staking']?.get).toBeDefined();
  });

  it("names the refusal a chain without a router answers: 422 NOT_SUPPORTED (the swaps capability's; test/chains/tron/staking.test.ts)", async () => {
    const doc = (await h.api('GET', '/openapi.json', { key: null })).body as {
      paths: Record<string, Record<string, { description?: string }>>;
    };
    for (const path of [
      '/v1/wallets/{walletId}/swaps/quote',
      '/v1/wallets/{walletId}/swaps/execute',
      '/v1/wallets/{walletId}/addresses/{addressId}/swaps/quote',
      '/v1/wallets/{walletId}/addresses/{addressId}/swaps/execute',
    ]) {
      const description = doc.paths[path]!.post!.description!;
      expect(description, path).toMatch(/elsewhere 422 NOT_SUPPORTED/);
      expect(description, path).not.toMatch(/elsewhere 422 SWAP_NOT_AVAILABLE/);
    }
  });
});
