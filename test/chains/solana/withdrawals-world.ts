/**
 * The Solana world of the withdrawal tests: misc-world.ts's stand-in, chain, service and
 * wallet (with its webhook receiver), the master funded with SOL and USDC, and the reads the
 * withdrawal tests assert with (balances, the landed transaction, outbound rows).
 */
import { expect } from 'vitest';
import { sql } from 'kysely';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { createSolanaRpc } from '@solana/kit';
import { eventually } from '../../support/fixtures.js';
import { startSolanaWorld as startBaseWorld, walletApi, type SolanaWorld as BaseWorld } from './misc-world.js';

export { events, settled, txOf, walletApi } from './misc-world.js';

export interface SolanaWorld extends BaseWorld {
  rpc: ReturnType<typeof createSolanaRpc>;
}

/** misc-world's chain and wallet, the master funded with 100 SOL and 1,000 USDC. */
export async function startSolanaWorld(slug: string): Promise<SolanaWorld> {
  const w = await startBaseWorld(slug, 990_302);
  await w.sol.control.fund(w.wallet.address, 100_000_000_000n);
  await w.sol.control.mintTo(w.usdc, w.wallet.address, 1_000_000_000n);
  await eventually(
    async () => (await w.adapter.getBalances([{ owner: w.wallet.address, token: w.usdc }]))[0],
    (v) => v === 1_000_000_000n,
  );
  return { ...w, rpc: createSolanaRpc(w.sol.url) };
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

/** A child address issued through HTTP. */
export async function childOf(w: SolanaWorld): Promise<{ id: string; address: string }> {
  const res = await walletApi(w, 'POST', '/addresses', {});
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
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
