/**
 * One benchmark world, assembled like test/support/harness.ts but production-shaped:
 * a fresh embedded PostgreSQL cluster in a temp dir with fsync ON (durable: true), the
 * migrations, the anvil devnets, the real service graph with a LocalKeyVault, the real
 * Fastify app on 127.0.0.1:0, one business and one wallet on devnet-eth (USDC + USDT).
 * `stop()` undoes everything in reverse order and removes the temp dir.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';
import { createDatabase, type Database$ } from '../src/db/pool.js';
import { LocalKeyVault } from '../src/keys/vault.js';
import { createServices, type Services } from '../src/services.js';
import { buildServer } from '../src/server.js';
import { startDevnet, type Devnet } from '../src/devnet/devnet.js';
import { createLogger, type Logger } from '../src/lib/logger.js';

export const BENCH_CHAIN = 'devnet-eth';

export interface World {
  baseUrl: string;
  app: FastifyInstance;
  services: Services;
  database: Database$;
  businessId: string;
  walletId: string;
  apiKey: string;
  /** The asset symbols enabled on the wallet (what GET .../balances reads). */
  assets: string[];
  /** PostgreSQL durability settings as the server reports them (SHOW ...). */
  pgSettings: Record<string, string>;
  /** Server-side view of POST .../addresses: creations in flight and completed. */
  issuance: { inFlight: number; created: number; failed: number };
  /**
   * Waits until the server has finished what it received: no address creation in flight
   * and the database pool idle for 250 ms. autocannon ends a run by destroying its sockets;
   * the requests it had written are still being served after it returns.
   */
  quiesce(): Promise<void>;
  /** Another wallet on devnet-eth in the same business (for runs kept out of the checks). */
  newWallet(name: string): Promise<{ walletId: string; apiKey: string }>;
  stop(): Promise<void>;
}

export async function startWorld(
  opts: {
    logger?: Logger;
    apiLimits?: {
      keyRate: number;
      authFailures: number;
      authFailureWindowS: number;
      authFailureDelayMs?: number;
      authFailureBudget?: number;
    };
  } = {},
): Promise<World> {
  // 'warn': the app logs one line per request at info; that would measure pino, not us.
  const logger = opts.logger ?? createLogger(process.env.BENCH_LOG_LEVEL ?? 'warn');
  const cleanups: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((err) => console.error(`teardown step failed: ${(err as Error).message}`));
    }
  };
  try {
    // Not under /root: the embedded cluster runs as the `postgres` OS user (SETUP-NOTES).
    const dir = await mkdtemp(path.join(tmpdir(), 'wallet-bench-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));

    const pgServer: EmbeddedPostgres = await startEmbeddedPostgres({ dir, port: 0, durable: true, logger });
    cleanups.push(() => pgServer.stop());
    const admin = new pg.Client({ connectionString: pgServer.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE wallet_bench');
    await admin.end();
    const databaseUrl = pgServer.url('wallet_bench');
    await migrate(databaseUrl, logger);

    const devnet: Devnet = await startDevnet({ portBase: 0, blockTime: 0, logger });
    cleanups.push(() => devnet.stop());

    const database = createDatabase(databaseUrl, logger);
    cleanups.push(async () => {
      // pg-pool's end() resolves before its clients' connections are closed; stopping the
      // server right after would make it terminate them ("idle PostgreSQL client error").
      const open = database.pool.totalCount;
      let removed = 0;
      const gone = new Promise<void>((resolve) => {
        if (open === 0) resolve();
        database.pool.on('remove', () => ++removed >= open && resolve());
      });
      await database.close();
      await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 2_000))]);
    });
    const services = await createServices(
      database.db,
      new LocalKeyVault(randomBytes(32)),
      {
        chains: devnet.chains.map((c) => c.config),
        // Several 10 s runs at the target rate issue tens of thousands of addresses into one
        // wallet; the default limit (100,000) would turn the last run into 422s.
        addressLimit: 10_000_000,
        keyExport: { testnet: true, mainnet: false },
        // Receivers on loopback, as in the embedded devnet.
        webhookAllowPrivateTargets: true,
        // One key drives every run at full speed: its per-key limit counts every request
        // (its cost is measured) but is set beyond what this machine can send.
        apiLimits: opts.apiLimits ?? { keyRate: 1_000_000, authFailures: 20, authFailureWindowS: 60 },
      },
      { databaseUrl },
    );
    // Newer service graphs own more than the catalogue (a webhook sender): close them all.
    cleanups.push(async () =>
      'close' in services && typeof services.close === 'function' ? services.close() : services.catalogue.close(),
    );

    // Server-side accounting of issuance, so the DB check can wait for requests the load
    // generator abandoned at the end of a run (autocannon destroys its sockets on stop,
    // but the server still completes what it already received).
    const issuance = { inFlight: 0, created: 0, failed: 0 };
    const create = services.addresses.create.bind(services.addresses);
    services.addresses.create = async (...args) => {
      issuance.inFlight++;
      try {
        const view = await create(...args);
        issuance.created++;
        return view;
      } catch (err) {
        issuance.failed++;
        throw err;
      } finally {
        issuance.inFlight--;
      }
    };

    const app = await buildServer({ services, logger });
    cleanups.push(() => app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

    const { business } = await services.businesses.create('Bench Business');
    const { wallet, apiKey } = await services.wallets.createForBusiness(business.id, {
      blockchain: BENCH_CHAIN,
      network: 'testnet',
      name: 'Bench wallet',
    });
    const assets = (await services.walletAssets.list({ keyId: '', businessId: business.id, walletId: wallet.id }, wallet.id))
      .filter((a) => a.isActive)
      .map((a) => a.asset.symbol);

    const settings = await database.pool.query<{ name: string; setting: string }>(
      "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method', 'max_connections')",
    );
    const pgSettings = Object.fromEntries(settings.rows.map((r) => [r.name, r.setting]));

    const quiesce = async () => {
      const deadline = Date.now() + 30_000;
      let idleSince = 0;
      for (;;) {
        const pool = database.pool;
        const idle = issuance.inFlight === 0 && pool.waitingCount === 0 && pool.idleCount === pool.totalCount;
        if (!idle) idleSince = 0;
        else if (!idleSince) idleSince = Date.now();
        else if (Date.now() - idleSince >= 250) return;
        if (Date.now() > deadline) throw new Error('the server was still busy 30 s after the load stopped');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    // First in the teardown: let cut-off requests finish before anything closes under them.
    cleanups.push(() => quiesce());

    const newWallet = async (name: string) => {
      const created = await services.wallets.createForBusiness(business.id, { blockchain: BENCH_CHAIN, network: 'testnet', name });
      return { walletId: created.wallet.id, apiKey: created.apiKey };
    };

    return {
      baseUrl,
      app,
      services,
      database,
      businessId: business.id,
      walletId: wallet.id,
      apiKey,
      assets,
      pgSettings,
      issuance,
      quiesce,
      newWallet,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
