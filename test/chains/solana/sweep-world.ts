/**
 * A Solana sweep world for the ssweep tests (test/chains/solana/sweep*.test.ts): the
 * validator stand-in (litesvm, the real SPL Token programs) with short slots, the real service
 * (harness) with two chains-file Solana chains on it, one that leaves a swept child's token
 * account open (`sweepCloseAccounts` absent: the default) and one that closes it
 * (`sweepCloseAccounts: true`), and helpers: wallets through HTTP, deposits sent by an outside
 * payer (creating the child's token account when missing) and found by the real indexer,
 * balances read from the stand-in.
 */
import { sql } from 'kysely';
import { createSolanaRpc, type Address, type KeyPairSigner } from '@solana/kit';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { getTransferSolInstruction } from '@solana-program/system';
import { resolveChain } from '../../../src/configuration.js';
import { type ChainConfig } from '../../../src/config/chains.js';
import { DEVNET_CHAINS } from '../../../src/devnet/devnet.js';
import { startSolanaStandIn, type SolanaStandIn } from '../../../src/devnet/solana/index.js';
import { ata, fundedSigner, send, type World } from '../../../src/devnet/solana/test-support.js';
import { startHarness, type Harness } from '../../support/harness.js';
import { eventually } from '../../support/fixtures.js';

/** Rent-exempt minimum of a 165-byte SPL token account. */
export const TOKEN_ACCOUNT_RENT = 2_039_280n;

export interface SolWallet {
  id: string;
  apiKey: string;
  address: string;
  slug: string;
}

export interface SweepWorld {
  sol: SolanaStandIn;
  h: Harness;
  rpc: ReturnType<typeof createSolanaRpc>;
  usdc: Address;
  /** An outside payer holding SOL and USDC. */
  payer: KeyPairSigner;
  /** Every chain of the harness, for a worker in another process. */
  chains: ChainConfig[];
  stop(): Promise<void>;
}

export const OPEN = 'sol-sweep';
export const CLOSE = 'sol-close';

export async function startSweepWorld(opts: { webhookUrl?: string; worker?: boolean } = {}): Promise<SweepWorld> {
  const sol = await startSolanaStandIn({
    port: 0,
    slotMs: 50,
    tokens: [
      { symbol: 'USDC', decimals: 6 },
      { symbol: 'USDT', decimals: 6 },
    ],
  });
  const usdc = sol.tokens[0]!.mint as Address;
  const chain = (slug: string, chainId: number, extra: { sweepCloseAccounts?: boolean }) =>
    resolveChain(
      {
        blockchain: slug,
        family: 'solana',
        network: 'testnet',
        rpcUrl: sol.url,
        chainId,
        name: 'Solana',
        symbol: 'SOL',
        confirmations: 1,
        assets: [
          { symbol: 'USDC', address: usdc, decimals: 6 },
          { symbol: 'USDT', address: sol.tokens[1]!.mint, decimals: 6 },
        ],
        ...extra,
      },
      'test',
    );
  const extraChains = [chain(OPEN, 990_401, {}), chain(CLOSE, 990_402, { sweepCloseAccounts: true })];
  const h = await startHarness({
    specs: [DEVNET_CHAINS[0]!],
    worker: opts.worker ?? true,
    extraChains,
    services: { outbound: { firstTrackDelayMs: 100, maxTrackDelayMs: 400 } },
  });
  const rpc = createSolanaRpc(sol.url);
  const world: World = { standIn: sol, rpc, usdc };
  const payer = await fundedSigner(world, 100_000_000_000n);
  await sol.control.mintTo(usdc, payer.address, 1_000_000_000_000n);
  // Each indexer starts at the head: deposits made from now on are found.
  for (const slug of [OPEN, CLOSE]) await h.services.deposits.indexer(h.services.catalogue.findChain(slug, 'testnet')!).step();
  return {
    sol,
    h,
    rpc,
    usdc,
    payer,
    chains: [...h.devnet.chains.map((c) => c.config), ...extraChains],
    async stop() {
      await h.stop();
      await sol.stop();
    },
  };
}

/** A wallet on the chain, SOL and USDC active, its master funded with `lamports` of SOL. */
export async function newWallet(w: SweepWorld, slug: string, lamports = 2_000_000_000n, webhookUrl?: string): Promise<SolWallet> {
  const created = await w.h.api('POST', '/v1/wallets', {
    key: w.h.businessKey,
    body: { blockchain: slug, network: 'testnet', name: slug },
  });
  if (created.status !== 200) throw new Error(JSON.stringify(created.body));
  const wallet = created.body.data as { id: string; apiKey: string; address: string };
  if (webhookUrl) await w.h.api('PATCH', `/v1/wallets/${wallet.id}`, { key: wallet.apiKey, body: { webhookUrl } });
  for (const a of w.h.services.catalogue.findChain(slug, 'testnet')!.assets) {
    const res = await w.h.api('PATCH', `/v1/wallets/${wallet.id}/assets/${a.id}`, { key: wallet.apiKey, body: { isActive: true } });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  }
  if (lamports > 0n) await w.sol.control.fund(wallet.address, lamports);
  // Confirmed (one block on top of it) before anyone reads the master's balance.
  await w.sol.control.produceSlots(2);
  await eventually(
    () => lamportsOf(w, wallet.address),
    (v) => v === lamports,
  );
  return { ...wallet, slug };
}

