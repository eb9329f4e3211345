/**
 * Same-business cross-wallet probe: one business, wallets W1 and W2. Every operation under
 * /v1/wallets/{walletId} is called with W1 in the path (so the wallet check passes) and W2's
 * ids for everything else (path, query, body), with W1's wallet key and with the business
 * key. A 2xx that involves W2's ids, or any change to W2's rows, is a leak.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type ApiResponse, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';

const ETH = 'devnet-eth';
const outside = () => privateKeyToAccount(generatePrivateKey()).address;

let h: Harness;
let eth: TestChain;
let usdc: string;
let usdt: string;
const W1: Record<string, any> = {};
const W2: Record<string, any> = {};

function ok(res: ApiResponse, what: string) {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body?.data;
}

async function drain() {
  const ix = h.services.deposits.indexer(h.services.catalogue.findChain(ETH, 'testnet')!);
  for (let i = 0; i < 500; i++) if ((await ix.step()) === 'idle') return;
}

async function snapshotW2(): Promise<Map<string, string>> {
  const { rows: tables } = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'wallet_id'`.execute(h.database.db);
  const out = new Map<string, string>();
  for (const t of tables) {
    const { rows } = await sql<{ j: any }>`SELECT to_jsonb(x) AS j FROM ${sql.table(t.table_name)} x WHERE wallet_id = ${W2.id}::uuid`
      .execute(h.database.db)
      .catch(() => ({ rows: [] as { j: any }[] }));
    rows.forEach((r, i) => out.set(`${t.table_name}:${r.j.id ?? i}`, JSON.stringify(r.j)));
  }
  const { rows } = await sql<{ j: any }>`SELECT to_jsonb(x) AS j FROM wallets x WHERE id = ${W2.id}::uuid`.execute(h.database.db);
  out.set('wallets', JSON.stringify(rows[0]?.j));
  return out;
}

beforeAll(async () => {
  h = await startHarness({
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 }, rates: { pegFallback: true, cacheMs: 0 } },
  });
  eth = chainOf(h, ETH);
  const chain = h.services.catalogue.findChain(ETH, 'testnet')!;
  usdc = chain.assets.find((a) => a.symbol === 'USDC')!.id;
  usdt = chain.assets.find((a) => a.symbol === 'USDT')!.id;
  Object.assign(W1, h.wallets[ETH]!);
  const w2 = await h.services.wallets.createForBusiness(h.businessId, { blockchain: ETH, network: 'testnet', name: 'second' });
  Object.assign(W2, { id: w2.wallet.id, apiKey: w2.apiKey, address: w2.wallet.address });
  await eth.rpc('anvil_setBalance', [W2.address, '0x56BC75E2D63100000']);
  const k2 = W2.apiKey;
  W2.child = ok(await h.api('POST', `/v1/wallets/${W2.id}/addresses`, { key: k2, body: { name: 'w2 child' } }), 'child');
  W2.whitelisted = ok(
    await h.api('POST', `/v1/wallets/${W2.id}/addresses/whitelist`, { key: k2, body: { address: outside(), name: 'w2 watched' } }),
    'whitelist',
  );
  await eth.sendToken('USDC', W2.address, '1000');
  const dep = await eth.sendToken('USDC', W2.child.address, '50');
  await drain();
  W2.deposit = await eventually(
    async () => (await h.api('GET', `/v1/wallets/${W2.id}/transactions?hash=${dep.transactionHash}`, { key: k2 })).body.data?.[0],
    (t) => !!t,
    20_000,
  );
  W2.withdrawal = ok(
    await h.api('POST', `/v1/wallets/${W2.id}/withdraw`, { key: k2, body: { assetId: usdc, address: outside(), amount: '1' } }),
    'withdraw',
  );
  W2.beneficiary = ok(
    await h.api('POST', `/v1/wallets/${W2.id}/beneficiaries`, { key: k2, body: { name: 'w2 payee', address: outside() } }),
    'beneficiary',
  );
  const rule = {
    name: 'w2 rule',
    order: 'RECOMMENDED',
    slippageTolerance: '1',
    source: { assets: ['USDC'], blockchain: ETH, minAmount: '1', maxAmount: '1000' },
    destination: { asset: 'USDC', address: outside(), blockchain: ETH },
  };
  W2.rule = ok(await h.api('POST', `/v1/wallets/${W2.id}/auto-settlements/rules`, { key: k2, body: rule }), 'rule');
  W2.addressRule = ok(
    await h.api('POST', `/v1/wallets/${W2.id}/addresses/${W2.child.id}/auto-settlements/rules`, { key: k2, body: rule }),
    'address rule',
  );
  const q = await h.api('POST', `/v1/wallets/${W2.id}/swaps/quote`, { key: k2, body: { fromAssetId: usdc, toAssetId: usdt, amount: '1' } });
  W2.quote = q.status === 200 ? q.body.data : null;
  const assets = ok(await h.api('GET', `/v1/wallets/${W2.id}/assets`, { key: k2 }), 'assets');
  W2.walletAsset = assets.find((x: any) => x.asset?.symbol === 'USDC' || x.symbol === 'USDC') ?? assets[0];
  await eventually(
    async () => (await h.api('GET', `/v1/wallets/${W2.id}/transactions/${W2.withdrawal.id}`, { key: k2 })).body.data,
    (t) => ['SUCCESS', 'FAILED'].includes(t?.status),
    30_000,
  ).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 1500));
}, 240_000);

afterAll(async () => {
  await h?.stop();
});

function w2Ids(): string[] {
  return [
    W2.child.id,
    W2.whitelisted.id,
    W2.deposit.id,
    W2.withdrawal.id,
    W2.beneficiary.id,
    W2.rule.id,
    W2.addressRule.id,
    W2.quote?.quoteId,
    W2.walletAsset?.id,
    W2.child.address,
    W2.whitelisted.address,
    W2.deposit.hash ?? W2.deposit.transactionHash,
  ].filter((x): x is string => typeof x === 'string' && x.length > 8);
}

describe('same-business cross-wallet probe', () => {
  it("W1's path with W2's ids reaches nothing of W2", async () => {
    // Nothing moves W2's rows on its own meanwhile (a sweep of its child's deposit, a depth
    // check): every change the snapshots could show is the probe's.
    await h.stopWorker();
    const before = await snapshotW2();
    const doc = (await h.api('GET', '/openapi.json', { key: null })).body as { paths: Record<string, Record<string, any>> };
    const found: string[] = [];
    const rank = (p: string, m: string) => (p.includes('regenerate') ? 2 : m === 'delete' ? 1 : 0);
    const ops = Object.entries(doc.paths)
      .flatMap(([p, ms]) => Object.entries(ms).map(([m, op]) => ({ p, m, op })))
      .filter(({ p, m }) => p.startsWith('/v1/wallets/{walletId}') && ['get', 'post', 'patch', 'put', 'delete'].includes(m))
      .filter(({ p }) => !p.includes('regenerate'))
      .sort((a, b) => rank(a.p, a.m) - rank(b.p, b.m));
    let calls = 0;
    for (const { p, m, op } of ops) {
      const id = p.includes('/beneficiaries/')
        ? W2.beneficiary.id
        : p.includes('/addresses/{addressId}/auto-settlements/rules/')
          ? W2.addressRule.id
          : p.includes('/auto-settlements/rules/')
            ? W2.rule.id
            : undefined;
      const vars: Record<string, string | undefined> = {
        walletId: W1.id,
        addressId: p.includes('whitelist') ? W2.whitelisted.id : W2.child.id,
        assetId: W2.walletAsset?.id,
        transactionsId: p.includes('cancel') || p.includes('retry') || p.includes('speed') ? W2.withdrawal.id : W2.deposit.id,
        transactionId: W2.deposit.id,
        id,
      };
      let missing = false;
      const url = p.replace(/\{(\w+)\}/g, (_, k: string) => vars[k] ?? ((missing = true), ''));
      if (missing) continue;
      const schema = op.requestBody?.content?.['application/json']?.schema;
      const props: Record<string, unknown> = schema?.properties ?? {};
      const values: Record<string, unknown> = {
        walletId: W2.id,
        addressId: W2.child.id,
        transactionId: W2.deposit.id,
        id: p.includes('cancel') || p.includes('retry') || p.includes('speed') ? W2.withdrawal.id : W2.deposit.id,
        quoteId: W2.quote?.quoteId,
        assetId: W2.walletAsset?.id ?? usdc,
        fromAssetId: usdc,
        toAssetId: usdt,
        address: outside(),
        amount: '1',
        senderAddress: W2.child.address,
        recipientAddress: W1.address,
        blockchainId: (h.services.catalogue.findChain(ETH, 'testnet') as any).row.blockchain_id,
        event: 'deposit.success',
        message: 'probe',
        name: 'probe',
        isActive: false,
      };
      const body: Record<string, unknown> = {};
      for (const k of Object.keys(props)) if (values[k] !== undefined) body[k] = values[k];
      const sent = `${url} ${JSON.stringify(body)}`;
      const involves = w2Ids().some((x) => sent.toLowerCase().includes(x.toLowerCase()));
      if (!involves) continue;
      for (const [cred, key] of [
        ['W1 key', W1.apiKey],
        ['business key', h.businessKey],
      ] as const) {
        calls++;
        const method = m.toUpperCase();
        const res = await h.api(method, url, method === 'GET' || method === 'DELETE' ? { key } : { key, body });
        if (res.status < 300)
          found.push(`${cred} ${method} ${url} ${JSON.stringify(body)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      }
    }
    // Queries with W2's ids on W1's lists.
    for (const q of [
      `/v1/wallets/${W1.id}/transactions?id=${W2.deposit.id}`,
      `/v1/wallets/${W1.id}/transactions?hash=${W2.deposit.hash}`,
      `/v1/wallets/${W1.id}/balances?address=${W2.child.address}`,
      `/v1/wallets/${W1.id}/balance?assetId=${W2.walletAsset?.id}`,
      `/v1/events?walletId=${W2.id}`,
      `/v1/wallets/${W1.id}/aml/lookup?address=${W2.child.address}`,
    ])
      for (const key of [W1.apiKey]) {
        calls++;
        const res = await h.api('GET', q, { key });
        const text = JSON.stringify(res.body).toLowerCase();
        if (res.status < 300 && [W2.child.id, W2.deposit.id, W2.id].some((x) => text.includes(x.toLowerCase())))
          found.push(`GET ${q} -> ${res.status} ${text.slice(0, 300)}`);
      }
    const after = await snapshotW2();
    const changed: string[] = [];
    for (const [k, v] of before)
      if (after.get(k) !== v) changed.push(`${k}\n  before ${v.slice(0, 400)}\n  after  ${after.get(k)?.slice(0, 400)}`);
    for (const k of after.keys()) if (!before.has(k)) changed.push(`NEW ${k} ${after.get(k)!.slice(0, 400)}`);
    console.log('calls', calls);
    expect(calls).toBeGreaterThan(50);
    expect(found).toEqual([]);
    expect(changed).toEqual([]);
  }, 600_000);
});
