/**
 * Tron chains behind the real service, for every Tron test file and the sweep benchmark, set
 * up as test/chains/tron/e2e.test.ts does: the java-tron stand-in with 100 ms blocks,
 * chains-file chains of the tron family on it (the registry builds their TronAdapters), a
 * harness with a worker, wallets created through HTTP with TRX and USDT enabled and their
 * masters funded from the stand-in's faucet. The helpers below read through the API, the
 * database and the stand-in, as the tests assert.
 */
import { expect } from 'vitest';
import { sql } from 'kysely';
import { resolveChain } from '../../../src/configuration.js';
import type { ChainConfig, ChainEntry } from '../../../src/config/chains.js';
import { DEVNET_CHAINS } from '../../../src/devnet/devnet.js';
import type { TronStandIn } from '../../../src/devnet/tron/index.js';
import { post, startForTest } from '../../../src/devnet/tron/testkit.js';
import { tronHex } from '../../../src/chains/tron/codec.js';
import { verifyWebhook } from '../../../packages/sdk/src/webhooks/index.js';
import { startHarness, type Harness } from '../../support/harness.js';
import { startReceiver, type Receiver } from '../../support/receiver.js';
import { eventually } from '../../support/fixtures.js';

/** Blocks a deposit waits for: more than the stand-in's solidification depth (19). */
export const CONFIRMATIONS = 20;

/** A chains-file Tron chain on the stand-in, with its USDT. */
export function tronChain(s: TronStandIn, slug: string, chainId: number, extra: Partial<ChainEntry> = {}): ChainConfig {
  return resolveChain(
    {
      blockchain: slug,
      family: 'tron',
      network: 'testnet',
      rpcUrl: s.url,
      chainId,
      name: 'Tron',
      symbol: 'TRX',
      tokenStandard: 'TRC20',
      confirmations: CONFIRMATIONS,
      multicall3: s.multicall.address,
      assets: [{ symbol: 'USDT', address: s.tokens[0]!.address, decimals: 6 }],
      ...extra,
    },
    'test',
  );
}

/** The service with the devnet's first anvil chain and `chains`, its outbound tracking fast. */
export function startTronService(chains: ChainConfig[], worker = true): Promise<Harness> {
  return startHarness({
    specs: [DEVNET_CHAINS[0]!],
    worker,
    extraChains: chains,
    services: { outbound: { firstTrackDelayMs: 100, maxTrackDelayMs: 400 } },
  });
}

export interface TronWallet {
  id: string;
  apiKey: string;
  address: string;
  slug: string;
  trxId: string;
  usdtId: string;
}

/**
 * A wallet on `slug` made through HTTP, TRX and USDT enabled, its master funded (sun of TRX,
 * USDT base units) from the stand-in's faucet; the funding lands with the next block.
 */
