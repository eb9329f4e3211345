/**
 * One configuration, parsed and validated once at start and passed down. Every problem is
 * reported with the name of the setting at fault, before anything starts. The chain
 * families' part of it (config/chains.ts, FamilyConfig) is handed in by the caller, the
 * composition root (configuration.ts passes chains/family-lookup.ts's FAMILY_CONFIGS).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { KeySettingError, loadKeySettings, type KeySettings } from './keys.js';
import {
  chainEntriesFromEnv,
  parseChainsFile,
  resolveChain,
  RPC_URL,
  type ChainConfig,
  type ChainEntry,
  type FamilyConfig,
} from './chains.js';
import { parseTrustProxy, type TrustProxy } from './trust-proxy.js';

export type { BlacklistKind, ChainConfig, FamilyConfig } from './chains.js';

// In a file of its own so that the command line's dispatcher can tell it apart without loading this one.
import { ConfigError } from './errors.js';
export { ConfigError };

export interface AppConfig {
  /** No DATABASE_URL: run an embedded PostgreSQL under the data directory. */
  embeddedDatabase: boolean;
  /** No chains configured: run local anvil devnets with test tokens. */
  devnet: boolean;
  databaseUrl: string | null;
  chains: ChainConfig[];
  masterKey: Buffer | null;
  /** Master keys: the vault kind, MASTER_KEY_PREVIOUS, the HSM (config/keys.ts). */
  keys: KeySettings;
  host: string;
  port: number;
  publicUrl: string | null;
  dataDir: string;
  logLevel: string;
  /** Default per-wallet child address limit for new wallets. */
  addressLimit: number;
  /** Whether `showPrivateKey=true` may export keys, per network. */
  keyExport: { testnet: boolean; mainnet: boolean };
  /** ALLOW_KEY_IMPORT_MAINNET: whether `privateKey` may be imported on mainnet (`POST .../addresses/whitelist`). */
  keyImportMainnet: boolean;
  /** WEBHOOK_COMPAT_SIGNATURE_HEADER: send the signature under `x-blockradar-signature` too. */
  webhookCompatSignatureHeader: boolean;
  /** Seconds between devnet blocks; 0 = mine on each transaction. */
  devnetBlockTime: number;
  devnetPortBase: number;
  /** Indexer: pause between polls once at the chain head, and blocks per scanned range. */
  indexerPollMs: number;
  indexerBatchBlocks: number;
  /** How long a stop lets HTTP requests and jobs finish before closing and releasing them. */
  shutdownTimeoutMs: number;
  /** Port of the probe server (/healthz, /readyz) for processes without the API; null = none. */
  healthPort: number | null;
  /**
   * Whether webhook URLs may point at private, loopback, link-local and other special-purpose
   * addresses (WEBHOOK_ALLOW_PRIVATE_TARGETS). Default: only with the local devnet.
   */
  webhookAllowPrivateTargets: boolean;
  /** Open event streams per API key and per business, per process (EVENT_STREAMS_PER_KEY, EVENT_STREAMS_PER_BUSINESS). */
  eventStreams: { maxStreamsPerKey: number; maxStreamsPerBusiness: number };
  /** Which reverse proxies may name the client (TRUST_PROXY; Fastify's trustProxy). */
  trustProxy: TrustProxy;
  /**
   * Request limits of the API, per instance (docs/configuration.md, "Request limits"):
   * requests per second per API key (0 = none), and failed authentications per client
   * address within a window before 429 (0 = none), and how long such a 429 is held back.
   */
  apiLimits: { keyRate: number; authFailures: number; authFailureWindowS: number; authFailureDelayMs: number; authFailureBudget: number };
  /** Where USD rates come from besides the chains' price feeds, and how long one is reused. */
  rates: RateSettings;
  /** AML screening (docs/aml.md): provider timeout, answer cache, retry pause, an HTTP provider. */
  aml: AmlSettings;
}

export interface AmlSettings {
  /** AML_PROVIDER_TIMEOUT_MS: a provider's answer may take this long, then it counts as failed. */
  timeoutMs: number;
  /** AML_CACHE_TTL_MS: how long an answer is reused per (chain, address, provider). */
  cacheTtlMs: number;
  /** AML_PROVIDER_RETRY_MS: after a failure, how long calls fail at once before the provider is tried again. */
  retryMs: number;
  /**
   * AML_HTTP_PROVIDER (`chainalysis`), AML_HTTP_URL (default https://public.chainalysis.com),
   * AML_HTTP_API_KEY: an HTTP screening API; null = none.
   */
  http: { kind: 'chainalysis'; url: string; apiKey: string | null } | null;
}

