/**
 * Tenancy probe: business A and business B on one installation. Every operation of
 * /openapi.json is called with B's credentials (business key, a granted business key, a
 * wallet key) with A's ids in the path, the query and id-like body fields; a 2xx that
 * carries A's data, or any change to A's rows, is a leak. Also: B's wallet key against
 * B's other wallet, B's event feed/stream/webhooks, the dashboard as B's user, and /pay.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import type { AuthContext } from '../../src/modules/apikeys/service.js';
import { startHarness, type ApiResponse, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';
import { openStream } from '../support/sse.js';
import { DashClient, createDashboardUser, csrfOf } from '../dashboard/support.js';
import { mail } from '../signing/eip712-example.js';

const BALANCE_OF = [
  {
    type: 'function',
    name: 'balanceOf',
    stateMutability: 'view',
    inputs: [{ name: 'a', type: 'address' }],
    outputs: [{ name: '', type: 'uint256' }],
  },
];
const TRANSFER = [
  {
    type: 'function',
    name: 'transfer',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'v', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
];

const ETH = 'devnet-eth';
const outside = () => privateKeyToAccount(generatePrivateKey()).address;
const OP = (businessId: string): AuthContext => ({ keyId: 'cli:operator', businessId, walletId: null, operator: true });

let h: Harness;
let eth: TestChain;
let recA: Receiver;
let recB: Receiver;
let usdc: string;
let usdt: string;

/** A's objects. */
const A: Record<string, any> = {};
/** B's objects. */
const B: Record<string, any> = {};

function ok(res: ApiResponse, what: string) {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body?.data;
}

async function drain() {
  const ix = h.services.deposits.indexer(h.services.catalogue.findChain(ETH, 'testnet')!);
  for (let i = 0; i < 500; i++) if ((await ix.step()) === 'idle') return;
}

/** Every row of A's (by wallet_id or business_id, and the rows keyed by A's ids) as JSON. */
async function snapshotA(): Promise<Map<string, string>> {
  // A key's last use is written lazily (in batches): A's own earlier requests must be in the
  // rows now, or their write would land between two snapshots and look like B's doing.
  await h.services.apiKeys.flushUsage();
  const { rows: tables } = await sql<{ table_name: string; column_name: string }>`
    SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = 'public' AND column_name IN ('wallet_id', 'business_id')`.execute(h.database.db);
  const out = new Map<string, string>();
  for (const t of tables) {
    const ids = t.column_name === 'wallet_id' ? [A.wallet.id, A.wallet2.id] : [A.businessId];
    const { rows } = await sql<{
      j: any;
    }>`SELECT to_jsonb(x) AS j FROM ${sql.table(t.table_name)} x WHERE ${sql.ref(t.column_name)} = ANY(${ids}::uuid[])`
      .execute(h.database.db)
      .catch(() => ({ rows: [] as { j: any }[] }));
    rows.forEach((r, i) => {
      const key = `${t.table_name}:${r.j.id ?? JSON.stringify(r.j).slice(0, 80) + i}`;
      out.set(key, JSON.stringify(r.j));
    });
  }
  return out;
}