export async function createTronWallet(
  h: Harness,
  s: TronStandIn,
  slug: string,
  fund: { trx: number; usdt: bigint; webhookUrl?: string },
): Promise<TronWallet> {
  const created = await h.api('POST', '/v1/wallets', { key: h.businessKey, body: { blockchain: slug, network: 'testnet', name: slug } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const w = created.body.data as { id: string; apiKey: string; address: string };
  if (fund.webhookUrl) {
    const patched = await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { webhookUrl: fund.webhookUrl } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  }
  const assets = h.services.catalogue.findChain(slug, 'testnet')!.assets;
  const trxId = assets.find((a) => a.is_native)!.id;
  const usdtId = assets.find((a) => a.symbol === 'USDT')!.id;
  for (const id of [trxId, usdtId]) {
    const res = await h.api('PATCH', `/v1/wallets/${w.id}/assets/${id}`, { key: w.apiKey, body: { isActive: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  await s.control.fund(w.address, { trx: fund.trx, tokens: { USDT: fund.usdt } });
  return { id: w.id, apiKey: w.apiKey, address: w.address, slug, trxId, usdtId };
}

export interface TronWorld {
  s: TronStandIn;
  h: Harness;
  receiver: Receiver;
  slug: string;
  usdt: string;
  wallet: TronWallet;
  trxId: string;
  usdtId: string;
  stop(): Promise<void>;
}

/** One Tron chain, one wallet on it with a webhook receiver, its master funded. */
export async function startTronWorld(
  slug: string,
  opts: { chainId?: number; masterSun?: number; masterUsdt?: bigint } = {},
): Promise<TronWorld> {
  const s = await startForTest({ blockTimeMs: 100 });
  const h = await startTronService([tronChain(s, slug, opts.chainId ?? 990_301)]);
  const receiver = await startReceiver();
  const wallet = await createTronWallet(h, s, slug, {
    trx: opts.masterSun ?? 500_000_000,
    usdt: opts.masterUsdt ?? 1_000_000_000n,
    webhookUrl: receiver.url,
  });
  await s.control.produceBlocks(1);
  return {
    s,
    h,
    receiver,
    slug,
    usdt: s.tokens[0]!.address,
    wallet,
    trxId: wallet.trxId,
    usdtId: wallet.usdtId,
    async stop() {
      await receiver?.close();
      await h?.stop();
      await s?.stop();
    },
  };
}

/** A child address of the world's wallet, auto-sweep off. */
export async function childOf(w: TronWorld): Promise<{ id: string; address: string }> {
  const res = await walletApi(w, 'POST', '/addresses', { disableAutoSweep: true });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** Rows of the tables a request may write, to show that a refused one wrote nothing. */
export async function writtenRows(w: { h: Harness }): Promise<{ transactions: number; outbound: number }> {
  const { rows } = await sql<{ t: string; o: string }>`
    SELECT (SELECT count(*) FROM transactions) AS t, (SELECT count(*) FROM outbound_txs) AS o`.execute(w.h.database.db);
  return { transactions: Number(rows[0]!.t), outbound: Number(rows[0]!.o) };
}

/** Broadcasts a signed transaction's hex as a Tron client does (/wallet/broadcasthex) and seals it into a block. */
export async function broadcastHex(
  w: { s: TronStandIn },
  hex: string,
): Promise<{ result?: boolean; txid?: string; code?: string; message?: string }> {
  const res = await post(w.s, 'wallet/broadcasthex', { transaction: hex });
  await w.s.control.produceBlocks(1);
  return res;
}

/** 41-hex of a T… address. */
export const hex41 = (address: string) => tronHex(address)!;

/** A 6-decimal string (TRX or USDT) in base units, exactly; negative amounts too. */
export function units(decimal: string): bigint {
  const negative = decimal.startsWith('-');
  const [whole, frac = ''] = decimal.replace('-', '').split('.');
  const v = BigInt(whole!) * 1_000_000n + BigInt(frac.padEnd(6, '0'));
  return negative ? -v : v;
}

/** A call on the world's wallet, with its key. */
export const walletApi = (w: TronWorld, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
  w.h.api(method, `/v1/wallets/${w.wallet.id}${path}`, { key: w.wallet.apiKey, ...(body !== undefined ? { body } : {}) });

export async function txOf(w: TronWorld, id: string): Promise<Record<string, any>> {
  const res = await walletApi(w, 'GET', `/transactions/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

export async function settled(w: TronWorld, id: string, timeout = 40_000): Promise<Record<string, any>> {
  return eventually(
    () => txOf(w, id),
    (t) => t.status !== 'PENDING' && t.confirmed === true,
    timeout,
  );
}

export async function outboundRows(w: TronWorld, ownerId: string) {
  const { rows } = await sql<{ stage: string; purpose: string; hash: string | null; error: string | null }>`
    SELECT stage, purpose, hash, error FROM outbound_txs WHERE owner_id = ${ownerId} ORDER BY created_at, id`.execute(w.h.database.db);
  return rows;
}

/** The verified webhooks of `event` about `id` received so far (at least `count`, waited for). */
export async function events(w: TronWorld, id: string, event: string, count = 1) {
  const read = async () =>
    w.receiver.requests
      .filter((r) => r.body.includes(id))
      .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey: w.wallet.apiKey, replay: false }))
      .filter((e) => e.event === event && e.data.id === id);
  return eventually(read, (list) => list.length >= count, 20_000);
}
