/**
 * The chains an installation serves: the operator's chains file (or RPC_<SLUG>_<NETWORK>
 * variables) resolved against the built-in catalogue, so switching on a known chain
 * takes only an RPC URL while any field can still be overridden.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { CATALOGUE, findCatalogueChain, type NetworkName } from './catalogue.js';
import { defaultSwapRouter } from './swap-routers.js';

export const NATIVE_ADDRESS = '0x0000000000000000000000000000000000000000';

/**
 * The chain families the service knows (chains/families.ts maps each to its address codec
 * and key derivation). Declared here, below chains/, because a chain's configuration names
 * its family and config/ imports nothing above it.
 */
export type ChainFamilyName = 'evm' | 'tron' | 'solana';

/**
 * Each family's standard account path (SLIP-44 coin types 60, 195, 501): where a chain of
 * the family derives its keys unless its catalogue entry names another. chains/families.ts
 * checks that its derivations agree (families.test.ts).
 */
export const FAMILY_ACCOUNT_PATHS: Readonly<Record<ChainFamilyName, string>> = Object.freeze({
  evm: "m/44'/60'/0'/0",
  tron: "m/44'/195'/0'/0",
  solana: "m/44'/501'",
});

/**
 * Whose blacklist a stablecoin contract keeps, and so which read answers it (AML screening,
 * chains/screening.ts): 'tether' is Tether's 2017 TetherToken (Ethereum, Tron:
 * `isBlackListed`), 'tether-v2' its newer TetherToken and USDT0 (`isBlocked`), 'circle'
 * Circle's FiatToken (`isBlacklisted`). On Solana the issuer's list is its mint's freeze
 * authority (a frozen token account), whichever the name.
 */
export type BlacklistKind = 'tether' | 'tether-v2' | 'circle';

export interface BlockchainInfo {
  slug: string;
  name: string;
  symbol: string;
  nativeDecimals: number;
  /**
   * Whose addresses and keys the chain uses (chains/families.ts). Absent means 'evm': a
   * configuration built by hand (tests, the devnets) need not say; loadConfig always does.
   */
  family?: ChainFamilyName;
  /** The account path keys derive from (bip32: the account node whose xpub a wallet stores). */
  derivationPath: string;
  tokenStandard: string | null;
  isEvmCompatible: boolean;
  isL2: boolean;
  logoUrl: string;
}

export interface ChainAssetConfig {
  symbol: string;
  name: string;
  address: string;
  decimals: number;
  isNative: boolean;
  standard: string | null;
  /** The fiat currency the asset tracks (USD for stablecoins), null for volatile coins. */
  currency: string | null;
  /** AML screening: the issuer's blacklist the token keeps (BlacklistKind); absent = none read. */
  blacklist?: BlacklistKind;
}

/**
 * A USD price feed of one asset: an AggregatorV3Interface contract (a Chainlink proxy).
 * A round older than `heartbeat` seconds (plus RATES_STALENESS_GRACE_SECONDS) is not used.
 */
export interface PriceFeedConfig {
  address: string;
  heartbeat: number;
}

export interface ChainConfig {
  blockchain: BlockchainInfo;
  network: NetworkName;
  chainId: number;
  rpcUrl: string;
  confirmations: number;
  /**
   * First block the indexer reads when it has no cursor yet; null = the chain head at
   * first start (history before the installation is not scanned).
   */
  startBlock: number | null;
  multicall3: string | null;
  assets: ChainAssetConfig[];
  /**
   * A Uniswap V2 style router (Router02 interface) used for auto-settlement swaps; absent or
   * null = no swaps on this chain. Catalogue chains default to a well-known router.
   */
  swapRouter?: string | null;
  /** USD price feeds by asset symbol (the source of rates); absent or {} = none on this chain. */
  priceFeeds?: Record<string, PriceFeedConfig>;
  /**
   * AML screening: a SanctionsList oracle (`isSanctioned(address)`, Chainalysis's) on this
   * chain; absent or null = none. Catalogue chains default to the published deployment.
   */
  sanctionsOracle?: string | null;
  /**
   * Tron chains only: how a child's TRC-20 sweep gets its energy. 'delegate': lent from the
   * master's staked TRX and taken back after; 'burn': TRX sent to the child to burn;
   * 'auto' (absent): delegate when the master can lend enough now and that is the cheaper
   * (the master's two transactions' bandwidth against the energy burned), else burn.
   */
  sweepFunding?: 'auto' | 'delegate' | 'burn';
  /**
   * Solana chains only: the commitment at which a deposit is final (SUCCESS). 'finalized'
   * (absent): rooted, 32 slots behind the newest, never undone; 'confirmed': a supermajority
   * voted on its block (about a second sooner than rooted, but a dropped fork can still
   * take it away). Either way a deposit is found (PENDING) at `confirmed`.
   */
  finality?: 'finalized' | 'confirmed';
  /**
   * Solana chains only: a sweep that takes a child's whole token balance also closes the
   * child's emptied token account, its rent (2,039,280 lamports) back to the master. Default
   * false: the account stays open, so the next deposit's sender need not create it again.
   */
  sweepCloseAccounts?: boolean;
}

