/**
 * Default catalogue of the main EVM networks, Tron (catalogue-chains-tron.ts) and Solana
 * (catalogue-chains-solana.ts).
 *
 * With this catalogue an operator only has to supply RPC URLs to switch a
 * chain on: chain ids, confirmation depths, Multicall3, explorers and the
 * canonical USDT/USDC contracts are already here. Every value can be
 * overridden per chain and per network through the chains file; treat this as
 * the default, not as the only source of truth.
 *
 * Where the data comes from:
 *   - Stablecoin contracts follow the issuers' published contract lists
 *     (Circle's "USDC contract addresses" page, Tether's supported-protocols
 *     list and the USDT0 deployment list) and, for Celo, the Celo docs'
 *     stablecoin table. Each address was also cross-checked against
 *     independent public token lists and integrations. Comments on the chains
 *     below say where that check was weaker.
 *   - Chain ids, explorers and Multicall3 availability match the chain
 *     definitions published by the networks themselves and the Multicall3
 *     deployment list (github.com/mds1/multicall3).
 *   - Addresses are written in EIP-55 checksummed form; catalogue.test.ts
 *     checks every one of them.
 *
 * Only canonical issuer tokens are listed. Bridged copies (USDC.e, USDbC,
 * USDT.e, ...) are deliberately left out: they are different contracts with
 * different issuers and redemption paths. Crediting one as if it were the
 * canonical token would be a bookkeeping error, so an operator who wants them
 * must add them on purpose.
 *
 * Pure data: this module must not import chain libraries (viem etc.).
 * The objects are deep-frozen. Copy them before you change anything.
 */

export type NetworkName = 'mainnet' | 'testnet';

export interface CatalogueAsset {
  symbol: 'USDT' | 'USDC';
  name: string;
  /** EIP-55 `0x…` on EVM chains, base58check `T…` on Tron. */
  address: string;
  decimals: number;
  /** AML screening: whose blacklist the contract keeps (config/chains.ts BlacklistKind); absent where not confirmed. */
  blacklist?: 'tether' | 'tether-v2' | 'circle';
}

/**
 * A price feed answering an asset's price in USD: an AggregatorV3Interface contract (a
 * Chainlink proxy). `heartbeat` is the most seconds the feed lets pass between rounds.
 */
export interface CataloguePriceFeed {
  address: `0x${string}`;
  heartbeat: number;
}

export interface CatalogueNetwork {
  chainId: number;
  /** Human-readable network name, e.g. 'Ethereum Mainnet', 'Sepolia'. */
  label: string;
  /** Deposit confirmation depth we recommend (blocks on top of the including block). */
  confirmations: number;
  /** Canonical Multicall3 address where it is deployed, otherwise null. */
  multicall3: string | null;
  explorerUrl: string;
  /** Canonical USDT/USDC only; [] where no canonical token exists (typical for testnets). */
  assets: CatalogueAsset[];
  /**
   * USD price feeds of these assets, by symbol; absent where none is shipped (see the
   * comment on chainlinkUsd in catalogue-chains.ts for where they come from).
   */
  priceFeeds?: Partial<Record<CatalogueAsset['symbol'], CataloguePriceFeed>>;
  /** The SanctionsList oracle (isSanctioned) where it is deployed (catalogue-chains.ts); absent = none. */
  sanctionsOracle?: string;
}

export interface CatalogueChain {
  slug: string;
  name: string;
  /** Native coin symbol. */
  symbol: string;
  /** The chain family (addresses, keys, node API); absent = 'evm'. */
  family?: 'evm' | 'tron' | 'solana';
  /** 18 on EVM chains, 6 on Tron (TRX is counted in sun), 9 on Solana (lamports). */
  nativeDecimals: number;
  derivationPath: string;
  tokenStandard: string;
  isEvmCompatible: boolean;
  isL2: boolean;
  logoUrl: string;
  networks: Record<NetworkName, CatalogueNetwork>;
}

import { CATALOGUE_CHAINS } from './catalogue-chains.js';
import { TRON_CATALOGUE_CHAINS } from './catalogue-chains-tron.js';
import { SOLANA_CATALOGUE_CHAINS } from './catalogue-chains-solana.js';

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  }
  return value;
}

/** The EVM chains of the catalogue. */
export const EVM_CATALOGUE: readonly CatalogueChain[] = deepFreeze(CATALOGUE_CHAINS);

/** Every chain of the catalogue: the EVM chains, then Tron (catalogue-chains-tron.ts) and Solana (catalogue-chains-solana.ts). */
export const CATALOGUE: readonly CatalogueChain[] = Object.freeze([
  ...EVM_CATALOGUE,
  ...deepFreeze(TRON_CATALOGUE_CHAINS),
  ...deepFreeze(SOLANA_CATALOGUE_CHAINS),
]);

export function findCatalogueChain(slug: string): CatalogueChain | undefined {
  return CATALOGUE.find((chain) => chain.slug === slug);
}