beforeAll(async () => {
  h = await startHarness({
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 }, rates: { pegFallback: true, cacheMs: 0 } },
  });
  [recA, recB] = await Promise.all([startReceiver(), startReceiver()]);
  eth = chainOf(h, ETH);
  const chain = h.services.catalogue.findChain(ETH, 'testnet')!;
  usdc = chain.assets.find((a) => a.symbol === 'USDC')!.id;
  usdt = chain.assets.find((a) => a.symbol === 'USDT')!.id;

  // ---- A ----
  A.businessId = h.businessId;
  A.bizKey = h.businessKey;
  A.wallet = h.wallets[ETH]!;
  const w2 = await h.services.wallets.createForBusiness(A.businessId, { blockchain: ETH, network: 'testnet', name: 'ALPHA second' });
  A.wallet2 = { id: w2.wallet.id, apiKey: w2.apiKey, address: w2.wallet.address };
  const grant = await h.services.apiKeys.createBusinessKey(OP(A.businessId), {
    name: 'ALPHA grant',
    scopes: ['APPROVE', 'MANAGE_POLICIES'],
  });
  A.grant = { id: grant.id, apiKey: grant.apiKey };
  const aw = A.wallet.apiKey;
  ok(await h.api('PATCH', `/v1/wallets/${A.wallet.id}`, { key: aw, body: { webhookUrl: recA.url, name: 'ALPHA wallet' } }), 'A webhook');
  A.child = ok(
    await h.api('POST', `/v1/wallets/${A.wallet.id}/addresses`, {
      key: aw,
      body: { name: 'ALPHA child', metadata: { tag: 'alpha-meta' } },
    }),
    'A child',
  );
  A.whitelisted = ok(
    await h.api('POST', `/v1/wallets/${A.wallet.id}/addresses/whitelist`, { key: aw, body: { address: outside(), name: 'ALPHA watched' } }),
    'A whitelist',
  );
  await eth.sendToken('USDC', A.wallet.address, '1000');
  const dep = await eth.sendToken('USDC', A.child.address, '50');
  A.depositHash = dep.transactionHash;
  await drain();
  A.deposit = await eventually(
    async () => (await h.api('GET', `/v1/wallets/${A.wallet.id}/transactions?hash=${A.depositHash}`, { key: aw })).body.data?.[0],
    (t) => !!t,
    20_000,
  );
  A.withdrawal = ok(
    await h.api('POST', `/v1/wallets/${A.wallet.id}/withdraw`, {
      key: aw,
      body: { assetId: usdc, address: outside(), amount: '1', reference: 'alpha-ref-w' },
    }),
    'A withdraw',
  );
  A.policy = ok(
    await h.api('POST', '/v1/policies', {
      key: A.grant.apiKey,
      body: {
        name: 'ALPHA policy',
        priority: 10,
        walletId: A.wallet.id,
        conditions: { types: ['WITHDRAW', 'BATCH_ITEM'], assets: ['USDC'], amount: { min: '100', currency: 'ASSET' } },
        action: 'REQUIRE_APPROVAL',
        approval: { approvers: { apiKeys: [A.grant.id] }, quorum: 1, ttlSeconds: 3600 },
      },
    }),
    'A policy',
  );
  A.heldWithdrawal = ok(
    await h.api('POST', `/v1/wallets/${A.wallet.id}/withdraw`, {
      key: aw,
      body: { assetId: usdc, address: outside(), amount: '150', reference: 'alpha-ref-held' },
    }),
    'A held withdraw',
  );
  const approvals = ok(await h.api('GET', '/v1/approvals', { key: A.grant.apiKey }), 'A approvals');
  A.approval = approvals[0];
  expect(A.approval, 'an approval for A').toBeTruthy();
  A.apiKey = ok(await h.api('POST', '/v1/api-keys', { key: A.bizKey, body: { name: 'ALPHA key' } }), 'A api key');
  A.beneficiary = ok(
    await h.api('POST', `/v1/wallets/${A.wallet.id}/beneficiaries`, { key: aw, body: { name: 'ALPHA payee', address: outside() } }),
    'A beneficiary',
  );
  A.rule = ok(
    await h.api('POST', `/v1/wallets/${A.wallet.id}/auto-settlements/rules`, {
      key: aw,
      body: {
        name: 'ALPHA rule',
        order: 'RECOMMENDED',
        slippageTolerance: '1',
        source: { assets: ['USDC'], blockchain: ETH, minAmount: '1', maxAmount: '1000' },
        destination: { asset: 'USDC', address: outside(), blockchain: ETH },
      },
    }),
    'A rule',
  );
  A.addressRule = ok(
    await h.api('POST', `/v1/wallets/${A.wallet.id}/addresses/${A.child.id}/auto-settlements/rules`, {
      key: aw,
      body: {
        name: 'ALPHA addr rule',
        order: 'RECOMMENDED',
        slippageTolerance: '1',
        source: { assets: ['USDC'], blockchain: ETH, minAmount: '1', maxAmount: '1000' },
        destination: { asset: 'USDC', address: outside(), blockchain: ETH },
      },
    }),
    'A address rule',
  );
  const q = await h.api('POST', `/v1/wallets/${A.wallet.id}/swaps/quote`, {
    key: aw,
    body: { fromAssetId: usdc, toAssetId: usdt, amount: '1' },
  });
  A.quote = q.status === 200 ? q.body.data : null;
  A.link = ok(
    await h.api('POST', '/v1/payment_links', { key: aw, body: { name: 'ALPHA link', slug: 'alpha-shop', amount: '5' } }),
    'A link',
  );
  A.checkout = ok(
    await h.api('POST', `/v1/payment_links/${A.link.id}/checkouts`, {
      key: aw,
      body: { asset: 'USDC', reference: 'alpha-ref-co', email: 'alpha@example.com' },
    }),
    'A checkout',
  );
  const walletAssets = ok(await h.api('GET', `/v1/wallets/${A.wallet.id}/assets`, { key: aw }), 'A assets');
  A.walletAsset = walletAssets.find((x: any) => x.symbol === 'USDC' || x.asset?.symbol === 'USDC') ?? walletAssets[0];
  A.events = ok(await h.api('GET', '/v1/events?limit=100', { key: A.bizKey }), 'A events');
  A.cursor = A.events.at(-1)?.cursor;

  // ---- B ----
  const b = await h.services.businesses.create('Beta business');
  B.businessId = b.business.id;
  B.bizKey = b.apiKey;
  const bg = await h.services.apiKeys.createBusinessKey(OP(B.businessId), { name: 'beta grant', scopes: ['APPROVE', 'MANAGE_POLICIES'] });
  B.grant = { id: bg.id, apiKey: bg.apiKey };
  for (const n of [1, 2]) {
    const { wallet, apiKey } = await h.services.wallets.createForBusiness(B.businessId, {
      blockchain: ETH,
      network: 'testnet',
      name: `beta ${n}`,
    });
    B[`wallet${n}`] = { id: wallet.id, apiKey, address: wallet.address };
    await eth.rpc('anvil_setBalance', [wallet.address, '0x56BC75E2D63100000']);
  }
  B.wallet = B.wallet1;
  ok(await h.api('PATCH', `/v1/wallets/${B.wallet.id}`, { key: B.wallet.apiKey, body: { webhookUrl: recB.url } }), 'B webhook');
  B.child = ok(await h.api('POST', `/v1/wallets/${B.wallet.id}/addresses`, { key: B.wallet.apiKey, body: {} }), 'B child');
  await eth.sendToken('USDC', B.wallet.address, '100');
  await eth.sendToken('USDC', B.child.address, '5');
  await drain();
  B.link = ok(
    await h.api('POST', '/v1/payment_links', { key: B.wallet.apiKey, body: { name: 'beta link', slug: 'beta-shop', amount: '5' } }),
    'B link',
  );
  B.checkout = ok(
    await h.api('POST', `/v1/payment_links/${B.link.id}/checkouts`, { key: B.wallet.apiKey, body: { asset: 'USDC' } }),
    'B checkout',
  );
  // Let A's first withdrawal settle before the snapshot.
  await eventually(
    async () => (await h.api('GET', `/v1/wallets/${A.wallet.id}/transactions/${A.withdrawal.id}`, { key: aw })).body.data,
    (t) => ['CONFIRMED', 'SUCCESS', 'COMPLETED', 'FAILED'].includes(t?.status),
    30_000,
  ).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 1500));
}, 240_000);

