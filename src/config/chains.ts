/**
 * The chains an installation serves: the operator's chains file (or RPC_<SLUG>_<NETWORK>
 * variables) resolved against the built-in catalogue, so switching on a known chain
 * takes only an RPC URL while any field can still be overridden.
 *
 * config/ names no chain family (it imports only lib/): what it needs of each family (its
 * defaults, the form of its addresses, the chains-file options only its chains take, its
 * catalogue entries) is a FamilyConfig, handed in by the composition root from the
 * families' registrations (chains/family-lookup.ts, FAMILY_CONFIGS). The first family of the
 * list is the default of an entry that names none.
 */
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { findIn, type CatalogueChain, type NetworkName } from './catalogue.js';

export const NATIVE_ADDRESS = '0x0000000000000000000000000000000000000000';

/**
 * What configuration knows of a chain family (chains/<family>/index.ts declares it).
 */
export interface FamilyConfig {
  /** The name a chains file's `family` gives (and the catalogue entries' `family`). */
  readonly name: string;
  /** How a message names a chain of the family, article included (`an …`, `a …`). */
  readonly article: string;
  /** The standard account path (SLIP-44 coin type): where a chain of the family outside the catalogue derives its keys. */
  readonly accountPath: string;
  /** The native coin's decimals of a chain outside the catalogue. */
  readonly nativeDecimals: number;
  /** The token standard of a chain outside the catalogue that names none. */
  readonly tokenStandard: string;
  /** The blockchain's `isEvmCompatible` in the API. */
  readonly isEvmCompatible: boolean;
  /** The form of the family's addresses in a chains file: a regular expression's source, unanchored. */
  readonly addressPattern: string;
  /**
   * The chains-file fields only this family's chains take, each with its schema and the
   * reason a chain of another family is refused it (`only … chains …`). They are copied
   * onto the ChainConfig as given; the family types them by augmenting FamilyChainOptions.
   */
  readonly options: Readonly<Record<string, { readonly schema: TSchema; readonly refusal: string }>>;
  /** The family's entries of the built-in catalogue. */
  readonly catalogue: readonly CatalogueChain[];
}

/**
 * The fields a family adds to a chain's configuration (FamilyConfig.options), typed by the
 * family itself: chains/<family>/config.ts augments this interface (declaration merging),
 * so that a new family's options need no edit here.
 */
export interface FamilyChainOptions {}

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
   * Whose addresses and keys the chain uses (chains/families.ts). Absent means the first
   * family of the list: a configuration built by hand (tests, the devnets) need not say;
   * loadConfig always does.
   */
  family?: string;
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

export interface ChainConfig extends FamilyChainOptions {
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
}

/** A scheme and a host at least: `https://` alone or a URL with spaces is a typo, not an endpoint. */
const RPC_URL_PATTERN = '^(https?|wss?)://[^\\s/?#]+[^\\s]*$';
export const RPC_URL = new RegExp(RPC_URL_PATTERN);
/** The chains-file schema of a list of families (built once per list). */
const schemas = new WeakMap<readonly FamilyConfig[], TObject>();

function chainsFileSchema(families: readonly FamilyConfig[]): TObject {
  const known = schemas.get(families);
  if (known) return known;
  // Any family's form; resolveChain then holds each chain to its own family's.
  const Address = Type.String({ pattern: `^(${families.map((f) => f.addressPattern).join('|')})$` });
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
  const options = Object.fromEntries(
    families.flatMap((f) => Object.entries(f.options).map(([name, o]) => [name, Type.Optional(o.schema)])),
  );
  const ChainEntry = Type.Object(
    {
      blockchain: Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$' }),
      network: Type.Union([Type.Literal('mainnet'), Type.Literal('testnet')]),
      /** The chain family of a custom chain (addresses and keys); a catalogue chain is of its entry's. Default: the first family. */
      family: Type.Optional(Type.Union(families.map((f) => Type.Literal(f.name)))),
      rpcUrl: Type.String({ pattern: RPC_URL_PATTERN }),
      // Past 2^53 a JSON number is rounded: the node would be asked for another chain or block than written.
      chainId: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
      confirmations: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
      startBlock: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
      multicall3: Type.Optional(Type.Union([Address, Type.Null()])),
      /** A DEX router for swaps; null switches the catalogue's default off. */
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
      // The options of each family (FamilyConfig.options), allowed on its chains only.
      ...options,
    },
    { additionalProperties: false },
  );
  const schema = Type.Object({ chains: Type.Array(ChainEntry) }, { additionalProperties: false });
  schemas.set(families, schema);
  return schema;
}

