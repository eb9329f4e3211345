/**
 * A Solana chain in a test world for signing.test.ts and treasury.test.ts (and, through
 * withdrawals-world.ts, the withdrawal tests): the validator
 * stand-in (litesvm, 50 ms slots) with USDC, a chains-file chain of the solana family on it
 * (the registry builds its SolanaAdapter), a wallet created through HTTP with SOL and USDC
 * enabled, its master funded from the stand-in's faucet.
 */
import { expect } from 'vitest';
import { sql } from 'kysely';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { resolveChain } from '../../../src/configuration.js';
import { DEVNET_CHAINS } from '../../../src/devnet/devnet.js';
import { startSolanaStandIn, type SolanaStandIn } from '../../../src/devnet/solana/index.js';
import type { SolanaAdapter } from '../../../src/chains/solana/adapter.js';
import { startHarness, type Harness, type HarnessOptions } from '../../support/harness.js';
import { eventually } from '../../support/fixtures.js';
import { startReceiver, type Receiver } from '../../support/receiver.js';
import { verifyWebhook } from '../../../packages/sdk/src/webhooks/index.js';

export interface SolanaWorld {
  sol: SolanaStandIn;
  h: Harness;
  /** Receives the wallet's webhooks. */
  receiver: Receiver;
  slug: string;
  usdc: string;
  adapter: SolanaAdapter;
  wallet: { id: string; apiKey: string; address: string };
  solId: string;
  usdcId: string;
  stop(): Promise<void>;
}

export async function startSolanaWorld(slug: string, chainId: number, opts: Partial<HarnessOptions> = {}): Promise<SolanaWorld> {
  const sol = await startSolanaStandIn({ port: 0, slotMs: 50, tokens: [{ symbol: 'USDC', decimals: 6 }] });
  const usdc = sol.tokens[0]!.mint;
  const chain = resolveChain(
    {
      blockchain: slug,
      family: 'solana',
      network: 'testnet',
      rpcUrl: sol.url,
      chainId,
      name: 'Solana',
      symbol: 'SOL',
      confirmations: 1,
      assets: [{ symbol: 'USDC', address: usdc, decimals: 6 }],
    },
    'test',
  );
  const h = await startHarness({
    specs: [DEVNET_CHAINS[0]!],
    worker: true,
    extraChains: [chain],
    services: { outbound: { firstTrackDelayMs: 100, maxTrackDelayMs: 400 } },
    ...opts,
  });
  const created = await h.api('POST', '/v1/wallets', { key: h.businessKey, body: { blockchain: slug, network: 'testnet', name: 'Sol' } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const wallet = created.body.data as SolanaWorld['wallet'];
  const receiver = await startReceiver();
  const patched = await h.api('PATCH', `/v1/wallets/${wallet.id}`, { key: wallet.apiKey, body: { webhookUrl: receiver.url } });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  const found = h.services.catalogue.findChain(slug, 'testnet')!;
  const solId = found.assets.find((a) => a.is_native)!.id;
  const usdcId = found.assets.find((a) => a.symbol === 'USDC')!.id;
  for (const id of [solId, usdcId]) {
    const res = await h.api('PATCH', `/v1/wallets/${wallet.id}/assets/${id}`, { key: wallet.apiKey, body: { isActive: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  return {
    sol,
    h,
    receiver,
    slug,
    usdc,
    adapter: found.adapter as unknown as SolanaAdapter,
    wallet,
    solId,
    usdcId,
    async stop() {
      await receiver.close();
      await h?.stop();
      await sol?.stop();
    },
  };
}

/** A child address of the wallet (auto-sweep off). */
export async function childOf(w: SolanaWorld): Promise<{ id: string; address: string }> {
  const res = await w.h.api('POST', `/v1/wallets/${w.wallet.id}/addresses`, { key: w.wallet.apiKey, body: { disableAutoSweep: true } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** Rows of the tables a request may write, to show that a refused one wrote nothing. */
export async function writtenRows(w: SolanaWorld): Promise<{ transactions: number; outbound: number }> {
  const { rows } = await sql<{ t: string; o: string }>`
    SELECT (SELECT count(*) FROM transactions) AS t, (SELECT count(*) FROM outbound_txs) AS o`.execute(w.h.database.db);
  return { transactions: Number(rows[0]!.t), outbound: Number(rows[0]!.o) };
}

/** A fresh outside Solana address (and its key). */
export function outsideAccount(): { address: string; seed: Uint8Array } {
  const seed = ed25519.utils.randomPrivateKey();
  return { address: base58.encode(ed25519.getPublicKey(seed)), seed };
}

/** SOL and token balances as the stand-in reads them (confirmed), once they equal `want`. */
export async function balancesOf(w: SolanaWorld, queries: { owner: string; token: string | null }[]): Promise<bigint[]> {
  return w.adapter.getBalances(queries);
}

export async function waitBalance(w: SolanaWorld, owner: string, token: string | null, want: bigint): Promise<void> {
  await eventually(
    async () => (await w.adapter.getBalances([{ owner, token }]))[0],
    (v) => v === want,
    15_000,
  );
}

/** A call on the world's wallet, with its key. */
export const walletApi = (w: SolanaWorld, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
  w.h.api(method, `/v1/wallets/${w.wallet.id}${path}`, { key: w.wallet.apiKey, ...(body !== undefined ? { body } : {}) });

export async function txOf(w: SolanaWorld, id: string): Promise<Record<string, any>> {
  const res = await walletApi(w, 'GET', `/transactions/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** The transaction once settled (not PENDING, confirmed). */
export function settled(w: SolanaWorld, id: string, timeout = 30_000): Promise<Record<string, any>> {
  return eventually(
    () => txOf(w, id),
    (t) => t.status !== 'PENDING' && t.confirmed === true,
    timeout,
  );
}

/** The verified webhooks of `event` about `id` received so far (at least `count`, waited for). */
export function events(w: SolanaWorld, id: string, event: string, count = 1) {
  const read = async () =>
    w.receiver.requests
      .filter((r) => r.body.includes(id))
      .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey: w.wallet.apiKey, replay: false }))
      .filter((e) => e.event === event && e.data.id === id);
  return eventually(read, (list) => list.length >= count, 20_000);
}
