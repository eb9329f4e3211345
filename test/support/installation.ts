/**
 * A production installation for CLI tests: an external PostgreSQL (a fresh database cloned
 * from the test cluster's migrated template), MASTER_KEY from the environment, and a chains
 * file that describes in-process devnet chains as custom chains, the way an operator
 * configures a private EVM chain. `env()` gives the README's production settings.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startDevnet, type Devnet, type DevnetChain, type DevnetChainSpec, type StartDevnetOptions } from '../../src/devnet/devnet.js';
import { createLogger } from '../../src/lib/logger.js';
import { createDatabaseFromTemplate, databaseAndDevnet, DEVNET_TEMPLATES, dropDatabase } from './harness.js';
import { cleanEnv } from './cli.js';

export interface Installation {
  databaseUrl: string;
  masterKey: string;
  chainsFile: string;
  /** DATA_DIR: production must leave it empty. */
  dataDir: string;
  tmp: string;
  devnet: Devnet;
  chainOf(slug: string): DevnetChain;
  /** The production settings, with `extra` on top (undefined removes a setting). */
  env(extra?: Record<string, string | undefined>): NodeJS.ProcessEnv;
  query<T extends pg.QueryResultRow>(sql: string, params?: unknown[], url?: string): Promise<T[]>;
  stop(): Promise<void>;
}

export async function startInstallation(opts: { specs?: DevnetChainSpec[]; databaseUrl?: string } = {}): Promise<Installation> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'wallet-installation-'));
  const dataDir = path.join(tmp, 'data');
  await mkdir(dataDir);
  const devnetOptions: StartDevnetOptions = {
    portBase: 0,
    blockTime: 0,
    logger: createLogger('warn'),
    ...(opts.specs ? { specs: opts.specs } : {}),
    templates: DEVNET_TEMPLATES,
  };
  const { databaseUrl, devnet } = opts.databaseUrl
    ? { databaseUrl: opts.databaseUrl, devnet: await startDevnet(devnetOptions) }
    : await databaseAndDevnet(devnetOptions, createDatabaseFromTemplate);
  const masterKey = randomBytes(32).toString('base64');

  // Exactly what an operator writes for private EVM chains: none of these slugs is in the
  // built-in catalogue, so chain id, name, symbol and the token list come from the file.
  // The first names its Multicall3, the second leaves it out (balances read call by call).
  const chainsFile = path.join(tmp, 'chains.json');
  const chains = devnet.chains.map((c, i) => ({
    blockchain: c.config.blockchain.slug,
    network: 'testnet',
    rpcUrl: c.config.rpcUrl,
    chainId: c.config.chainId,
    name: c.config.blockchain.name,
    symbol: c.config.blockchain.symbol,
    tokenStandard: c.config.blockchain.tokenStandard,
    confirmations: 1,
    ...(i === 0 ? { multicall3: c.config.multicall3 } : {}),
    assets: c.config.assets.filter((a) => !a.isNative).map((a) => ({ symbol: a.symbol, address: a.address, decimals: a.decimals })),
  }));
  await writeFile(chainsFile, JSON.stringify({ chains }, null, 2));

  const query = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = [], url = databaseUrl): Promise<T[]> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<T>(sql, params)).rows;
    } finally {
      await client.end();
    }
  };

  return {
    databaseUrl,
    masterKey,
    chainsFile,
    dataDir,
    tmp,
    devnet,
    chainOf: (slug) => devnet.chains.find((c) => c.config.blockchain.slug === slug)!,
    env(extra = {}) {
      const env: NodeJS.ProcessEnv = {
        ...cleanEnv(),
        DATABASE_URL: databaseUrl,
        MASTER_KEY: masterKey,
        CHAINS_FILE: chainsFile,
        DATA_DIR: dataDir,
        PORT: '0',
        LOG_LEVEL: 'info',
      };
      for (const [k, v] of Object.entries(extra)) {
        if (v === undefined) delete env[k];
        else env[k] = v;
      }
      return env;
    },
    query,
    async stop() {
      await devnet.stop().catch(() => undefined);
      if (!opts.databaseUrl) await dropDatabase(databaseUrl).catch(() => undefined);
      await rm(tmp, { recursive: true, force: true });
    },
  };
}