/** One chain of a chains file (the schema: chainsFileSchema). */
export interface ChainEntry extends FamilyChainOptions {
  blockchain: string;
  network: NetworkName;
  family?: string;
  rpcUrl: string;
  chainId?: number;
  confirmations?: number;
  startBlock?: number;
  multicall3?: string | null;
  swapRouter?: string | null;
  name?: string;
  symbol?: string;
  tokenStandard?: string;
  isL2?: boolean;
  logoUrl?: string;
  assets?: {
    symbol: string;
    name?: string;
    address: string;
    decimals: number;
    currency?: string | null;
    blacklist?: BlacklistKind | null;
  }[];
  priceFeeds?: Record<string, { address: string; heartbeat: number } | null>;
  sanctionsOracle?: string | null;
}
export interface ChainsFile {
  chains: ChainEntry[];
}

/** Every chain of the families' catalogues: the order of the families, then each family's. */
export function catalogueOf(families: readonly FamilyConfig[]): readonly CatalogueChain[] {
  return families.flatMap((f) => f.catalogue);
}

/** Throws an Error whose message names the offending field of the file. */
export function parseChainsFile(raw: unknown, source: string, families: readonly FamilyConfig[]): ChainsFile {
  const schema = chainsFileSchema(families);
  if (Value.Check(schema, raw)) return raw as unknown as ChainsFile;
  let first = Value.Errors(schema, raw).First();
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

export function resolveChain(entry: ChainEntry, source: string, families: readonly FamilyConfig[]): ChainConfig {
  const known = findIn(catalogueOf(families), entry.blockchain);
  const net = known?.networks[entry.network];
  const missing = (field: string) =>
    new Error(`${source}: chain "${entry.blockchain}" is not in the built-in catalogue, so "${field}" is required`);
  const familyNamed = (name: string): FamilyConfig => {
    const family = families.find((f) => f.name === name);
    if (!family) throw new Error(`${source}: chains.${entry.blockchain}.family: no chain family is named "${name}"`);
    return family;
  };
  const knownFamily = known ? familyNamed(known.family) : undefined;
  const family = familyNamed(entry.family ?? knownFamily?.name ?? families[0]!.name);
  // A catalogue chain is of its catalogue family: another family under its slug is a mistake.
  if (knownFamily && family !== knownFamily) {
    throw new Error(
      `${source}: chain "${entry.blockchain}" is ${knownFamily.article} chain of the built-in catalogue, so "family" cannot be "${family.name}"`,
    );
  }
  assertFamilyAddresses(entry, family, source);
  // A family's own options (FamilyConfig.options) on a chain of another family are a mistake.
  const given = entry as unknown as Record<string, unknown>;
  for (const other of families) {
    for (const [name, option] of Object.entries(other.options)) {
      if (given[name] !== undefined && !Object.hasOwn(family.options, name)) {
        throw new Error(`${source}: chains.${entry.blockchain}.${name}: ${option.refusal}`);
      }
    }
  }
  const chainId = entry.chainId ?? net?.chainId;
  if (chainId === undefined) throw missing('chainId');
  const nativeDecimals = known?.nativeDecimals ?? family.nativeDecimals;
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
  const standard = entry.tokenStandard ?? known?.tokenStandard ?? family.tokenStandard;
  const assets: ChainAssetConfig[] = [
    { symbol, name, address: NATIVE_ADDRESS, decimals: nativeDecimals, isNative: true, standard: null, currency: null },
    ...tokens.map((t) => ({ ...t, isNative: false, standard })),
  ];
  assertDistinctAddresses(entry, tokens, source);
  return {
    blockchain: {
      slug: entry.blockchain,
      name,
      symbol,
      nativeDecimals,
      family: family.name,
      derivationPath: known?.derivationPath ?? family.accountPath,
      tokenStandard: standard,
      isEvmCompatible: family.isEvmCompatible,
      isL2: entry.isL2 ?? known?.isL2 ?? false,
      logoUrl: entry.logoUrl ?? known?.logoUrl ?? '',
    },
    network: entry.network,
    chainId,
    rpcUrl: entry.rpcUrl,
    confirmations: entry.confirmations ?? net?.confirmations ?? 12,
    startBlock: entry.startBlock ?? null,
    multicall3: entry.multicall3 === undefined ? (net?.multicall3 ?? null) : entry.multicall3,
    swapRouter: entry.swapRouter === undefined ? (net?.swapRouter ?? null) : entry.swapRouter,
    assets,
    priceFeeds: resolvePriceFeeds(entry, net?.priceFeeds, assets, source),
    sanctionsOracle: entry.sanctionsOracle === undefined ? (net?.sanctionsOracle ?? null) : entry.sanctionsOracle,
    ...Object.fromEntries(Object.keys(family.options).flatMap((name) => (given[name] !== undefined ? [[name, given[name]]] : []))),
  };
}

/**
 * Every address of an entry in its family's form (FamilyConfig.addressPattern; the family's
 * codec checks more, such as checksums, when the adapter is built). The message names the
 * field, as parseChainsFile's do.
 */
function assertFamilyAddresses(entry: ChainEntry, family: FamilyConfig, source: string): void {
  const form = new RegExp(`^(${family.addressPattern})$`);
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
    if (typeof address === 'string' && !form.test(address)) {
      throw new Error(`${source}: chains.${entry.blockchain}.${field}: not an address of the ${family.name} family (${address})`);
    }
  }
}

