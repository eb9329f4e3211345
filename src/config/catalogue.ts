/**
 * The shape of the built-in catalogue: the chains an operator switches on with an RPC URL
 * alone (chain ids, confirmation depths, Multicall3, explorers, the canonical USDT and USDC
 * already known), any value overridable per chain and network in the chains file. The data
 * is each family's (src/chains/<family>/catalogue.ts), listed by the family's registration
 * (chains/<family>/index.ts) and handed to loadConfig with it (config/chains.ts,
 * FamilyConfig): config/ names no family.
 *
 * The entries are pure data and deep-frozen: copy them before you change anything.
 */

export type NetworkName = 'mainnet' | 'testnet';

export interface CatalogueAsset {
  symbol: 'USDT' | 'USDC';
  name: string;
  /** In the canonical form of the chain's family (its address codec checks it: test/config/catalogue.test.ts). */
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
  address: string;
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
  /** USD price feeds of these assets, by symbol; absent where none is shipped. */
  priceFeeds?: Partial<Record<CatalogueAsset['symbol'], CataloguePriceFeed>>;
  /** The DEX router swaps default to (the chains file's `swapRouter` overrides it); absent: none. */
  swapRouter?: string;
  /** The SanctionsList oracle (isSanctioned) where it is deployed (catalogue-chains.ts); absent = none. */
  sanctionsOracle?: string;
}

export interface CatalogueChain {
  slug: string;
  name: string;
  /** Native coin symbol. */
  symbol: string;
  /** The chain family (addresses, keys, node API): the name of the family that lists the entry. */
  family: string;
  /** Decimals of the native coin (its smallest unit is the base unit amounts are counted in). */
  nativeDecimals: number;
  derivationPath: string;
  tokenStandard: string;
  isEvmCompatible: boolean;
  isL2: boolean;
  logoUrl: string;
  networks: Record<NetworkName, CatalogueNetwork>;
}

/** Freezes a catalogue value and everything in it (shared defaults cannot be mutated). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  }
  return value;
}

/** The entry of `slug` in a catalogue (every family's entries: chains/family-lookup.ts CATALOGUE). */
export function findIn(catalogue: readonly CatalogueChain[], slug: string): CatalogueChain | undefined {
  return catalogue.find((chain) => chain.slug === slug);
}
