/**
 * `devnet-solana`, the embedded default's Solana chain: the validator stand-in (devnet/solana:
 * Solana's JSON-RPC over litesvm, the real SPL Token programs) with USDC and USDT mints
 * (6 decimals), 400 ms slots and its faucet, its state under the devnet directory so it
 * survives restarts like the anvils'. The service reaches it as a chains-file Solana chain
 * would reach a node: by its URL, through the Solana family's adapter.
 */
import path from 'node:path';
import type { ChainConfig } from '../config/index.js';
import { NATIVE_ADDRESS } from '../config/chains.js';
import type { Logger } from '../lib/logger.js';
import type { DevnetChain } from './types.js';
import { startSolanaStandIn, type SolanaStandIn } from './solana/index.js';
import { devnetBlacklistOf } from './sanctions.js';

export const DEVNET_SOLANA = {
  slug: 'devnet-solana',
  name: 'Solana Devnet (stand-in)',
  chainId: 31_340,
  tokens: [
    { symbol: 'USDC', name: 'USD Coin (devnet)', decimals: 6 },
    { symbol: 'USDT', name: 'Tether USD (devnet)', decimals: 6 },
  ],
} as const;

/** SOL the faucet gives a demo master once (it pays every fee and token-account rent of its wallet): 100 SOL. */
const MASTER_LAMPORTS = 100_000_000_000n;

export async function startDevnetSolana(opts: {
  dir?: string;
  port: number;
  logger: Logger;
}): Promise<{ chain: DevnetChain; stop(): Promise<void> }> {
  const start = (port: number) =>
    startSolanaStandIn({
      ...(opts.dir ? { dir: path.join(opts.dir, DEVNET_SOLANA.slug) } : {}),
      port,
      slotMs: 400,
      tokens: DEVNET_SOLANA.tokens.map((t) => ({ symbol: t.symbol, decimals: t.decimals })),
      // The stand-in logs as pino does: (object, message).
      logger: {
        info: (o, m) => opts.logger.debug(o as object, m as string),
        warn: (o, m) => opts.logger.warn(o as object, m as string),
      },
    });
  let node: SolanaStandIn;
  try {
    node = await start(opts.port);
  } catch (err) {
    // As for the anvils: another program's port; any free one will do (credentials.json says which).
    if (opts.port === 0 || !/EADDRINUSE/.test((err as Error).message)) throw err;
    opts.logger.warn({ port: opts.port, chain: DEVNET_SOLANA.slug }, 'devnet port taken by another program; using a free port');
    node = await start(0);
  }
  const standIn = node;
  const fundNative = async (address: string) => {
    const res = await fetch(standIn.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getBalance', params: [address, { commitment: 'processed' }] }),
    });
    const { result } = (await res.json()) as { result?: { value: number } };
    if (BigInt(result?.value ?? 0) >= MASTER_LAMPORTS / 10n) return;
    // Lands in the next slot (400 ms); nothing waits for it.
    await standIn.control.fund(address, MASTER_LAMPORTS);
  };
  return {
    chain: {
      config: solanaChainConfig(standIn),
      // The faucet's key as Solana wallets take it: base58 of the 64-byte secret key.
      faucet: { address: standIn.faucet.address, privateKey: standIn.faucet.secretKey },
      fundNative,
    },
    stop: () => standIn.stop(),
  };
}

function solanaChainConfig(node: SolanaStandIn): ChainConfig {
  return {
    blockchain: {
      slug: DEVNET_SOLANA.slug,
      name: DEVNET_SOLANA.name,
      symbol: 'SOL',
      nativeDecimals: 9,
      family: 'solana',
      derivationPath: "m/44'/501'",
      tokenStandard: 'SPL',
      isEvmCompatible: false,
      isL2: false,
      logoUrl: '',
    },
    network: 'testnet',
    chainId: DEVNET_SOLANA.chainId,
    rpcUrl: node.url,
    // Deposits are SUCCESS at the finalized slot (32 behind the newest); withdrawals wait as deep.
    confirmations: 32,
    startBlock: 0,
    multicall3: null,
    assets: [
      { symbol: 'SOL', name: 'SOL', address: NATIVE_ADDRESS, decimals: 9, isNative: true, standard: null, currency: null },
      ...node.tokens.map((t) => ({
        symbol: t.symbol,
        name: DEVNET_SOLANA.tokens.find((x) => x.symbol === t.symbol)?.name ?? t.symbol,
        address: t.mint,
        decimals: t.decimals,
        isNative: false,
        standard: 'SPL',
        currency: 'USD',
        // AML screening: the issuer's blacklist is a frozen token account (the faucet is the
        // mints' freeze authority; standin_freezeAccount). A mint from an older state has no
        // freeze authority: its accounts are simply never frozen.
        ...(devnetBlacklistOf(t.symbol) ? { blacklist: devnetBlacklistOf(t.symbol)! } : {}),
      })),
    ],
  };
}
