/**
 * `devnet-tron`, the embedded default's Tron chain: the java-tron stand-in (devnet/tron) with
 * USDT and USDC (6 decimals) deployed, 3 s blocks and its faucet, its state under the devnet
 * directory so it survives restarts like the anvils'. The service reaches it as a chains-file
 * Tron chain would reach a node: by its URL, through the Tron family's adapter.
 */
import path from 'node:path';
import type { ChainConfig } from '../config/index.js';
import { NATIVE_ADDRESS } from '../config/chains.js';
import type { Logger } from '../lib/logger.js';
import type { DevnetChain } from './types.js';
import { startTronStandIn, type TronStandIn } from './tron/index.js';
import { devnetBlacklistOf } from './sanctions.js';

export const DEVNET_TRON = {
  slug: 'devnet-tron',
  name: 'Tron Devnet (stand-in)',
  chainId: 31_339,
  tokens: [
    { symbol: 'USDT', name: 'Tether USD (devnet)', decimals: 6 },
    { symbol: 'USDC', name: 'USD Coin (devnet)', decimals: 6 },
  ],
} as const;

/** TRX the faucet gives a demo master once (it pays activations, energy and bandwidth): 10,000 TRX. */
const MASTER_SUN = 10_000_000_000n;

export async function startDevnetTron(opts: {
  dir?: string;
  port: number;
  logger: Logger;
}): Promise<{ chain: DevnetChain; stop(): Promise<void> }> {
  const start = (port: number) =>
    startTronStandIn({
      ...(opts.dir ? { dir: path.join(opts.dir, DEVNET_TRON.slug) } : {}),
      port,
      host: '127.0.0.1',
      blockTimeMs: 3_000,
      tokens: DEVNET_TRON.tokens.map((t) => ({ ...t })),
      logger: { info: (o, m) => opts.logger.debug(o, m), warn: (o, m) => opts.logger.warn(o, m) },
    });
  let node: TronStandIn;
  try {
    node = await start(opts.port);
  } catch (err) {
    // As for the anvils: another program's port; any free one will do (credentials.json says which).
    if (opts.port === 0 || !/in use/i.test((err as Error).message)) throw err;
    opts.logger.warn({ port: opts.port, chain: DEVNET_TRON.slug }, 'devnet port taken by another program; using a free port');
    node = await start(0);
  }
  const standIn = node;
  const fundNative = async (address: string) => {
    const res = await fetch(`${standIn.url}/wallet/getaccount`, { method: 'POST', body: JSON.stringify({ address, visible: true }) });
    const account = (await res.json()) as { balance?: number };
    if (BigInt(account.balance ?? 0) >= MASTER_SUN / 10n) return;
    // Lands in the next block (3 s); nothing waits for it.
    await standIn.control.fund(address, { trx: MASTER_SUN });
  };
  return {
    chain: {
      config: tronChainConfig(standIn),
      faucet: { address: standIn.faucet.address, privateKey: standIn.faucet.privateKey },
      fundNative,
    },
    stop: () => standIn.stop(),
  };
}

function tronChainConfig(node: TronStandIn): ChainConfig {
  const decimals = (symbol: string) => DEVNET_TRON.tokens.find((t) => t.symbol === symbol)?.decimals ?? 6;
  return {
    blockchain: {
      slug: DEVNET_TRON.slug,
      name: DEVNET_TRON.name,
      symbol: 'TRX',
      nativeDecimals: 6,
      family: 'tron',
      derivationPath: "m/44'/195'/0'/0",
      tokenStandard: 'TRC20',
      isEvmCompatible: false,
      isL2: false,
      logoUrl: '',
    },
    network: 'testnet',
    chainId: DEVNET_TRON.chainId,
    rpcUrl: node.url,
    // Deposits are confirmed at the solidified block (19 behind); withdrawals wait as deep.
    confirmations: 20,
    startBlock: 0,
    multicall3: node.multicall.address,
    // AML screening: the stand-in's sanctions oracle, and its tokens' issuer blacklists (USDT
    // Tether's, USDC Circle's), where the chain's state has them.
    sanctionsOracle: node.sanctionsOracle?.address ?? null,
    assets: [
      { symbol: 'TRX', name: 'TRX', address: NATIVE_ADDRESS, decimals: 6, isNative: true, standard: null, currency: null },
      ...node.tokens.map((t) => ({
        symbol: t.symbol,
        name: DEVNET_TRON.tokens.find((x) => x.symbol === t.symbol)?.name ?? t.symbol,
        address: t.address,
        decimals: decimals(t.symbol),
        isNative: false,
        standard: 'TRC20',
        currency: 'USD',
        ...(node.blacklists && devnetBlacklistOf(t.symbol) ? { blacklist: devnetBlacklistOf(t.symbol)! } : {}),
      })),
    ],
  };
}
