/**
 * The embedded default's chains: two anvil devnets, one shaped like Ethereum (6-decimal
 * USDC/USDT) and one like BNB Smart Chain (18-decimal USDT/USDC), so decimals are
 * exercised everywhere, and, when asked, the stand-ins of the other chain families after
 * them (stand-ins.ts lists them). Chain state lives in the data directory and survives
 * restarts.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { ChainConfig } from '../config/index.js';
import { NATIVE_ADDRESS } from '../config/chains.js';
import type { Logger } from '../lib/logger.js';
import { startAnvil, type AnvilHandle } from './anvil.js';
import { ANVIL_DEFAULT_PRIVATE_KEY, provisionDevnetChain, type DevnetTokenSpec } from './chain.js';
import { provisionDevnetSwap } from './swap.js';
import { startPoolWatchdog, type PoolWatchdog } from './pool-watchdog.js';
import { DEVNET_FEED_HEARTBEAT, provisionDevnetFeeds } from './feeds.js';
import { STAND_INS } from './stand-ins.js';
import type { DevnetChain } from './types.js';

export type { DevnetChain } from './types.js';
import { devnetBlacklistOf, keepsBlacklist, provisionDevnetSanctions } from './sanctions.js';

export interface DevnetChainSpec {
  slug: string;
  name: string;
  symbol: string;
  tokenStandard: string;
  chainId: number;
  confirmations: number;
  tokens: DevnetTokenSpec[];
  /** Devnets pose as testnets; tests use 'mainnet' to exercise mainnet-only rules. */
  network?: 'mainnet' | 'testnet';
  /**
   * First USD price of each token's devnet price feed (a decimal string), by symbol; a
   * token not named gets a feed answering 1, null gets no feed at all (no rate source).
   * The native coin gets a feed only when its symbol is named here (tests of its USD value).
   */
  usdPrices?: Record<string, string | null>;
}

export const DEVNET_CHAINS: DevnetChainSpec[] = [
  {
    slug: 'devnet-eth',
    name: 'Ethereum Devnet (anvil)',
    symbol: 'ETH',
    tokenStandard: 'ERC20',
    chainId: 31337,
    confirmations: 2,
    tokens: [
      { symbol: 'USDC', name: 'USD Coin (devnet)', decimals: 6 },
      { symbol: 'USDT', name: 'Tether USD (devnet)', decimals: 6 },
    ],
  },
  {
    slug: 'devnet-bsc',
    name: 'BNB Smart Chain Devnet (anvil)',
    symbol: 'BNB',
    tokenStandard: 'BEP20',
    chainId: 31338,
    confirmations: 2,
    tokens: [
      { symbol: 'USDT', name: 'Tether USD (devnet)', decimals: 18 },
      { symbol: 'USDC', name: 'USD Coin (devnet)', decimals: 18 },
    ],
  },
];

export interface Devnet {
  chains: DevnetChain[];
  stop(): Promise<void>;
}

/**
 * Provisioned anvil chains to start again from, by spec (tests: one per process). The first
 * start of a spec deploys its contracts as usual and keeps the chain's state
 * (`anvil_dumpState`: accounts, code, storage, blocks with their logs and receipts) and its
 * config; a later start of the same spec loads that state into a new anvil instead of
 * sending the deployments again. The chain is the same to a client (addresses, balances,
 * nonces, block numbers and hashes, logs); unlike a deployed one, it answers no state query
 * at a block mined before the load (anvil keeps no state history across a load).
 */
export type DevnetTemplates = Map<string, { state: string; chain: DevnetChain }>;

export interface StartDevnetOptions {
  /** Where state and pid files live; omit for a throwaway chain (tests). */
  dir?: string;
  /** Port of the first chain, the next ones follow; 0 = any free ports. */
  portBase: number;
  /** Seconds between blocks; 0 = one block per transaction. */
  blockTime: number;
  logger: Logger;
  specs?: DevnetChainSpec[];
  /**
   * Also start every stand-in of stand-ins.ts, in its order, on the ports after the anvils'.
   */
  standIns?: boolean;
  /** Start throwaway anvil chains (no `dir`) from these and add to them (DevnetTemplates). */
  templates?: DevnetTemplates;
}