afterAll(async () => {
  await recA?.close();
  await recB?.close();
  await h?.stop();
});

/** Lower-cased strings that are A's and nobody else's. */
function markers(): Map<string, string> {
  const m = new Map<string, string>();
  const add = (name: string, v: unknown) => {
    if (typeof v === 'string' && v.length >= 8) m.set(v.toLowerCase(), name);
  };
  add('A.wallet.id', A.wallet.id);
  add('A.wallet2.id', A.wallet2.id);
  add('A.wallet.address', A.wallet.address);
  add('A.wallet2.address', A.wallet2.address);
  add('A.child.id', A.child.id);
  add('A.child.address', A.child.address);
  add('A.whitelisted.id', A.whitelisted.id);
  add('A.whitelisted.address', A.whitelisted.address);
  add('A.deposit.id', A.deposit.id);
  add('A.depositHash', A.depositHash);
  add('A.withdrawal.id', A.withdrawal.id);
  add('A.heldWithdrawal.id', A.heldWithdrawal.id);
  add('A.policy.id', A.policy.id);
  add('A.approval.id', A.approval.id);
  add('A.apiKey.id', A.apiKey.id);
  add('A.grant.id', A.grant.id);
  add('A.beneficiary.id', A.beneficiary.id);
  add('A.beneficiary.address', A.beneficiary.address);
  add('A.rule.id', A.rule.id);
  add('A.addressRule.id', A.addressRule.id);
  add('A.quote.quoteId', A.quote?.quoteId);
  add('A.link.id', A.link.id);
  add('A.checkout.id', A.checkout.id);
  add('A.checkout.address', A.checkout.address);
  add('A.walletAsset.id', A.walletAsset?.id);
  add('A.businessId', A.businessId);
  for (const s of [
    'ALPHA wallet',
    'ALPHA child',
    'ALPHA payee',
    'ALPHA rule',
    'ALPHA policy',
    'ALPHA link',
    'ALPHA key',
    'alpha-ref-w',
    'alpha-ref-held',
    'alpha-ref-co',
    'alpha-meta',
    'alpha@example.com',
    'alpha-shop',
  ])
    add(s, s);
  return m;
}

function hits(text: string, sent: string): string[] {
  const low = text.toLowerCase();
  const sentLow = sent.toLowerCase();
  // What B sent itself (an echo) is not A's data.
  return [...markers()].filter(([v]) => low.includes(v) && !sentLow.includes(v)).map(([, n]) => n);
}

