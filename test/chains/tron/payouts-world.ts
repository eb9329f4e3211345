/**
 * A Tron chain behind the real service for the payout tests (withdrawals, treasury): the
 * java-tron stand-in with 100 ms blocks, a chains-file chain of the tron family, a harness
 * with a worker, a wallet made through HTTP with TRX and USDT enabled, its master funded
 * from the stand-in's faucet, and a webhook receiver. Set up as test/chains/tron/e2e.test.ts.
 */
import { expect } from 'vitest';
import { sql } from 'kysely';
import { resolveChain } from '../../../src/config/chains.js';
import { DEVNET_CHAINS } from '../../../src/devnet/devnet.js';
import type { TronStandIn } from '../../../src/devnet/tron/index.js';
import { startForTest } from '../../../src/devnet/tron/testkit.js';
import { tronHex } from '../../../src/chains/tron/codec.js';
import { verifyWebhook } from '../../../src/receiver/index.js';
import { startHarness, type Harness } from '../../support/harness.js';
import { startReceiver, type Receiver } from '../../support/receiver.js';
import { eventually } from '../../support/fixtures.js';

export interface TronWorld {
  s: TronStandIn;
  h: Harness;
  receiver: Receiver;
  slug: string;
  usdt: string;
  wallet: { id: string; apiKey: string; address: string };
  trxId: string;
  usdtId: string;
  stop(): Promise<void>;
}

export async function startTronWorld(slug: string, opts: { masterSun?: number; masterUsdt?: bigint } = {}): Promise<TronWorld> {
  const s = await startForTest({ blockTimeMs: 100 });
  const usdt = s.tokens[0]!.address;
  const chain = resolveChain(
    {
      blockchain: slug,
      family: 'tron',
      network: 'testnet',
      rpcUrl: s.url,
      chainId: 990_301,
      name: 'Tron',
      symbol: 'TRX',
      tokenStandard: 'TRC20',
      confirmations: 20,
      multicall3: s.multicall.address,
      assets: [{ symbol: 'USDT', address: usdt, decimals: 6 }],
    },
    'test',
  );
  const h = await startHarness({
    specs: [DEVNET_CHAINS[0]!],
    worker: true,
    extraChains: [chain],
    services: { outbound: { firstTrackDelayMs: 100, maxTrackDelayMs: 400 } },
  });
  const receiver = await startReceiver();
  const created = await h.api('POST', '/v1/wallets', { key: h.businessKey, body: { blockchain: slug, network: 'testnet', name: 'Tron' } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const wallet = created.body.data;
  const patched = await h.api('PATCH', `/v1/wallets/${wallet.id}`, { key: wallet.apiKey, body: { webhookUrl: receiver.url } });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  const assets = h.services.catalogue.findChain(slug, 'testnet')!.assets;
  const trxId = assets.find((a) => a.is_native)!.id;
  const usdtId = assets.find((a) => a.symbol === 'USDT')!.id;
  for (const id of [trxId, usdtId]) {
    const res = await h.api('PATCH', `/v1/wallets/${wallet.id}/assets/${id}`, { key: wallet.apiKey, body: { isActive: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  await s.control.fund(wallet.address, { trx: opts.masterSun ?? 500_000_000, tokens: { USDT: opts.masterUsdt ?? 1_000_000_000n } });
  await s.control.produceBlocks(1);
  return {
    s,
    h,
    receiver,
    slug,
    usdt,
    wallet,
    trxId,
    usdtId,
    async stop() {
      await receiver.close();
      await h.stop();
      await s.stop();
    },
  };
}

/** 41-hex of a T… address. */
export const hex41 = (address: string) => tronHex(address)!;

/** A 6-decimal string in base units, exactly. */
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
  const res = await w.h.api('GET', `/v1/wallets/${w.wallet.id}/transactions/${id}`, { key: w.wallet.apiKey });
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