/** A new child address of the wallet (auto-sweep as the body says: on by default). */
export async function newChild(
  w: SweepWorld,
  wallet: SolWallet,
  body: Record<string, unknown> = {},
): Promise<{ id: string; address: string }> {
  const res = await w.h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.data as { id: string; address: string };
}

/** The outside payer sends USDC to the owner `to`, creating its token account when missing (the payer pays its rent). */
export async function sendUsdc(w: SweepWorld, to: string, amount: bigint): Promise<string> {
  const destination = await ata(to as Address, w.usdc);
  return send(w.rpc, w.payer, [
    getCreateAssociatedTokenIdempotentInstruction({
      payer: w.payer,
      ata: destination,
      owner: to as Address,
      mint: w.usdc,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    }),
    getTransferCheckedInstruction({
      source: await ata(w.payer.address, w.usdc),
      mint: w.usdc,
      destination,
      authority: w.payer,
      amount,
      decimals: 6,
    }),
  ]);
}

export async function sendSol(w: SweepWorld, to: string, lamports: bigint): Promise<string> {
  return send(w.rpc, w.payer, [getTransferSolInstruction({ source: w.payer, destination: to as Address, amount: lamports })]);
}

/** Waits until the indexer has confirmed the deposit of signature `hash` (SUCCESS); returns its transaction id. */
export async function confirmed(w: SweepWorld, slug: string, hash: string, stepIndexer = true): Promise<string> {
  const indexer = w.h.services.deposits.indexer(w.h.services.catalogue.findChain(slug, 'testnet')!);
  const rows = await eventually(
    async () => {
      if (stepIndexer) await indexer.step();
      const { rows } = await sql<{ id: string; status: string }>`
        SELECT id, status FROM transactions WHERE type = 'DEPOSIT' AND hash = ${hash}`.execute(w.h.database.db);
      return rows;
    },
    (r) => r[0]?.status === 'SUCCESS',
    30_000,
  );
  return rows[0]!.id;
}

/** The deposit once its sweep ended (assetSwept, or the sweep failed), through the API. */
export async function swept(w: SweepWorld, wallet: SolWallet, depositId: string, timeoutMs = 30_000): Promise<Record<string, any>> {
  return eventually(
    async () => (await w.h.api('GET', `/v1/wallets/${wallet.id}/transactions/${depositId}`, { key: wallet.apiKey })).body.data,
    (t) => t.assetSwept === true || (t.assetSweptResponse && 'error' in t.assetSweptResponse),
    timeoutMs,
  );
}

/** The outbound rows of every sweep of the deposit's address and asset, oldest first. */
export async function sweepRows(w: SweepWorld, depositId: string) {
  const { rows } = await sql<{ stage: string; purpose: string; hash: string | null; from_address: string; fee_payer: string | null }>`
    SELECT o.stage, o.purpose, o.hash, o.from_address, o.fee_payer FROM outbound_txs o
      JOIN sweeps s ON s.id = o.owner_id
      JOIN transactions t ON t.address_id = s.address_id AND t.asset_id = s.asset_id
     WHERE t.id = ${depositId} ORDER BY o.created_at, o.id`.execute(w.h.database.db);
  return rows;
}

export async function lamportsOf(w: SweepWorld, owner: string): Promise<bigint> {
  return (await w.rpc.getBalance(owner as Address, { commitment: 'confirmed' }).send()).value;
}

/** The owner's USDC (its associated token account; 0 when it has none). */
export async function usdcOf(w: SweepWorld, owner: string): Promise<bigint> {
  const account = await w.rpc.getAccountInfo(await ata(owner as Address, w.usdc), { commitment: 'confirmed', encoding: 'base64' }).send();
  if (!account.value) return 0n;
  return BigInt((await w.rpc.getTokenAccountBalance(await ata(owner as Address, w.usdc), { commitment: 'confirmed' }).send()).value.amount);
}

/** Whether the owner's USDC token account exists, and its lamports. */
export async function tokenAccountOf(w: SweepWorld, owner: string): Promise<bigint | null> {
  const account = await w.rpc.getAccountInfo(await ata(owner as Address, w.usdc), { commitment: 'confirmed', encoding: 'base64' }).send();
  return account.value ? account.value.lamports : null;
}

/** What the chain says a transaction charged its fee payer (meta.fee), and its fee payer. */
export async function feeOf(w: SweepWorld, signature: string): Promise<{ fee: bigint; feePayer: string; signers: string[] }> {
  const tx = await w.rpc
    .getTransaction(signature as never, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
    .send();
  if (!tx) throw new Error(`no transaction ${signature}`);
  const keys = tx.transaction.message.accountKeys;
  return {
    fee: tx.meta!.fee,
    feePayer: keys[0]!,
    signers: keys.slice(0, tx.transaction.message.header.numRequiredSignatures),
  };
}

/** A decimal SOL string (9 decimals) in lamports, exactly. */
export function lamports(decimal: string): bigint {
  const [whole, frac = ''] = decimal.split('.');
  return BigInt(whole!) * 1_000_000_000n + BigInt(frac.padEnd(9, '0'));
}