export interface RateSettings {
  /**
   * RATES_PEG_FALLBACK: quote a USD stablecoin that has no price feed configured at its peg
   * (1 USD). Off by default: without it such an asset has no rate rather than an assumed one.
   */
  pegFallback: boolean;
  /** RATES_CACHE_MS: how long a feed's answer is reused before the feed is read again. */
  cacheMs: number;
  /** RATES_STALENESS_GRACE_SECONDS: slack over a feed's heartbeat for the next round to land. */
  graceSeconds: number;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Whether pg parses the URL as it will when it connects (a client made, never connected). */
function driverReads(url: string): boolean {
  try {
    new pg.Client({ connectionString: url });
    return true;
  } catch {
    return false;
  }
}

export function loadConfig(env: NodeJS.ProcessEnv, families: readonly FamilyConfig[]): AppConfig {
  const dataDir = path.resolve(env.DATA_DIR || '.data');
  const port = intSetting(env, 'PORT', 8080, 0, 65_535);
  const databaseUrl = env.DATABASE_URL || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL', 'must be a postgres:// or postgresql:// connection string');
  }
  if (databaseUrl && !driverReads(databaseUrl)) {
    // Never the URL itself: it carries the password.
    throw new ConfigError(
      'DATABASE_URL',
      'is not a connection string the PostgreSQL driver can read (a port above 65535? characters such as # / ? @ in the password must be percent-encoded)',
    );
  }

  let keys: KeySettings;
  try {
    keys = loadKeySettings(env);
  } catch (err) {
    if (err instanceof KeySettingError) throw new ConfigError(err.setting, err.problem);
    throw err;
  }
  const masterKey = keys.masterKey;
  if (!masterKey && keys.vault === 'local' && databaseUrl) {
    // With an external database the key file in DATA_DIR would be the only copy of the key
    // to every wallet: refuse rather than let production run on it by accident.
    throw new ConfigError('MASTER_KEY', 'is required when DATABASE_URL is set (32 bytes, base64; openssl rand -base64 32)');
  }

  const chains = loadChains(env, families);
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  if (env.PUBLIC_URL && !/^https?:\/\/[^/]+/.test(env.PUBLIC_URL)) throw new ConfigError('PUBLIC_URL', 'must be an http(s) URL');

  const devnet = devnetSetting(env, chains.length, databaseUrl);
  const trustProxy = parseTrustProxy(env.TRUST_PROXY);
  if (typeof trustProxy === 'object' && !Array.isArray(trustProxy)) throw new ConfigError('TRUST_PROXY', trustProxy.problem);