/**
 * The catalogue keeps one asset per (chain, address): a second token at an address already
 * listed (or at the native coin's zero address) would overwrite the first one's row at
 * start, and the native coin's row turned into a token leaves native deposits unmatched.
 * Hex (0x…) addresses compare without case (an EIP-55 checksum is only case); base58 ones
 * (T…, Solana) are case-sensitive.
 */
function assertDistinctAddresses(entry: ChainEntry, tokens: readonly { address: string }[], source: string): void {
  const key = (address: string) => (/^0x/i.test(address) ? address.toLowerCase() : address);
  const seen = new Map<string, number>();
  tokens.forEach((t, i) => {
    const field = `${source}: chains.${entry.blockchain}.assets.${i}.address`;
    if (key(t.address) === key(NATIVE_ADDRESS)) throw new Error(`${field}: the zero address stands for the native coin, not a token`);
    const first = seen.get(key(t.address));
    if (first !== undefined) throw new Error(`${field}: the same contract as assets.${first} (${t.address})`);
    seen.set(key(t.address), i);
  });
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
export function chainEntriesFromEnv(env: NodeJS.ProcessEnv, families: readonly FamilyConfig[]): ChainEntry[] {
  const entries: ChainEntry[] = [];
  for (const chain of catalogueOf(families)) {
    for (const network of ['mainnet', 'testnet'] as const) {
      const url = env[`RPC_${chain.slug.toUpperCase()}_${network.toUpperCase()}`];
      if (url) entries.push({ blockchain: chain.slug, network, rpcUrl: url });
    }
  }
  return entries;
}
