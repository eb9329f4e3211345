/**
 * A Solana chain behind the real service for the withdrawal tests: the validator stand-in
 * (50 ms slots, USDC), a chains-file chain of the solana family, a harness with a worker, a
 * wallet made through HTTP with SOL and USDC enabled and a webhook receiver, its master
 * funded from the stand-in's faucet. Set up as test/chains/solana/pipeline.test.ts does.
 */
import { expect } from 'vitest';
import { sql } from 'kysely';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { createSolanaRpc } from '@solana/kit';
import { resolveChain } from '../../../src/config/chains.js';
import { DEVNET_CHAINS } from '../../../src/devnet/devnet.js';
import { startSolanaStandIn, type SolanaStandIn } from '../../../src/devnet/solana/index.js';
import type { SolanaAdapter } from '../../../src/chains/solana/adapter.js';
import { verifyWebhook } from '../../../src/receiver/index.js';
import { startHarness, type Harness } from '../../support/harness.js';
import { startReceiver, type Receiver } from '../../support/receiver.js';
import { eventually } from '../../support/fixtures.js';

export interface SolanaWorld {
  sol: SolanaStandIn;
  rpc: ReturnType<typeof createSolanaRpc>;
  h: Harness;
  adapter: SolanaAdapter;
  receiver: Receiver;
  usdc: string;
  wallet: { id: string; apiKey: string; address: string };
  solId: string;
  usdcId: string;
  stop(): Promise<void>;
}

export async function startSolanaWorld(slug: string): Promise<SolanaWorld> {
  const sol = await startSolanaStandIn({ port: 0, slotMs: 50, tokens: [{ symbol: 'USDC', decimals: 6 }] });
  const usdc = sol.tokens[0]!.mint;
  const chain = resolveChain(
    {
      blockchain: slug,
      family: 'solana',
      network: 'testnet',
      rpcUrl: sol.url,
      chainId: 990_302,
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
  });
  const receiver = await startReceiver();
  const created = await h.api('POST', '/v1/wallets', { key: h.businessKey, body: { blockchain: slug, network: 'testnet', name: 'Sol' } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const wallet = created.body.data;
  const patched = await h.api('PATCH', `/v1/wallets/${wallet.id}`, { key: wallet.apiKey, body: { webhookUrl: receiver.url } });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  const handle = h.services.catalogue.findChain(slug, 'testnet')!;
  const solId = handle.assets.find((a) => a.is_native)!.id;
  const usdcId = handle.assets.find((a) => a.symbol === 'USDC')!.id;
  for (const id of [solId, usdcId]) {
    const res = await h.api('PATCH', `/v1/wallets/${wallet.id}/assets/${id}`, { key: wallet.apiKey, body: { isActive: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  await sol.control.fund(wallet.address, 100_000_000_000n);
  await sol.control.mintTo(usdc, wallet.address, 1_000_000_000n);
  const adapter = handle.adapter as unknown as SolanaAdapter;
  await eventually(
    async () => (await adapter.getBalances([{ owner: wallet.address, token: usdc }]))[0],
    (v) => v === 1_000_000_000n,
  );
  return {
    sol,
    rpc: createSolanaRpc(sol.url),
    h,
    adapter,
    receiver,
    usdc,
    wallet,
    solId,
    usdcId,
    async stop() {
      await receiver.close();
      await h.stop();
      await sol.stop();
    },
  };
}

/** A fresh outside address (no account on chain yet). */
export const outsider = () => base58.encode(ed25519.getPublicKey(ed25519.utils.randomPrivateKey()));

/** A decimal string in base units of `decimals`, exactly. */
export function units(decimal: string, decimals: number): bigint {
  const [whole, frac = ''] = decimal.split('.');
  return BigInt(whole!) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
}
export const lamports = (decimal: string) => units(decimal, 9);

/** Lamports of an owner, and its USDC (its associated token account), at `confirmed`. */
export async function solOf(w: SolanaWorld, owner: string): Promise<bigint> {
  return (await w.adapter.getBalances([{ owner, token: null }]))[0]!;
}
export async function usdcOf(w: SolanaWorld, owner: string): Promise<bigint> {
  return (await w.adapter.getBalances([{ owner, token: w.usdc }]))[0]!;
}

/** A call on the world's wallet, with its key. */
export const walletApi = (w: SolanaWorld, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
  w.h.api(method, `/v1/wallets/${w.wallet.id}${path}`, { key: w.wallet.apiKey, ...(body !== undefined ? { body } : {}) });

/** A child address issued through HTTP. */
export async function childOf(w: SolanaWorld): Promise<{ id: string; address: string }> {
  const res = await walletApi(w, 'POST', '/addresses', {});
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

export async function txOf(w: SolanaWorld, id: string): Promise<Record<string, any>> {
  const res = await walletApi(w, 'GET', `/transactions/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

export async function settled(w: SolanaWorld, id: string, timeout = 30_000): Promise<Record<string, any>> {
  return eventually(
    () => txOf(w, id),
    (t) => t.status !== 'PENDING' && t.confirmed === true,
    timeout,
  );
}

/** The landed transaction as the node has it (meta.fee, account keys, signatures). */
export async function onChain(w: SolanaWorld, signature: string) {
  const tx = await w.rpc
    .getTransaction(signature as never, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
    .send();
  expect(tx, `transaction ${signature} on chain`).not.toBeNull();
  return tx!;
}

export async function outboundRows(w: SolanaWorld, ownerId: string) {
  const { rows } = await sql<{
    stage: string;
    hash: string | null;
    fee_payer: string | null;
    network_data: Record<string, string>;
  }>`SELECT stage, hash, fee_payer, network_data FROM outbound_txs WHERE owner_id = ${ownerId} ORDER BY created_at, id`.execute(
    w.h.database.db,
  );
  return rows;
}

/** The verified webhooks of `event` about `id` received so far (at least `count`, waited for). */
export async function events(w: SolanaWorld, id: string, event: string, count = 1) {
  const read = async () =>
    w.receiver.requests
      .filter((r) => r.body.includes(id))
      .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey: w.wallet.apiKey, replay: false }))
      .filter((e) => e.event === event && e.data.id === id);
  return eventually(read, (list) => list.length >= count, 20_000);
}