interface Record_ {
  cred: string;
  method: string;
  path: string;
  body?: unknown;
  status: number;
  hits: string[];
  /** Any A id in the request at all. */
  involvesA: boolean;
  excerpt: string;
}
const records: Record_[] = [];

async function call(cred: string, key: string, method: string, path: string, body?: unknown): Promise<ApiResponse> {
  const res = await h.api(method, path, body === undefined ? { key } : { key, body });
  const sent = `${path} ${JSON.stringify(body ?? '')}`;
  const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
  const sentLow = sent.toLowerCase();
  const involvesA = [...markers().keys()].some((v) => sentLow.includes(v));
  records.push({
    cred,
    method,
    path,
    body,
    status: res.status,
    hits: res.status < 300 ? hits(text, sent) : [],
    involvesA,
    excerpt: text.slice(0, 300),
  });
  return res;
}

/** A body for an operation from its schema: id-like fields get A's ids, the rest plausible values. */
function bodyFor(path: string, schema: any, ids: 'A' | 'B'): unknown {
  if (!schema) return undefined;
  const X = ids === 'A' ? A : B;
  if (path.endsWith('/auto-settlements/rules') || path.endsWith('/auto-settlements/rules/{id}'))
    return {
      name: 'probe rule',
      order: 'RECOMMENDED',
      slippageTolerance: '1',
      source: { assets: ['USDC'], blockchain: ETH, minAmount: '1', maxAmount: '1000' },
      destination: { asset: 'USDC', address: B.wallet.address, blockchain: ETH },
    };
  if (path === '/v1/policies' || path === '/v1/policies/{id}')
    return { name: 'probe policy', priority: 1, walletId: A.wallet.id, conditions: { types: ['WITHDRAW'] }, action: 'BLOCK' };
  if (path === '/v1/policies/evaluate')
    return { walletId: A.wallet.id, addressId: A.child.id, type: 'WITHDRAW', assetId: usdc, amount: '150', address: outside() };
  if (path.includes('/contracts/'))
    return path.includes('read')
      ? { address: eth.token('USDC').address, method: 'balanceOf', parameters: [A.child.address], abi: BALANCE_OF }
      : { address: eth.token('USDC').address, method: 'transfer', parameters: [B.wallet.address, '1'], abi: TRANSFER };
  if (path.includes('/signing/typed-data') || path.includes('/sign/typed-data')) return mail();
  if (path === '/v1/payment_links') return { name: 'probe link', amount: '1', accepts: [{ walletId: A.wallet.id }] };
  const props: Record<string, any> = schema.properties ?? {};
  const v: Record<string, unknown> = {
    walletId: A.wallet.id,
    addressId: A.child.id,
    transactionId: A.deposit.id,
    id: path.includes('cancel') || path.includes('retry') ? A.heldWithdrawal.id : A.deposit.id,
    quoteId: A.quote?.quoteId,
    assetId: usdc,
    fromAssetId: usdc,
    toAssetId: usdt,
    address: path.includes('whitelist') ? A.child.address : outside(),
    amount: '1',
    name: 'probe',
    transactionHash: A.depositHash,
    event: 'deposit.success',
    message: 'probe',
    comment: 'probe',
    senderAddress: A.child.address,
    recipientAddress: X.wallet.address === A.wallet.address ? B.wallet.address : B.wallet.address,
    tokenAddress: eth.token('USDC').address,
    overlapSeconds: 0,
    asset: 'USDC',
    reference: 'probe-ref',
    isActive: true,
    resource: 'ENERGY',
    blockchainId: (h.services.catalogue.findChain(ETH, 'testnet') as any).row.blockchain_id,
  };
  const body: Record<string, unknown> = {};
  for (const k of Object.keys(props)) if (v[k] !== undefined) body[k] = v[k];
  return body;
}

function fill(path: string, ids: Record<string, string | undefined>): string | null {
  let missing = false;
  const out = path.replace(/\{(\w+)\}/g, (_, p: string) => {
    const x = ids[p];
    if (!x) missing = true;
    return x ?? '';
  });
  return missing ? null : out;
}

function idFor(path: string): string | undefined {
  if (path.startsWith('/v1/policies')) return A.policy.id;
  if (path.startsWith('/v1/approvals')) return A.approval.id;
  if (path.startsWith('/v1/payment_links')) return A.link.id;
  if (path.startsWith('/v1/checkouts')) return A.checkout.id;
  if (path.includes('/beneficiaries/')) return A.beneficiary.id;
  if (path.includes('/addresses/{addressId}/auto-settlements/rules/')) return A.addressRule.id;
  if (path.includes('/auto-settlements/rules/')) return A.rule.id;
  return undefined;
}