  return {
    embeddedDatabase: !databaseUrl,
    devnet,
    databaseUrl,
    chains,
    masterKey,
    keys,
    host: env.HOST || '127.0.0.1',
    port,
    publicUrl: env.PUBLIC_URL?.replace(/\/$/, '') || null,
    dataDir,
    logLevel,
    addressLimit: intSetting(env, 'ADDRESS_LIMIT', 100_000, 0, 2_000_000_000),
    keyExport: {
      testnet: boolSetting(env, 'ALLOW_KEY_EXPORT_TESTNET', true),
      mainnet: boolSetting(env, 'ALLOW_KEY_EXPORT_MAINNET', false),
    },
    keyImportMainnet: boolSetting(env, 'ALLOW_KEY_IMPORT_MAINNET', false),
    webhookCompatSignatureHeader: boolSetting(env, 'WEBHOOK_COMPAT_SIGNATURE_HEADER', true),
    devnetBlockTime: intSetting(env, 'DEVNET_BLOCK_TIME', 1, 0, 60),
    devnetPortBase: intSetting(env, 'DEVNET_PORT', 8545, 0, 65_534),
    indexerPollMs: intSetting(env, 'INDEXER_POLL_MS', 500, 50, 60_000),
    indexerBatchBlocks: intSetting(env, 'INDEXER_BATCH_BLOCKS', 100, 1, 5_000),
    shutdownTimeoutMs: intSetting(env, 'SHUTDOWN_TIMEOUT_MS', 15_000, 0, 600_000),
    healthPort: env.HEALTH_PORT ? intSetting(env, 'HEALTH_PORT', 0, 0, 65_535) : null,
    // A tenant reads the start of the target's answer in the delivery log: on a shared
    // installation, private targets would expose the operator's internal services.
    webhookAllowPrivateTargets: boolSetting(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', devnet),
    trustProxy,
    eventStreams: {
      maxStreamsPerKey: intSetting(env, 'EVENT_STREAMS_PER_KEY', 5, 1, 10_000),
      maxStreamsPerBusiness: intSetting(env, 'EVENT_STREAMS_PER_BUSINESS', 50, 1, 100_000),
    },
    apiLimits: {
      keyRate: intSetting(env, 'API_KEY_RATE_LIMIT', 1_000, 0, 1_000_000),
      authFailures: intSetting(env, 'AUTH_FAILURE_LIMIT', 20, 0, 1_000_000),
      authFailureWindowS: intSetting(env, 'AUTH_FAILURE_WINDOW', 60, 1, 86_400),
      authFailureDelayMs: intSetting(env, 'AUTH_FAILURE_DELAY_MS', 1_000, 0, 10_000),
      authFailureBudget: intSetting(env, 'AUTH_FAILURE_BUDGET', 100, 0, 1_000_000),
    },
    aml: amlSettings(env),
    rates: {
      pegFallback: boolSetting(env, 'RATES_PEG_FALLBACK', false),
      cacheMs: intSetting(env, 'RATES_CACHE_MS', 5_000, 0, 60_000),
      graceSeconds: intSetting(env, 'RATES_STALENESS_GRACE_SECONDS', 600, 0, 86_400),
    },
  };
}

function amlSettings(env: NodeJS.ProcessEnv): AmlSettings {
  const kind = env.AML_HTTP_PROVIDER || null;
  if (kind !== null && kind !== 'chainalysis') throw new ConfigError('AML_HTTP_PROVIDER', `must be "chainalysis" (got "${kind}")`);
  const url = env.AML_HTTP_URL || 'https://public.chainalysis.com';
  if (kind && !/^https?:\/\/[^\s/?#]+[^\s]*$/.test(url)) throw new ConfigError('AML_HTTP_URL', 'must be an http(s):// URL with a host');
  return {
    timeoutMs: intSetting(env, 'AML_PROVIDER_TIMEOUT_MS', 5_000, 100, 120_000),
    cacheTtlMs: intSetting(env, 'AML_CACHE_TTL_MS', 60_000, 0, 86_400_000),
    retryMs: intSetting(env, 'AML_PROVIDER_RETRY_MS', 10_000, 0, 3_600_000),
    http: kind ? { kind, url, apiKey: env.AML_HTTP_API_KEY || null } : null,
  };
}

function loadChains(env: NodeJS.ProcessEnv, families: readonly FamilyConfig[]): ChainConfig[] {
  const entries = chainEntriesFromEnv(env, families).map((e) => ({
    entry: e,
    source: `RPC_${e.blockchain.toUpperCase()}_${e.network.toUpperCase()}`,
  }));
  // The chains file's schema checks its rpcUrl; these variables bypass that schema, and
  // `RPC_POLYGON_MAINNET=localhost:8545` used to be accepted and fail only at the first call.
  // The value is not echoed: RPC URLs often embed a provider API key.
  for (const { entry, source } of entries) {
    if (!RPC_URL.test(entry.rpcUrl)) throw new ConfigError(source, 'must be an http(s):// or ws(s):// URL with a host');
  }
  if (env.CHAINS_FILE) {
    const file = path.resolve(env.CHAINS_FILE);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new ConfigError('CHAINS_FILE', `(${file}) cannot be read as JSON: ${(err as Error).message}`);
    }
    let listed: ChainEntry[];
    try {
      listed = parseChainsFile(raw, `CHAINS_FILE (${file})`, families).chains;
    } catch (err) {
      throw new ConfigError('CHAINS_FILE', (err as Error).message.replace(/^CHAINS_FILE /, ''));
    }
    // No chains at all means "run the local devnets"; an operator who names a chains file
    // wants real chains, so an empty list is a mistake rather than a request for anvil.
    if (listed.length === 0 && entries.length === 0)
      throw new ConfigError('CHAINS_FILE', `(${file}) lists no chains; unset CHAINS_FILE to run the local devnets`);
    for (const entry of listed) entries.push({ entry, source: `CHAINS_FILE (${file})` });
  }
  const seen = new Map<string, string>();
  const chains: ChainConfig[] = [];
  for (const { entry, source } of entries) {
    const key = `${entry.blockchain}:${entry.network}`;
    if (seen.has(key)) throw new ConfigError(source, `configures ${key} again (already set by ${seen.get(key)})`);
    seen.set(key, source);
    try {
      chains.push(resolveChain(entry, source, families));
    } catch (err) {
      throw new ConfigError(source, (err as Error).message.replace(`${source}: `, ''));
    }
  }
  return chains;
}

/**
 * Local anvil devnets run when nothing else is configured: by default only for the
 * embedded database, so a production install that forgot its chains file fails loudly
 * instead of seeding a demo business into the real database.
 */
function devnetSetting(env: NodeJS.ProcessEnv, configuredChains: number, databaseUrl: string | null): boolean {
  const devnet = boolSetting(env, 'DEVNET', configuredChains === 0 && !databaseUrl);
  if (devnet && configuredChains > 0) throw new ConfigError('DEVNET', 'cannot be combined with configured chains (CHAINS_FILE or RPC_*)');
  if (!devnet && configuredChains === 0) {
    throw new ConfigError(
      'CHAINS_FILE',
      'is required: no chains are configured (set CHAINS_FILE or RPC_<CHAIN>_<NETWORK>, or DEVNET=true for local devnets)',
    );
  }
  return devnet;
}

function intSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function boolSetting(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes)$/i.test(raw)) return true;
  if (/^(0|false|no)$/i.test(raw)) return false;
  throw new ConfigError(name, `must be true or false (got "${raw}")`);
}
