/**
 * A Tron chain in a test world, as test/chains/tron/e2e.test.ts sets it up: the java-tron
 * stand-in with short blocks, a chains-file chain of the tron family on it (the registry
 * builds its TronAdapter), a wallet created through HTTP with TRX and USDT enabled and its
 * master funded from the stand-in's faucet. Shared by contracts.test.ts and signing.test.ts.
 */
import { expect } from 'vitest';
import { sql } from 'kysely';
import { resolveChain } from '../../../src/config/chains.js';
import { DEVNET_CHAINS } from '../../../src/devnet/devnet.js';
import type { TronStandIn } from '../../../src/devnet/tron/index.js';
import { post, startForTest } from '../../../src/devnet/tron/testkit.js';
import { startHarness, type Harness } from '../../support/harness.js';

export interface TronWorld {
  s: TronStandIn;
  h: Harness;
  slug: string;
  usdt: string;
  wallet: { id: string; apiKey: string; address: string };
  trxId: string;
  usdtId: string;
  stop(): Promise<void>;
}

export async function startTronWorld(slug: string, chainId: number): Promise<TronWorld> {
  const s = await startForTest({ blockTimeMs: 100 });
  const usdt = s.tokens[0]!.address;
  const chain = resolveChain(
    {
      blockchain: slug,
      family: 'tron',
      network: 'testnet',
      rpcUrl: s.url,
      chainId,
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
  const created = await h.api('POST', '/v1/wallets', { key: h.businessKey, body: { blockchain: slug, network: 'testnet', name: 'Tron' } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const wallet = created.body.data as TronWorld['wallet'];
  const assets = h.services.catalogue.findChain(slug, 'testnet')!.assets;
  const trxId = assets.find((a) => a.is_native)!.id;
  const usdtId = assets.find((a) => a.symbol === 'USDT')!.id;
  for (const id of [trxId, usdtId]) {
    const res = await h.api('PATCH', `/v1/wallets/${wallet.id}/assets/${id}`, { key: wallet.apiKey, body: { isActive: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  await s.control.fund(wallet.address, { trx: 500_000_000, tokens: { USDT: 1_000_000_000n } });
  await s.control.produceBlocks(1);
  return {
    s,
    h,
    slug,
    usdt,
    wallet,
    trxId,
    usdtId,
    async stop() {
      await h?.stop();
      await s?.stop();
    },
  };
}

/** A child address of the wallet (auto-sweep off: sweeps are another part of issue 15). */
export async function childOf(w: TronWorld): Promise<{ id: string; address: string }> {
  const res = await w.h.api('POST', `/v1/wallets/${w.wallet.id}/addresses`, { key: w.wallet.apiKey, body: { disableAutoSweep: true } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** Rows of the tables a request may write, to show that a refused one wrote nothing. */
export async function writtenRows(w: TronWorld): Promise<{ transactions: number; outbound: number }> {
  const { rows } = await sql<{ t: string; o: string }>`
    SELECT (SELECT count(*) FROM transactions) AS t, (SELECT count(*) FROM outbound_txs) AS o`.execute(w.h.database.db);
  return { transactions: Number(rows[0]!.t), outbound: Number(rows[0]!.o) };
}

/** Broadcasts a signed transaction's hex as a Tron client does (/wallet/broadcasthex) and seals it into a block. */
export async function broadcastHex(
  w: TronWorld,
  hex: string,
): Promise<{ result?: boolean; txid?: string; code?: string; message?: string }> {
  const res = await post(w.s, 'wallet/broadcasthex', { transaction: hex });
  await w.s.control.produceBlocks(1);
  return res;
}

/** A 6-decimal string in base units, exactly. */
export function sun(decimal: string): bigint {
  const [whole, frac = ''] = decimal.split('.');
  return BigInt(whole!) * 1_000_000n + BigInt(frac.padEnd(6, '0'));
}