export async function startDevnet(opts: StartDevnetOptions): Promise<Devnet> {
  const specs = opts.specs ?? DEVNET_CHAINS;
  if (opts.dir) await mkdir(opts.dir, { recursive: true });
  const handles: AnvilHandle[] = [];
  const watchdogs: PoolWatchdog[] = [];
  const chains: DevnetChain[] = [];
  const others: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const w of watchdogs) w.stop();
    await Promise.all([...handles.map((h) => h.stop()), ...others.map((stop) => stop())]);
  };
  // The stand-ins start beside the anvils (each its own engine, its own deployments).
  const standIns: Promise<{ chain: DevnetChain; stop(): Promise<void> }>[] = [];
  try {
    for (const [i, standIn] of (opts.standIns ? STAND_INS : []).entries()) {
      const started = standIn.start({
        ...(opts.dir ? { dir: opts.dir } : {}),
        port: opts.portBase === 0 ? 0 : opts.portBase + specs.length + i,
        logger: opts.logger,
      });
      started.then(
        (t) => others.push(t.stop),
        () => undefined,
      );
      standIns.push(started);
    }
    const templates = opts.dir ? undefined : opts.templates;
    // The anvil processes start side by side (each waits for its own to listen); their chains
    // are then loaded or provisioned one after the other, in order.
    const anvils = await Promise.allSettled(specs.map((spec, i) => startChain(spec, opts, opts.portBase === 0 ? 0 : opts.portBase + i)));
    for (const s of anvils) if (s.status === 'fulfilled') handles.push(s.value);
    const failed = anvils.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    for (const [i, spec] of specs.entries()) {
      const handle = handles[i]!;
      watchdogs.push(startPoolWatchdog(handle.rpcUrl, opts.logger));
      const key = JSON.stringify(spec);
      const template = templates?.get(key);
      if (template) {
        await anvilRpc(handle.rpcUrl, 'anvil_loadState', [template.state]);
        // A copy each time: a test may change its chain's config.
        const chain = structuredClone(template.chain);
        chain.config.rpcUrl = handle.rpcUrl;
        chains.push(chain);
        continue;
      }
      const provisioned = await provisionDevnetChain({
        rpcUrl: handle.rpcUrl,
        chainId: spec.chainId,
        tokens: spec.tokens,
        faucetPrivateKey: ANVIL_DEFAULT_PRIVATE_KEY,
      });
      // A real AMM pool of the two stablecoins, so auto-settlement swaps execute on the devnet.
      const swap = await provisionDevnetSwap({
        rpcUrl: handle.rpcUrl,
        chainId: spec.chainId,
        tokens: provisioned.assets,
        faucetPrivateKey: ANVIL_DEFAULT_PRIVATE_KEY,
      });
      // USD price feeds (contracts/DevnetPriceFeed.sol), so rates come from a real contract.
      const feeds = await provisionDevnetFeeds({
        rpcUrl: handle.rpcUrl,
        chainId: spec.chainId,
        feeds: [
          ...spec.tokens.flatMap((t) => {
            const price = spec.usdPrices?.[t.symbol];
            return price === null ? [] : [{ symbol: t.symbol, price: price ?? '1' }];
          }),
          ...(spec.usdPrices?.[spec.symbol] ? [{ symbol: spec.symbol, price: spec.usdPrices[spec.symbol]! }] : []),
        ],
      });
      // AML lists: a sanctions oracle, and the test tokens' issuer blacklists (when the chain's
      // tokens are recent enough to keep one: a state file older than them is used without).
      const sanctionsOracle = await provisionDevnetSanctions({ rpcUrl: handle.rpcUrl, chainId: spec.chainId });
      const blacklists = new Map<string, boolean>();
      for (const a of provisioned.assets) blacklists.set(a.address, await keepsBlacklist(handle.rpcUrl, spec.chainId, a.address));
      if ([...blacklists.values()].some((b) => !b))
        opts.logger.warn({ chain: spec.slug }, 'devnet tokens from an older state keep no blacklist; delete the state file to have them');
      const config = toChainConfig(spec, handle.rpcUrl, provisioned.multicall3, provisioned.assets);
      const chain: DevnetChain = {
        config: {
          ...config,
          assets: config.assets.map((a) => {
            const kind = blacklists.get(a.address) ? devnetBlacklistOf(a.symbol) : undefined;
            return kind ? { ...a, blacklist: kind } : a;
          }),
          sanctionsOracle,
          swapRouter: swap.router,
          priceFeeds: Object.fromEntries(feeds.map((f) => [f.symbol, { address: f.address, heartbeat: DEVNET_FEED_HEARTBEAT }])),
        },
        faucet: provisioned.faucet,
      };
      chains.push(chain);
      if (templates) {
        const state = (await anvilRpc(handle.rpcUrl, 'anvil_dumpState', [])) as string;
        templates.set(key, { state, chain: structuredClone(chain) });
      }
    }
    for (const started of standIns) chains.push((await started).chain);
  } catch (err) {
    // Each started or failed: then stopped with the rest.
    await Promise.all(standIns.map((started) => started.catch(() => undefined)));
    await stopAll();
    throw err;
  }
  return { chains, stop: stopAll };
}

async function anvilRpc(rpcUrl: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

async function startChain(spec: DevnetChainSpec, opts: StartDevnetOptions, port: number): Promise<AnvilHandle> {
  const files = opts.dir
    ? { stateFile: path.join(opts.dir, `${spec.slug}.state.json`), pidFile: path.join(opts.dir, `${spec.slug}.pid`) }
    : {};
  const base = { chainId: spec.chainId, ...files, logger: opts.logger, ...(opts.blockTime > 0 ? { blockTime: opts.blockTime } : {}) };
  try {
    return await startAnvil({ ...base, port });
  } catch (err) {
    // The preferred port belongs to some other program: any free port will do, the
    // credentials file tells clients where the chain is.
    if (port === 0 || !/in use/i.test((err as Error).message)) throw err;
    opts.logger.warn({ port, chain: spec.slug }, 'devnet port taken by another program; using a free port');
    return startAnvil({ ...base, port: 0 });
  }
}

function toChainConfig(
  spec: DevnetChainSpec,
  rpcUrl: string,
  multicall3: string,
  assets: { symbol: string; name: string; address: string; decimals: number }[],
): ChainConfig {
  return {
    blockchain: {
      slug: spec.slug,
      name: spec.name,
      symbol: spec.symbol,
      nativeDecimals: 18,
      derivationPath: "m/44'/60'/0'/0",
      tokenStandard: spec.tokenStandard,
      isEvmCompatible: true,
      isL2: false,
      logoUrl: '',
    },
    network: spec.network ?? 'testnet',
    chainId: spec.chainId,
    rpcUrl,
    confirmations: spec.confirmations,
    // A devnet is born with the installation: read it from its first block.
    startBlock: 0,
    multicall3,
    assets: [
      { symbol: spec.symbol, name: spec.symbol, address: NATIVE_ADDRESS, decimals: 18, isNative: true, standard: null, currency: null },
      ...assets.map((a) => ({ ...a, isNative: false, standard: spec.tokenStandard, currency: 'USD' })),
    ],
  };
}
