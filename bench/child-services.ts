/**
 * A benchmark's own worker or indexer process (bench/withdrawals-worker.ts,
 * bench/backfill-indexer.ts) opens the benchmark world's database and chain from its
 * environment: DATABASE_URL, KEK (hex, the world's key-encryption key), CHAINS (JSON of
 * ChainConfig[]). Returns the real service graph on them.
 */
import { createDatabase, type Database$ } from '../src/db/pool.js';
import { LocalKeyVault } from '../src/keys/vault.js';
import { createServices, type Services } from '../src/services.js';
import type { Logger } from '../src/lib/logger.js';

export function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

export async function servicesFromEnv(logger: Logger): Promise<{ databaseUrl: string; database: Database$; services: Services }> {
  const databaseUrl = env('DATABASE_URL');
  const database = createDatabase(databaseUrl, logger);
  const services = await createServices(
    database.db,
    new LocalKeyVault(Buffer.from(env('KEK'), 'hex')),
    {
      chains: JSON.parse(env('CHAINS')),
      addressLimit: 1_000_000,
      keyExport: { testnet: true, mainnet: false },
      webhookAllowPrivateTargets: true,
    },
    { logger, databaseUrl },
  );
  return { databaseUrl, database, services };
}