/** An EVM address (0x, 40 hex digits), the only form an EVM chain's entries take. */
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/**
 * Addresses in a chains file: an EVM chain's 0x form, a Tron chain's base58check T… form or a
 * Solana chain's base58 form (a Tron checksum and a Solana key's 32 bytes are checked by the
 * family codec when the chain's adapter is built, chains/registry.ts). resolveChain holds
 * each chain to its own family's form.
 */
const Address = Type.String({ pattern: '^(0x[0-9a-fA-F]{40}|T[1-9A-HJ-NP-Za-km-z]{33}|[1-9A-HJ-NP-Za-km-z]{32,44})$' });
/** The form a family's addresses take in a chains file (Solana: a token's mint). */
const FAMILY_ADDRESS: Readonly<Record<ChainFamilyName, RegExp>> = {
  evm: EVM_ADDRESS,
  tron: /^T[1-9A-HJ-NP-Za-km-z]{33}$/,
  solana: /^[1-9A-HJ-NP-Za-km-z]{32,44}$/,
};
/** The token standard of a chain outside the catalogue that names none, by family. */
const FAMILY_TOKEN_STANDARD: Readonly<Record<ChainFamilyName, string>> = { evm: 'ERC20', tron: 'TRC20', solana: 'SPL' };
/** The native coin's decimals of a chain outside the catalogue, by family (TRX: 6; SOL: 9, lamports). */
const FAMILY_NATIVE_DECIMALS: Readonly<Record<ChainFamilyName, number>> = { evm: 18, tron: 6, solana: 9 };
/** A scheme and a host at least: `https://` alone or a URL with spaces is a typo, not an endpoint. */
const RPC_URL_PATTERN = '^(https?|wss?)://[^\\s/?#]+[^\\s]*$';
export const RPC_URL = new RegExp(RPC_URL_PATTERN);
const AssetEntry = Type.Object(
  {
    symbol: Type.String({ minLength: 1, maxLength: 16 }),
    name: Type.Optional(Type.String({ minLength: 1 })),
    address: Address,
    decimals: Type.Integer({ minimum: 0, maximum: 36 }),
    currency: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    /** AML screening: whose blacklist the token keeps (tether, tether-v2, circle); absent or null = none read. */
    blacklist: Type.Optional(Type.Union([Type.Literal('tether'), Type.Literal('tether-v2'), Type.Literal('circle'), Type.Null()])),
  },
  { additionalProperties: false },
);
const PriceFeedEntry = Type.Object(
  {
    address: Address,
    /** Seconds: a round older than this is not used (the feed's published heartbeat). */
    heartbeat: Type.Integer({ minimum: 1, maximum: 31_536_000 }),
  },
  { additionalProperties: false },
);
const ChainEntry = Type.Object(
  {
    blockchain: Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$' }),
    network: Type.Union([Type.Literal('mainnet'), Type.Literal('testnet')]),
    /** The chain family of a custom chain (addresses and keys); catalogue chains are EVM. Default 'evm'. */
    family: Type.Optional(Type.Union([Type.Literal('evm'), Type.Literal('tron'), Type.Literal('solana')])),
    rpcUrl: Type.String({ pattern: RPC_URL_PATTERN }),
    chainId: Type.Optional(Type.Integer({ minimum: 1 })),
    confirmations: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
    startBlock: Type.Optional(Type.Integer({ minimum: 0 })),
    multicall3: Type.Optional(Type.Union([Address, Type.Null()])),
    /** Uniswap V2 style router for swaps; null switches the catalogue's default off. */
    swapRouter: Type.Optional(Type.Union([Address, Type.Null()])),
    name: Type.Optional(Type.String({ minLength: 1 })),
    symbol: Type.Optional(Type.String({ minLength: 1 })),
    tokenStandard: Type.Optional(Type.String()),
    isL2: Type.Optional(Type.Boolean()),
    logoUrl: Type.Optional(Type.String()),
    /** Replaces the catalogue's token list for this chain when given. */
    assets: Type.Optional(Type.Array(AssetEntry)),
    /**
     * USD price feeds by asset symbol, over the catalogue's (which apply only while its
     * asset list does); null switches a catalogue feed off.
     */
    priceFeeds: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 16 }), Type.Union([PriceFeedEntry, Type.Null()]))),
    /** AML screening: a SanctionsList oracle on this chain; null switches the catalogue's off. */
    sanctionsOracle: Type.Optional(Type.Union([Address, Type.Null()])),
    /** Tron chains only: a child's TRC-20 sweep's energy, lent from the master's stake or burned (default auto). */
    sweepFunding: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('delegate'), Type.Literal('burn')])),
    /** Solana chains only: the commitment that makes a deposit SUCCESS (default finalized). */
    finality: Type.Optional(Type.Union([Type.Literal('finalized'), Type.Literal('confirmed')])),
    /** Solana chains only: sweeps close the child's emptied token account, its rent to the master (default false). */
    sweepCloseAccounts: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const ChainsFileSchema = Type.Object({ chains: Type.Array(ChainEntry) }, { additionalProperties: false });
