/**
 * An `api` role in its own process (tests and benchmarks of more than one replica): the real
 * service graph and HTTP server on the caller's database, as `npm start -- api` builds them,
 * with its own pool, caches and change listener. Configured by environment: DATABASE_URL,
 * KEK (hex), CHAINS (JSON of ChainConfig[]). Prints `listening <base URL>` once it serves;
 * stops on SIGTERM.
 */
import type { AddressInfo } from 'node:net';
import { createDatabase } from '../../src/db/pool.js';
import { LocalKeyVault } from '../../src/keys/vault.js';
import { createServices } from '../../src/services.js';
import { buildServer } from '../../src/server.js';
import { createLogger } from '../../src/lib/logger.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const logger = createLogger('warn');
const databaseUrl = env('DATABASE_URL');
const database = createDatabase(databaseUrl, logger);
const services = await createServices(
  database.db,
  new LocalKeyVault(Buffer.from(env('KEK'), 'hex')),
  {
    chains: JSON.parse(env('CHAINS')),
    addressLimit: 100_000,
    keyExport: { testnet: true, mainnet: false },
    // Tests and benchmarks send more than a client would: no request limits here.
    apiLimits: { keyRate: 0, authFailures: 0, authFailureWindowS: 60 },
  },
  { logger, databaseUrl },
);
const app = await buildServer({ services, logger });
await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening http://127.0.0.1:${(app.server.address() as AddressInfo).port}\n`);
process.once('SIGTERM', () => {
  void (async () => {
    await app.close();
    await services.close();
    await database.close();
    process.exit(0);
  })();
});
