/**
 * A scaled-out installation on this machine: one PostgreSQL (its own embedded cluster, so it
 * can be restarted), local devnet chains described by a chains file, and separate OS
 * processes running the built CLI: two `start api`, two `start worker`, two `start indexer`
 * (each indexer process follows every chain: two indexers per chain). Every process has its
 * probes (HEALTH_PORT). Used by test/embedded/scale-out.test.ts and bench/scale-out.ts.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded.js';
import { startDevnet, type Devnet, type DevnetChainSpec } from '../../src/devnet/devnet.js';
import { createLogger } from '../../src/lib/logger.js';
import { bannerUrl, builtCli, cleanEnv, runToEnd, waitForBanner, type Proc } from './cli.js';

export type RoleName = 'api' | 'worker' | 'indexer';

export interface RoleProc {
  role: RoleName;
  proc: Proc;
  /** Base URL of its API (api) or of its probe server. */
  apiUrl: string | null;
  healthUrl: string;
}

export interface Cluster {
  env: NodeJS.ProcessEnv;
  pgPort: number;
  databaseUrl: string;
  devnet: Devnet;
  businessKey: string;
  procs: RoleProc[];
  /** Webhook requests received: body and headers. */
  received: { body: string; headers: http.IncomingHttpHeaders }[];
  receiverUrl: string;
  query<T extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  startRole(role: RoleName): Promise<RoleProc>;
  /** Stops PostgreSQL (fast shutdown) and starts it again on the same port after `downMs`. */
  restartPostgres(downMs: number): Promise<{ stoppedAt: number; startedAt: number }>;
  /** Marks a process as killed on purpose (its exit is no problem). */
  killed: Set<number>;
  /** SIGTERM to every role process; their exits. */
  stopRoles(): Promise<{ role: RoleName; pid: number; code: number | null; signal: string | null }[]>;
  stop(): Promise<void>;
}

export async function startCluster(opts: {
  specs: DevnetChainSpec[];
  receiverDelayMs: number;
  log: (line: string) => void;
}): Promise<Cluster> {
  const logger = createLogger('warn');
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'wallet-scale-'));
  const cleanups: (() => Promise<unknown>)[] = [() => rm(tmp, { recursive: true, force: true })];
  try {
    // Its own temporary directory: the postgres OS user must be able to reach it.
    const pgDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-scale-pg-'));
    cleanups.push(() => rm(pgDir, { recursive: true, force: true }));
    let postgres: EmbeddedPostgres = await startEmbeddedPostgres({ dir: pgDir, port: 0, durable: false, logger });
    cleanups.unshift(() => postgres.stop());
    const admin = new pg.Client({ connectionString: postgres.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE wallet');
    await admin.end();
    const databaseUrl = postgres.url('wallet');

    const devnet = await startDevnet({ portBase: 0, blockTime: 1, logger, specs: opts.specs });
    cleanups.unshift(() => devnet.stop());
    const chainsFile = path.join(tmp, 'chains.json');
    const chains = devnet.chains.map((c) => ({
      blockchain: c.config.blockchain.slug,
      network: 'testnet',
      rpcUrl: c.config.rpcUrl,
      chainId: c.config.chainId,
      name: c.config.blockchain.name,
      symbol: c.config.blockchain.symbol,
      confirmations: 1,
      multicall3: c.config.multicall3,
      assets: c.config.assets.filter((a) => !a.isNative).map((a) => ({ symbol: a.symbol, address: a.address, decimals: a.decimals })),
    }));
    await writeFile(chainsFile, JSON.stringify({ chains }));
    await mkdir(path.join(tmp, 'data'));

    // A webhook receiver that takes a while to answer, so deliveries are jobs in flight.
    const received: Cluster['received'] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (d) => (body += d));
      req.on('end', () => {
        received.push({ body, headers: req.headers });
        setTimeout(() => res.writeHead(200).end('ok'), opts.receiverDelayMs);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    cleanups.unshift(() => new Promise((resolve) => receiver.close(resolve)));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

    const env: NodeJS.ProcessEnv = {
      ...cleanEnv(),
      DATABASE_URL: databaseUrl,
      MASTER_KEY: randomBytes(32).toString('base64'),
      CHAINS_FILE: chainsFile,
      DATA_DIR: path.join(tmp, 'data'),
      HOST: '127.0.0.1',
      PORT: '0',
      HEALTH_PORT: '0',
      LOG_LEVEL: 'info',
      INDEXER_POLL_MS: '200',
      // The receiver is on loopback: production refuses such targets unless told otherwise.
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    };
    const migrated = await runToEnd(builtCli(['migrate'], env));
    if (migrated.code !== 0) throw new Error(`migrate failed: ${migrated.stderr}`);
    const created = await runToEnd(builtCli(['create-business', 'Scale Out'], { ...env, LOG_LEVEL: 'warn' }));
    if (created.code !== 0) throw new Error(`create-business failed: ${created.stderr}`);
    const businessKey = /"apiKey": "(sk_biz_[^"]+)"/.exec(created.stdout)![1]!;

    const procs: RoleProc[] = [];
    const startRole = async (role: RoleName): Promise<RoleProc> => {
      const proc = builtCli(['start', role], env);
      const banner = await waitForBanner(proc, 120_000);
      const started: RoleProc = {
        role,
        proc,
        apiUrl: bannerUrl(banner, 'API')?.replace(/\/v1$/, '') ?? null,
        healthUrl: bannerUrl(banner, 'Health')!.replace(/\/healthz$/, ''),
      };
      procs.push(started);
      return started;
    };
    const roles: RoleName[] = ['api', 'api', 'worker', 'worker', 'indexer', 'indexer'];
    const began = Date.now();
    await Promise.all(roles.map(startRole));
    opts.log(
      `cluster: ${procs.map((p) => `${p.role} pid ${p.proc.pid}`).join(', ')} started in ${((Date.now() - began) / 1000).toFixed(1)} s`,
    );

    const query = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> => {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        return (await client.query<T>(sql, params)).rows;
      } finally {
        await client.end();
      }
    };

    const killed = new Set<number>();
    // Every process not killed on purpose: one that died by itself shows up with its exit.
    const stopRoles: Cluster['stopRoles'] = async () =>
      Promise.all(
        procs
          .filter((p) => !killed.has(p.proc.pid))
          .map(async (p) => {
            const diedEarlier = p.proc.exit();
            if (!diedEarlier) process.kill(p.proc.pid, 'SIGTERM');
            const exit = await runToEnd(p.proc, 60_000);
            return { role: p.role, pid: p.proc.pid, code: diedEarlier ? -1 : exit.code, signal: exit.signal };
          }),
      );

    return {
      env,
      pgPort: postgres.port,
      databaseUrl,
      devnet,
      businessKey,
      procs,
      received,
      receiverUrl,
      killed,
      query,
      startRole,
      async restartPostgres(downMs) {
        const port = postgres.port;
        await postgres.stop();
        const stoppedAt = Date.now();
        await new Promise((r) => setTimeout(r, downMs));
        postgres = await startEmbeddedPostgres({ dir: pgDir, port, durable: false, logger });
        if (postgres.port !== port) throw new Error(`PostgreSQL came back on port ${postgres.port}, not ${port}`);
        return { stoppedAt, startedAt: Date.now() };
      },
      stopRoles,
      async stop() {
        for (const p of procs) if (!p.proc.exit()) p.proc.child.kill('SIGKILL');
        for (const cleanup of cleanups) await cleanup().catch(() => undefined);
      },
    };
  } catch (err) {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
    throw err;
  }
}