const LIST_QUERIES = (p: string): string[] => {
  const q: string[] = [];
  if (p.endsWith('/transactions'))
    q.push(`hash=${A.depositHash}`, `reference=alpha-ref-w`, `id=${A.deposit.id}`, `reference=alpha-ref-held`);
  if (p.endsWith('/balances')) q.push(`address=${A.child.address}`, `address=${A.wallet.address}`);
  if (p.endsWith('/balance')) q.push(`assetId=${A.walletAsset?.id ?? usdc}`);
  if (p.endsWith('/approvals')) q.push(`walletId=${A.wallet.id}`);
  if (p === '/v1/events') q.push(`walletId=${A.wallet.id}`, `after=${A.cursor}`, `walletId=${A.wallet2.id}`);
  if (p.endsWith('/aml/lookup')) q.push(`address=${A.child.address}&blockchain=${ETH}&network=testnet`);
  if (p.endsWith('/api-keys')) q.push('includeRevoked=true');
  if (p.endsWith('/beneficiaries')) q.push('includeDeleted=true');
  return q;
};

describe('tenancy probe', () => {
  it('no operation of the API gives B any of A (every route, A ids in path, query, body)', async () => {
    const before = await snapshotA();
    const doc = (await h.api('GET', '/openapi.json', { key: null })).body as { paths: Record<string, Record<string, any>> };
    const ops: { method: string; path: string; op: any }[] = [];
    for (const [p, ms] of Object.entries(doc.paths))
      for (const [m, op] of Object.entries(ms))
        if (['get', 'post', 'put', 'patch', 'delete'].includes(m)) ops.push({ method: m.toUpperCase(), path: p, op });
    // Destructive ones last (B's own key regenerated, B's own rows deleted).
    const rank = (o: { method: string; path: string }) => (o.path.includes('regenerate') ? 2 : o.method === 'DELETE' ? 1 : 0);
    ops.sort((a, b) => rank(a) - rank(b));
    const creds: [string, () => string][] = [
      ['B.biz', () => B.bizKey],
      ['B.grant', () => B.grant.apiKey],
      ['B.wallet1', () => B.wallet1.apiKey],
    ];
    let probes = 0;
    for (const { method, path, op } of ops) {
      if (path === '/v1/events/stream') continue; // below, as a stream
      const schema = op.requestBody?.content?.['application/json']?.schema;
      const paramsA: Record<string, string | undefined> = {
        walletId: A.wallet.id,
        addressId: A.child.id,
        assetId: A.walletAsset?.id ?? usdc,
        transactionsId: path.includes('cancel') || path.includes('retry') ? A.heldWithdrawal.id : A.deposit.id,
        transactionId: A.deposit.id,
        keyId: A.apiKey.id,
        id: idFor(path),
      };
      // Variant 1: every id A's. Variant 2: B's own wallet (access passes), A's sub-ids.
      // Variant 3: B's wallet and address, A's ids in body / the {id} only.
      const variants: Record<string, string | undefined>[] = [paramsA];
      if (path.includes('{walletId}')) {
        variants.push({ ...paramsA, walletId: B.wallet.id });
        if (path.includes('{addressId}') && path !== '/v1/wallets/{walletId}/addresses/{addressId}')
          variants.push({ ...paramsA, walletId: B.wallet.id, addressId: B.child.id });
        if (path.includes('{transactionsId}') || path.includes('{transactionId}'))
          variants.push({ ...paramsA, walletId: B.wallet.id, transactionsId: A.withdrawal.id, transactionId: A.heldWithdrawal.id });
      }
      if (path.includes('{assetId}')) variants.push({ ...paramsA, walletId: B.wallet.id, assetId: usdc });
      const seen = new Set<string>();
      for (const vars of variants) {
        const base = fill(path, vars);
        if (!base) continue;
        // B's own wallet path with nothing else of A's and no body: not a probe.
        const bodies: unknown[] = [bodyFor(path, schema, 'A')];
        const queries = method === 'GET' ? ['', ...LIST_QUERIES(path)] : [''];
        for (const q of queries)
          for (const body of bodies) {
            const url = q ? `${base}${base.includes('?') ? '&' : '?'}${q}` : base;
            const sig = `${method} ${url} ${JSON.stringify(body)}`;
            if (seen.has(sig)) continue;
            seen.add(sig);
            if (path.includes('regenerate') && vars.walletId !== A.wallet.id) continue;
            for (const [cred, key] of creds) {
              probes++;
              await call(
                cred,
                key(),
                method,
                url,
                method === 'GET' || method === 'DELETE' ? (method === 'GET' ? undefined : undefined) : (body ?? {}),
              );
            }
          }
      }
    }
    // B's own link and page with A's wallet; B's slug with A's checkout.
    for (const [cred, key] of creds) {
      probes += 3;
      await call(cred, key(), 'POST', `/v1/payment_links/${B.link.id}/checkouts`, { walletId: A.wallet.id, asset: 'USDC', amount: '1' });
      await call(cred, key(), 'PATCH', `/v1/payment_links/${B.link.id}`, { accepts: [{ walletId: A.wallet.id }] } as any);
      await call(cred, key(), 'POST', '/v1/policies', {
        name: 'probe',
        priority: 1,
        walletId: B.wallet.id,
        addressId: A.child.id,
        conditions: { types: ['WITHDRAW'] },
        action: 'BLOCK',
      });
    }
    for (const [method, path, form] of [
      ['GET', `/pay/beta-shop/${A.checkout.id}`, undefined],
      ['GET', `/pay/beta-shop/${A.checkout.id}/qr.svg`, undefined],
      ['GET', `/pay/beta-shop/${A.checkout.id}/events`, undefined],
      ['POST', '/pay/beta-shop', { choice: `${A.wallet.id}:${usdc}` }],
      ['POST', '/pay/beta-shop', { choice: `${A.wallet.id}:USDC` }],
    ] as const) {
      probes++;
      const ctl = new AbortController();
      setTimeout(() => ctl.abort(), 1500);
      const res = await fetch(`${h.baseUrl}${path}`, {
        method,
        redirect: 'manual',
        signal: ctl.signal,
        ...(form ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() } : {}),
      }).catch((e) => ({ status: 0, text: async () => String(e), headers: new Headers() }) as any);
      const text = await res.text().catch(() => '');
      records.push({
        cred: 'public',
        method,
        path,
        body: form,
        status: res.status,
        hits: res.status < 300 ? hits(text, path + JSON.stringify(form ?? '')) : [],
        involvesA: true,
        excerpt: `${res.headers.get('location') ?? ''} ${text.slice(0, 200)}`,
      });
    }
    // B's wallet key against B's other wallet: every wallet-path GET and a few writes.
    for (const { method, path, op } of ops) {
      if (!path.startsWith('/v1/wallets/{walletId}') || path.includes('regenerate')) continue;
      const crossBody = bodyFor(path, op.requestBody?.content?.['application/json']?.schema, 'B') ?? {};
      const url = fill(path, {
        walletId: B.wallet2.id,
        addressId: B.child.id,
        assetId: usdc,
        transactionsId: A.deposit.id,
        transactionId: A.deposit.id,
        id: A.beneficiary.id,
      });
      if (!url) continue;
      probes++;
      const res = await h.api(method, url, {
        key: B.wallet1.apiKey,
        ...(method === 'GET' || method === 'DELETE' ? {} : { body: crossBody }),
      });
      records.push({
        cred: 'B.wallet1->B.wallet2',
        method,
        path: url,
        status: res.status,
        hits: [],
        involvesA: false,
        excerpt: JSON.stringify(res.body).slice(0, 200),
      });
    }
    const after = await snapshotA();
    // Event stream of B: nothing of A's, even from A's cursor.
    const stream = await openStream(h.baseUrl, B.bizKey, { query: `after=${A.events[0]?.cursor ?? ''}` });
    const stream2 = await openStream(h.baseUrl, B.bizKey, { query: `walletId=${A.wallet.id}` });
    // A new event of A's while B listens.
    ok(
      await h.api('POST', `/v1/wallets/${A.wallet.id}/webhooks/trigger`, { key: A.wallet.apiKey, body: { event: 'deposit.success' } }),
      'A trigger',
    );
    await new Promise((r) => setTimeout(r, 2500));
    stream.close();
    stream2.close();
    records.push({
      cred: 'B.biz',
      method: 'STREAM',
      path: `/v1/events/stream?after=A`,
      status: stream.status,
      hits: hits(JSON.stringify(stream.messages), ''),
      involvesA: true,
      excerpt: JSON.stringify(stream.messages).slice(0, 300),
    });
    records.push({
      cred: 'B.biz',
      method: 'STREAM',
      path: `/v1/events/stream?walletId=A`,
      status: stream2.status,
      hits: stream2.status === 200 ? hits(JSON.stringify(stream2.messages), '') : [],
      involvesA: true,
      excerpt: (stream2.body || JSON.stringify(stream2.messages)).slice(0, 300),
    });
    const feedB = await h.api('GET', '/v1/events?limit=100', { key: B.bizKey });
    records.push({
      cred: 'B.biz',
      method: 'GET',
      path: '/v1/events (all)',
      status: feedB.status,
      hits: hits(JSON.stringify(feedB.body), ''),
      involvesA: false,
      excerpt: '',
    });
    await new Promise((r) => setTimeout(r, 1500));
    const hooksB = recB.requests.map((r) => r.body).join('\n');
    records.push({
      cred: 'B.receiver',
      method: 'WEBHOOK',
      path: recB.url,
      status: 200,
      hits: hits(hooksB, ''),
      involvesA: false,
      excerpt: hooksB.slice(0, 200),
    });

    const changed: string[] = [];
    for (const [k, v] of before)
      if (after.get(k) !== v) changed.push(`${k}\n  before ${v.slice(0, 600)}\n  after  ${after.get(k)?.slice(0, 600)}`);
    for (const k of after.keys()) if (!before.has(k)) changed.push(`NEW ${k} ${after.get(k)!.slice(0, 600)}`);

    const leaks = records.filter((r) => r.hits.length > 0);
    const twoxxA = records.filter((r) => r.status < 300 && r.involvesA);
    const crossWallet = records.filter((r) => r.cred === 'B.wallet1->B.wallet2' && r.status < 300);
    // A probe that reached nothing would pass: it must have called every operation in every form.
    expect(records.length).toBeGreaterThan(500);
    expect(leaks.map((l) => `${l.cred} ${l.method} ${l.path} ${l.status} ${l.hits.join(',')}`)).toEqual([]);
    expect(crossWallet.map((l) => `${l.method} ${l.path} ${l.status}`)).toEqual([]);
    expect(changed).toEqual([]);
  }, 600_000);
});