export type ChainsFile = Static<typeof ChainsFileSchema>;
export type ChainEntry = Static<typeof ChainEntry>;

/** Throws an Error whose message names the offending field of the file. */
export function parseChainsFile(raw: unknown, source: string): ChainsFile {
  if (Value.Check(ChainsFileSchema, raw)) return raw;
  let first = Value.Errors(ChainsFileSchema, raw).First();
  // A union (a price feed or null) names its own path only: report the alternative that got
  // furthest into the value instead (priceFeeds.USDT.address rather than priceFeeds.USDT).
  while (first?.errors.length) {
    const deepest = first.errors
      .map((e) => e.First())
      .filter((e) => e !== undefined)
      .sort((a, b) => b.path.length - a.path.length)[0];
    if (!deepest || deepest.path.length <= first.path.length) break;
    first = deepest;
  }
  const where = first?.path ? first.path.replace(/^\//, '').replace(/\//g, '.') : '(root)';
  throw new Error(`${source}: ${where}: ${first?.message ?? 'invalid'}`);
}

export function resolveChain(entry: ChainEntry, source: string): ChainConfig {
  const known = findCatalogueChain(entry.blockchain);
  const net = known?.networks[entry.network];
  const missing = (field: string) =>
    new Error(`${source}: chain "${entry.blockchain}" is not in the built-in catalogue, so "${field}" is required`);
  const knownFamily = known?.family ?? 'evm';
  const family = entry.family ?? (known ? knownFamily : 'evm');
  // A catalogue chain is of its catalogue family: another family under its slug is a mistake.
  if (known && family !== knownFamily) {
    const article = { evm: 'an EVM', tron: 'a Tron', solana: 'a Solana' }[knownFamily];
    throw new Error(
      `${source}: chain "${entry.blockchain}" is ${article} chain of the built-in catalogue, so "family" cannot be "${family}"`,
    );
  }
  assertFamilyAddresses(entry, family, source);
  if (entry.sweepFunding !== undefined && family !== 'tron') {
    throw new Error(`${source}: chains.${entry.blockchain}.sweepFunding: only Tron chains lend resources to their sweeps`);
  }
  if (entry.finality !== undefined && family !== 'solana') {
    throw new Error(`${source}: chains.${entry.blockchain}.finality: only Solana chains name a commitment (others count confirmations)`);
  }
  if (entry.sweepCloseAccounts !== undefined && family !== 'solana') {
    throw new Error(`${source}: chains.${entry.blockchain}.sweepCloseAccounts: only Solana chains close token accounts after a sweep`);
  }
  const chainId = entry.chainId ?? net?.chainId;
  if (chainId === undefined) throw missing('chainId');
  const nativeDecimals = known?.nativeDecimals ?? FAMILY_NATIVE_DECIMALS[family];
  const name = entry.name ?? known?.name;
  if (!name) throw missing('name');
  const symbol = entry.symbol ?? known?.symbol;
  if (!symbol) throw missing('symbol');

  const tokens = entry.assets
    ? entry.assets.map((a) => ({
        symbol: a.symbol,
        name: a.name ?? a.symbol,
        address: a.address,
        decimals: a.decimals,
        currency: a.currency === undefined ? guessCurrency(a.symbol) : a.currency,
        ...(a.blacklist ? { blacklist: a.blacklist } : {}),
      }))
    : (net?.assets ?? []).map((a) => ({ ...a, currency: 'USD' as string | null }));
  const standard = entry.tokenStandard ?? known?.tokenStandard ?? FAMILY_TOKEN_STANDARD[family];
  const assets: ChainAssetConfig[] = [
    { symbol, name, address: NATIVE_ADDRESS, decimals: nativeDecimals, isNative: true, standard: null, currency: null },
    ...tokens.map((t) => ({ ...t, isNative: false, standard })),
  ];
  return {
    blockchain: {
      slug: entry.blockchain,
      name,
      symbol,
      nativeDecimals,
      family,
      derivationPath: known?.derivationPath ?? FAMILY_ACCOUNT_PATHS[family],
      tokenStandard: standard,
      isEvmCompatible: family === 'evm',
      isL2: entry.isL2 ?? known?.isL2 ?? false,
      logoUrl: entry.logoUrl ?? known?.logoUrl ?? '',
    },
    network: entry.network,
    chainId,
    rpcUrl: entry.rpcUrl,
    confirmations: entry.confirmations ?? net?.confirmations ?? 12,
    startBlock: entry.startBlock ?? null,
    multicall3: entry.multicall3 === undefined ? (net?.multicall3 ?? null) : entry.multicall3,
    swapRouter: entry.swapRouter === undefined ? defaultSwapRouter(entry.blockchain, entry.network) : entry.swapRouter,
    assets,
    priceFeeds: resolvePriceFeeds(entry, net?.priceFeeds, assets, source),
    sanctionsOracle: entry.sanctionsOracle === undefined ? (net?.sanctionsOracle ?? null) : entry.sanctionsOracle,
    ...(entry.sweepFunding !== undefined ? { sweepFunding: entry.sweepFunding } : {}),
    ...(entry.finality !== undefined ? { finality: entry.finality } : {}),
    ...(entry.sweepCloseAccounts !== undefined ? { sweepCloseAccounts: entry.sweepCloseAccounts } : {}),
  };
}

/**
 * Every address of an entry in its family's form: 0x on an EVM chain (as before), T… on a
 * Tron chain. The message names the field, as parseChainsFile's do.
 */
function assertFamilyAddresses(entry: ChainEntry, family: ChainFamilyName, source: string): void {
  const fields: [string, string | null | undefined][] = [
    ['multicall3', entry.multicall3],
    ['swapRouter', entry.swapRouter],
    ['sanctionsOracle', entry.sanctionsOracle],
    ...(entry.assets ?? []).map((a, i): [string, string] => [`assets.${i}.address`, a.address]),
    ...Object.entries(entry.priceFeeds ?? {}).map(([symbol, f]): [string, string | undefined] => [
      `priceFeeds.${symbol}.address`,
      f?.address,
    ]),
  ];
  for (const [field, address] of fields) {
    if (typeof address === 'string' && !FAMILY_ADDRESS[family].test(address)) {
      throw new Error(`${source}: chains.${entry.blockchain}.${field}: not an address of the ${family} family (${address})`);
    }
  }
}

/**
 * The catalogue's feeds belong to the catalogue's tokens: a file that lists its own assets
 * (maybe a bridged copy under the same symbol) starts from none. Each key must name one
 * asset of the chain, or a typo would silently leave an asset without its rate.
 */
function resolvePriceFeeds(
  entry: ChainEntry,
  catalogue: Partial<Record<string, PriceFeedConfig>> | undefined,
  assets: ChainAssetConfig[],
  source: string,
): Record<string, PriceFeedConfig> {
  const feeds: Record<string, PriceFeedConfig> = {};
  if (!entry.assets) for (const [symbol, feed] of Object.entries(catalogue ?? {})) if (feed) feeds[symbol] = { ...feed };
  for (const [symbol, feed] of Object.entries(entry.priceFeeds ?? {})) {
    const matching = assets.filter((a) => a.symbol === symbol).length;
    if (matching !== 1) {
      throw new Error(
        `${source}: priceFeeds.${symbol}: ${matching === 0 ? 'no asset with this symbol on' : 'several assets share this symbol on'} ${entry.blockchain} (${entry.network})`,
      );
    }
    if (feed === null) delete feeds[symbol];
    else feeds[symbol] = { address: feed.address, heartbeat: feed.heartbeat };
  }
  return feeds;
}

function guessCurrency(symbol: string): string | null {
  return /^(USD[CT]?|DAI|PYUSD|FDUSD)$/i.test(symbol) ? 'USD' : null;
}

/** `RPC_ETHEREUM_MAINNET=https://...` switches a catalogue chain on without a file. */
export function chainEntriesFromEnv(env: NodeJS.ProcessEnv): ChainEntry[] {
  const entries: ChainEntry[] = [];
  for (const chain of CATALOGUE) {
    for (const network of ['mainnet', 'testnet'] as const) {
      const url = env[`RPC_${chain.slug.toUpperCase()}_${network.toUpperCase()}`];
      if (url) entries.push({ blockchain: chain.slug, network, rpcUrl: url });
    }
  }
  return entries;
}