describe('tenancy probe: business-wide objects of B', () => {
  it("B's business-wide BLOCK policy, beneficiaries and rules do not touch A's payouts", async () => {
    const p = await h.api('POST', '/v1/policies', {
      key: B.grant.apiKey,
      body: { name: 'beta blocks all', priority: 0, conditions: { types: ['WITHDRAW', 'BATCH_ITEM'] }, action: 'BLOCK' },
    });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    const res = await h.api('POST', `/v1/wallets/${A.wallet.id}/withdraw`, {
      key: A.wallet.apiKey,
      body: { assetId: usdc, address: outside(), amount: '1', reference: 'alpha-after-b-policy' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.status).not.toBe('BLOCKED');
    await eventually(
      async () => (await h.api('GET', `/v1/wallets/${A.wallet.id}/transactions/${res.body.data.id}`, { key: A.wallet.apiKey })).body.data,
      (t) => t?.status === 'SUCCESS',
      30_000,
    );
    await new Promise((r) => setTimeout(r, 1000));
    const evalA = await h.api('POST', '/v1/policies/evaluate', {
      key: A.grant.apiKey,
      body: { walletId: A.wallet.id, type: 'WITHDRAW', assetId: usdc, amount: '1', address: outside() },
    });
    expect(JSON.stringify(evalA.body)).not.toContain('beta blocks all');
    expect((await h.api('DELETE', `/v1/policies/${p.body.data.id}`, { key: B.grant.apiKey })).status).toBe(200);
  });
});

describe('tenancy probe: dashboard', () => {
  it("B's dashboard user cannot see or change anything of A's", async () => {
    const aUser = await createDashboardUser(h, A.businessId, 'alpha-owner@example.com', 'alpha-owner-password-1');
    await createDashboardUser(h, B.businessId, 'beta-owner@example.com', 'beta-owner-password-1');
    const ca = new DashClient(h.baseUrl);
    expect((await ca.login('alpha-owner@example.com', 'alpha-owner-password-1')).status).toBe(303);
    const inv = await ca.submit('/dashboard/users', '/dashboard/users/invite', { email: 'alpha-invitee@example.com', role: 'viewer' });
    expect(inv.status).toBeLessThan(300);
    const { rows: invs } = await sql<{ id: string }>`SELECT id FROM dashboard_invitations WHERE business_id = ${A.businessId}`.execute(
      h.database.db,
    );
    const { rows: dels } = await sql<{ id: string }>`SELECT id FROM webhook_deliveries WHERE wallet_id = ${A.wallet.id} LIMIT 1`.execute(
      h.database.db,
    );
    const aInvitation = invs[0]!.id;
    const aDelivery = dels[0]?.id ?? A.deposit.id;
    const before = await snapshotA();

    const c = new DashClient(h.baseUrl);
    expect((await c.login('beta-owner@example.com', 'beta-owner-password-1')).status).toBe(303);
    const a = A.wallet.id;
    const bw = B.wallet.id;
    const found: string[] = [];
    const all: string[] = [];
    const note = (what: string, page: { status: number; text: string; location: string | null }, sent: string) => {
      const hs = page.status < 400 ? hits(page.text + (page.location ?? ''), sent) : [];
      all.push(`${page.status} ${what}`);
      if (hs.length) found.push(`${what} ${page.status}: ${hs.join(',')}`);
    };
    for (const path of [
      `/dashboard/wallets`,
      `/dashboard/wallets/${a}`,
      `/dashboard/wallets/${a}/addresses`,
      `/dashboard/wallets/${a}/transactions`,
      `/dashboard/wallets/${bw}/transactions?address=${A.child.id}`,
      `/dashboard/wallets/${a}/transactions/${A.deposit.id}`,
      `/dashboard/wallets/${bw}/transactions/${A.deposit.id}`,
      `/dashboard/wallets/${bw}/transactions/${A.heldWithdrawal.id}`,
      `/dashboard/wallets/${a}/withdraw`,
      `/dashboard/payment-links`,
      `/dashboard/payment-links/${A.link.id}`,
      `/dashboard/transactions`,
      `/dashboard/transactions?walletId=${a}`,
      `/dashboard/transactions?hash=${A.depositHash}`,
      `/dashboard/transactions?address=${A.child.address}`,
      `/dashboard/transactions?reference=alpha-ref-w`,
      `/dashboard/deliveries`,
      `/dashboard/deliveries?walletId=${a}`,
      `/dashboard/approvals`,
      `/dashboard/developers`,
      `/dashboard/reports`,
      `/dashboard/policies`,
      `/dashboard/users`,
      `/dashboard/account`,
    ])
      note(`GET ${path}`, await c.get(path), path);
    const posts: [string, Record<string, string>][] = [
      [`/dashboard/wallets/${a}/addresses`, { name: 'probe' }],
      [`/dashboard/wallets/${a}/transactions/${A.deposit.id}/aml-release`, {}],
      [`/dashboard/wallets/${a}/transactions/${A.deposit.id}/resend`, {}],
      [`/dashboard/wallets/${bw}/transactions/${A.deposit.id}/resend`, {}],
      [`/dashboard/wallets/${bw}/transactions/${A.deposit.id}/aml-release`, {}],
      [`/dashboard/approvals/${A.approval.id}/approve`, {}],
      [`/dashboard/approvals/${A.approval.id}/reject`, {}],
      [`/dashboard/approvals/${A.approval.id}/override`, {}],
      [`/dashboard/approvals/${A.heldWithdrawal.id}/override`, {}],
      [`/dashboard/developers/api-keys/${A.apiKey.id}/revoke`, {}],
      [`/dashboard/developers/${a}/key`, {}],
      [`/dashboard/developers/${a}/webhook`, { webhookUrl: 'http://127.0.0.1:9/x' }],
      [`/dashboard/developers/${a}/webhook-secret`, {}],
      [`/dashboard/developers/${a}/test`, {}],
      [`/dashboard/deliveries/${aDelivery}/resend`, {}],
      [`/dashboard/wallets/${a}/withdraw`, { assetId: usdc, address: B.wallet.address, amount: '1' }],
      [`/dashboard/payment-links/${A.link.id}/active`, { active: 'false' }],
      [`/dashboard/wallets/${a}/assets/${usdc}`, { isActive: 'false' }],
      [`/dashboard/wallets/${a}/sweeping`, { threshold: '0' }],
      [`/dashboard/users/${aUser.id}/role`, { role: 'viewer' }],
      [`/dashboard/users/${aUser.id}/remove`, {}],
      [`/dashboard/invitations/${aInvitation}/revoke`, {}],
    ];
    for (const [action, form] of posts)
      note(`POST ${action}`, await c.submit('/dashboard/developers', action, form), action + JSON.stringify(form));
    const after = await snapshotA();
    const changed: string[] = [];
    for (const [k, v] of before)
      if (after.get(k) !== v) changed.push(`${k}\n  before ${v.slice(0, 400)}\n  after  ${after.get(k)?.slice(0, 400)}`);
    for (const k of after.keys()) if (!before.has(k)) changed.push(`NEW ${k} ${after.get(k)!.slice(0, 400)}`);
    const { rows: userRows } = await sql<{
      role: string;
      disabled_at: Date | null;
    }>`SELECT role, disabled_at FROM dashboard_users WHERE id = ${aUser.id}`.execute(h.database.db);
    const { rows: invRows } = await sql<{
      revoked_at: Date | null;
    }>`SELECT revoked_at FROM dashboard_invitations WHERE id = ${aInvitation}`.execute(h.database.db);
    expect(found).toEqual([]);
    expect(changed).toEqual([]);
    expect(userRows[0]).toMatchObject({ disabled_at: null });
    expect(invRows[0]).toMatchObject({ revoked_at: null });
  }, 120_000);
});
