/**
 * The service as an operator runs it in production: the built CLI (`npm run build`, then
 * `node dist/main.js <command>` with plain node, no wrapper) as child processes, against an
 * external PostgreSQL, MASTER_KEY from the environment, and a chains file describing the
 * in-process devnet chains as custom chains (test/support/installation.ts). Then each role
 * alone with its probes, two indexers electing one active per chain, and the
 * misconfigurations that must stop the service before anything starts.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPublicClient, createWalletClient, erc20Abi, getAddress, http, isAddress, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devnetChain } from '../../src/devnet/chain.js';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build.js';
import {
  bannerUrl,
  builtCli,
  cmdline,
  descendants,
  errorLogs,
  killAll,
  runToEnd,
  terminate,
  waitForBanner,
  waitUntil,
  type Proc,
} from '../support/cli.js';
import { startInstallation, type Installation } from '../support/installation.js';

const CATALOGUE_SLUGS = ['ethereum', 'bsc', 'polygon', 'base', 'arbitrum', 'optimism', 'avalanche', 'celo', 'tron', 'solana'];

let inst: Installation;
let emptyDatabaseUrl: string | undefined;

const prodEnv = (extra: Record<string, string | undefined> = {}) => inst.env(extra);
const runCli = (args: string[], env: NodeJS.ProcessEnv) => runToEnd(builtCli(args, env));
const adminQuery = <T extends Record<string, unknown>>(url: string, sql: string, params: unknown[] = []) => inst.query<T>(sql, params, url);
const chainOf = (slug: string) => inst.chainOf(slug);

/** `start <role>` up to its "running" banner. */
async function startRole(role: string, env: NodeJS.ProcessEnv): Promise<Proc & { banner: string }> {
  const proc = builtCli(['start', role], env);
  return Object.assign(proc, { banner: await waitForBanner(proc) });
}

async function getJson(url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
}

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);

beforeAll(async () => {
  inst = await startInstallation();
});

afterAll(async () => {
  // Whatever happened above: no CLI process survives, then the devnet, databases and files go.
  await killAll();
  if (emptyDatabaseUrl)
    await inst
      ?.query(
        `DROP DATABASE IF EXISTS ${emptyDatabaseUrl.slice(emptyDatabaseUrl.lastIndexOf('/') + 1)} WITH (FORCE)`,
        [],
        inject('pgAdminUrl'),
      )
      .catch(() => undefined);
  await inst?.stop();
});

describe.sequential('production (external PostgreSQL, MASTER_KEY, CHAINS_FILE) through the CLI', () => {
  let businessKey: string;
  let businessId: string;

  it('migrate: applies 001 to an empty database, then is idempotent; the template is already up to date', async () => {
    const onTemplate = await runCli(['migrate'], prodEnv());
    expect(onTemplate.code, onTemplate.stderr).toBe(0);
    expect(onTemplate.stdout).toContain('database is up to date');
    expect(onTemplate.stdout).not.toContain('applied 0');

    const adminUrl = inject('pgAdminUrl');
    const name = `wallet_empty_${randomBytes(6).toString('hex')}`;
    await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
    emptyDatabaseUrl = adminUrl.replace(/\/[^/]*$/, `/${name}`);

    const first = await runCli(['migrate'], prodEnv({ DATABASE_URL: emptyDatabaseUrl }));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^applied .*001_initial\.sql/m);
    expect(first.stdout).not.toContain('database is up to date');
    const recorded = await adminQuery<{ name: string }>(emptyDatabaseUrl, 'SELECT name FROM schema_migrations ORDER BY name');
    expect(recorded.map((r) => r.name)).toContain('001_initial.sql');
    // Our tables and the job queue's schema are both there.
    const schemas = await adminQuery<{ t: string | null; q: string | null }>(
      emptyDatabaseUrl,
      "SELECT to_regclass('public.businesses')::text AS t, (SELECT nspname FROM pg_namespace WHERE nspname = 'graphile_worker') AS q",
    );
    expect(schemas[0]).toEqual({ t: 'businesses', q: 'graphile_worker' });

    const second = await runCli(['migrate'], prodEnv({ DATABASE_URL: emptyDatabaseUrl }));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('database is up to date');
    expect(second.stdout).not.toMatch(/^applied /m);
    const again = await adminQuery<{ name: string }>(emptyDatabaseUrl, 'SELECT name FROM schema_migrations ORDER BY name');
    expect(again).toEqual(recorded);
  });

  it('create-business prints the business and its business API key once', async () => {
    const res = await runCli(['create-business', 'Acme Payments'], prodEnv({ LOG_LEVEL: 'warn' }));
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('Store the API key now');
    const json = res.stdout.slice(res.stdout.indexOf('{'), res.stdout.lastIndexOf('}') + 1);
    const printed = JSON.parse(json) as { business: { id: string; name: string }; apiKey: string };
    expect(printed.business.name).toBe('Acme Payments');
    expect(printed.apiKey).toMatch(/^sk_biz_[A-Za-z0-9_-]{20,}$/);
    businessKey = printed.apiKey;
    businessId = printed.business.id;
    const rows = await adminQuery<{ id: string; name: string }>(inst.databaseUrl, 'SELECT id::text, name FROM businesses');
    expect(rows).toEqual([{ id: businessId, name: 'Acme Payments' }]);
  });

  it('start api: serves the API on the custom chains, with no embedded PostgreSQL, anvil or credentials file', async () => {
    const service = await startRole('api', prodEnv());
    const apiUrl = /^\s*API:\s+(\S+)$/m.exec(service.banner)?.[1];
    expect(apiUrl, service.banner).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(service.banner).toContain('running (api)');
    expect(service.banner).not.toMatch(/Credentials:|Data:/);
    const base = apiUrl!.replace(/\/v1$/, '');

    const call = async (method: string, urlPath: string, key: string | null, body?: unknown) => {
      const res = await fetch(`${base}${urlPath}`, {
        method,
        headers: { ...(key ? { 'x-api-key': key } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };

    // Probes: alive, and ready with the database, the migrations and both chains checked.
    expect(await call('GET', '/healthz', null)).toEqual({ status: 200, body: { status: 'ok' } });
    const ready = await call('GET', '/readyz', null);
    expect(ready.status, JSON.stringify(ready.body)).toBe(200);
    expect(ready.body.checks).toEqual({
      database: 'ok',
      migrations: 'ok',
      'rpc:devnet-bsc:testnet': 'ok',
      'rpc:devnet-eth:testnet': 'ok',
    });

    // The catalogue: the two custom chains active, the built-in ones known but inactive.
    const blockchains = await call('GET', '/v1/blockchains', businessKey);
    expect(blockchains.status).toBe(200);
    const active = Object.fromEntries(blockchains.body.data.map((b: { slug: string; isActive: boolean }) => [b.slug, b.isActive]));
    expect(Object.keys(active).sort()).toEqual([...CATALOGUE_SLUGS, 'devnet-bsc', 'devnet-eth'].sort());
    for (const slug of CATALOGUE_SLUGS) expect(active[slug], slug).toBe(false);
    expect(active['devnet-eth']).toBe(true);
    expect(active['devnet-bsc']).toBe(true);
    const eth = blockchains.body.data.find((b: { slug: string }) => b.slug === 'devnet-eth');
    expect(eth).toMatchObject({ name: chainOf('devnet-eth').config.blockchain.name, symbol: 'ETH', tokenStandard: 'ERC20' });

    // A wallet on each custom chain, an address, a real deposit, and the balance through the API.
    const deposits = {
      'devnet-eth': { symbol: 'USDC', units: 12_500_000n, shown: '12.5' },
      'devnet-bsc': { symbol: 'USDT', units: 7_250_000_000_000_000_000n, shown: '7.25' },
    };
    const seenKeys = [businessKey];
    for (const [slug, deposit] of Object.entries(deposits)) {
      const created = await call('POST', '/v1/wallets', businessKey, { blockchain: slug, network: 'testnet', name: `Acme ${slug}` });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const { apiKey: walletKey, ...wallet } = created.body.data;
      expect(walletKey).toMatch(/^sk_test_/);
      seenKeys.push(walletKey);
      expect(wallet).toMatchObject({ network: 'testnet', business: { id: businessId } });
      expect(isAddress(wallet.address)).toBe(true);
      expect((await call('GET', `/v1/wallets/${wallet.id}`, walletKey)).status).toBe(200);

      const address = await call('POST', `/v1/wallets/${wallet.id}/addresses`, walletKey, { name: 'customer 1' });
      expect(address.status, JSON.stringify(address.body)).toBe(200);
      expect(isAddress(address.body.data.address)).toBe(true);

      const chain = chainOf(slug);
      const token = chain.config.assets.find((a) => a.symbol === deposit.symbol)!;
      const viemChain = devnetChain(chain.config.chainId, chain.config.rpcUrl);
      const sender = createWalletClient({
        chain: viemChain,
        transport: http(chain.config.rpcUrl),
        account: privateKeyToAccount(chain.faucet.privateKey as Hex),
      });
      const hash = await sender.writeContract({
        address: token.address as Address,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [address.body.data.address as Address, deposit.units],
      });
      const receipt = await createPublicClient({
        chain: viemChain,
        transport: http(chain.config.rpcUrl),
        pollingInterval: 100,
      }).waitForTransactionReceipt({
        hash,
      });
      expect(receipt.status).toBe('success');

      const balances = await call('GET', `/v1/wallets/${wallet.id}/balances?address=${address.body.data.address}`, walletKey);
      expect(balances.status, JSON.stringify(balances.body)).toBe(200);
      const bySymbol = Object.fromEntries(
        balances.body.data.map((b: { asset: { asset: { symbol: string; address: string } }; balance: string }) => [
          b.asset.asset.symbol,
          b.balance,
        ]),
      );
      expect(bySymbol).toMatchObject({ [deposit.symbol]: deposit.shown });
      // The enabled tokens are the chains file's, at the file's addresses.
      const tokenAddresses = balances.body.data
        .map((b: { asset: { asset: { address: string } } }) => getAddress(b.asset.asset.address))
        .filter((a: string) => a !== '0x0000000000000000000000000000000000000000')
        .sort();
      expect(tokenAddresses).toEqual(
        chain.config.assets
          .filter((a) => !a.isNative)
          .map((a) => getAddress(a.address))
          .sort(),
      );
    }

    // API role only: no embedded PostgreSQL or anvil below it, nothing written to DATA_DIR,
    // and neither the worker nor the indexer started.
    // One process, no wrapper: the pid the supervisor started is node running the built CLI,
    // with nothing below it.
    expect(cmdline(service.pid).trim()).toBe(`${process.execPath} ${path.resolve('dist/main.js')} start api`);
    expect(descendants(service.pid).map((pid) => `${pid}: ${cmdline(pid)}`)).toEqual([]);
    expect(readdirSync(inst.dataDir)).toEqual([]);
    expect(existsSync(path.join(inst.dataDir, 'postgres'))).toBe(false);
    expect(existsSync(path.join(inst.dataDir, 'credentials.json'))).toBe(false);
    expect(service.logs().filter((l) => l.role === 'worker' || l.role === 'indexer')).toEqual([]);

    const exit = await terminate(service);
    expect(exit, service.describe()).toEqual({ code: 0, signal: null });
    expect(errorLogs(service)).toEqual([]);
    // No API key reaches the logs.
    for (const key of seenKeys) expect(service.stdout() + service.stderr()).not.toContain(key);
  });

  it('start worker: runs the jobs queued in this database and stops cleanly on SIGTERM', async () => {
    // A job queued while no worker runs stays queued (the API role does not run jobs)...
    const [job] = await adminQuery<{ id: string }>(
      inst.databaseUrl,
      "SELECT id::text FROM graphile_worker.add_job('webhooks_sweep', '{}'::json)",
    );
    const pending = async () =>
      Number(
        (
          await adminQuery<{ n: string }>(inst.databaseUrl, 'SELECT count(*)::text AS n FROM graphile_worker.jobs WHERE id = $1', [job!.id])
        )[0]!.n,
      );
    expect(await pending()).toBe(1);

    const worker = await startRole('worker', prodEnv({ HEALTH_PORT: '0' }));
    expect(worker.banner).toContain('running (worker)');
    expect(worker.banner).not.toMatch(/API:/);
    // No API, so its probes are on HEALTH_PORT: ready once the job-queue workers run.
    const health = bannerUrl(worker.banner, 'Health')!.replace(/\/healthz$/, '');
    expect(health).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await getJson(`${health}/healthz`)).toEqual({ status: 200, body: { status: 'ok' } });
    const ready = await getJson(`${health}/readyz`);
    expect(ready.status, JSON.stringify(ready.body)).toBe(200);
    expect(ready.body.checks).toMatchObject({ database: 'ok', migrations: 'ok', worker: 'ok', 'rpc:devnet-eth:testnet': 'ok' });
    expect((await fetch(`${health}/v1/blockchains`)).status).toBe(404); // probes only
    expect(worker.logs().some((l) => l.msg === 'worker started' && l.role === 'worker')).toBe(true);
    // ...until the worker process takes it and completes it (completed jobs are deleted).
    let left = 1;
    for (const deadline = Date.now() + 15_000; left > 0 && Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      left = await pending();
    }
    expect(left, worker.describe()).toBe(0);
    expect(worker.logs().some((l) => l.role === 'worker' && l.msg.includes(`Completed task ${job!.id} (webhooks_sweep`))).toBe(true);

    const exit = await terminate(worker);
    expect(exit, worker.describe()).toEqual({ code: 0, signal: null });
    expect(errorLogs(worker)).toEqual([]);
  });

  /** Backends holding an indexer lock (advisory, first key 0x1d3) in our database. */
  const indexerLocks = async () =>
    (
      await adminQuery<{ pid: number }>(
        inst.databaseUrl,
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = 467 AND granted
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY pid`,
      )
    ).map((r) => r.pid);

  it(
    'start indexer twice: one active per chain, the other on standby, which takes over when the active one stops; a lost session stands down',
    { timeout: 90_000 },
    async () => {
      const keys = ['devnet-bsc:testnet', 'devnet-eth:testnet'];
      const says = (p: Proc, msg: string) =>
        [
          ...new Set(
            p
              .logs()
              .filter((l) => l.role === 'indexer' && l.msg === msg)
              .map((l) => String(l.chain)),
          ),
        ].sort();
      const ACTIVE = 'indexer active for chain';
      const STANDBY = 'indexer on standby for chain';

      const a = await startRole('indexer', prodEnv({ HEALTH_PORT: '0' }));
      expect(a.banner).toContain('running (indexer)');
      await waitUntil(
        'the first indexer to be active on both chains',
        () => says(a, ACTIVE).length === 2,
        15_000,
        () => a.describe(),
      );
      expect(says(a, ACTIVE)).toEqual(keys);

      const b = await startRole('indexer', prodEnv({ HEALTH_PORT: '0' }));
      await waitUntil(
        'the second indexer to stand by on both chains',
        () => says(b, STANDBY).length === 2,
        15_000,
        () => b.describe(),
      );
      expect(says(b, STANDBY)).toEqual(keys);
      expect(says(b, ACTIVE)).toEqual([]);
      expect(says(a, STANDBY)).toEqual([]);
      // Both are ready (a standby is doing its job); each says which chains it follows.
      const readyz = async (p: typeof a) => getJson(`${bannerUrl(p.banner, 'Health')!.replace(/\/healthz$/, '')}/readyz`);
      const readyA = await readyz(a);
      const readyB = await readyz(b);
      expect(readyA.status, JSON.stringify(readyA.body)).toBe(200);
      expect(readyB.status, JSON.stringify(readyB.body)).toBe(200);
      expect(readyA.body.indexer).toEqual({ 'devnet-eth:testnet': 'active', 'devnet-bsc:testnet': 'active' });
      expect(readyB.body.indexer).toEqual({ 'devnet-eth:testnet': 'standby', 'devnet-bsc:testnet': 'standby' });

      const exitA = await terminate(a);
      expect(exitA, a.describe()).toEqual({ code: 0, signal: null });
      // The standby polls the lock every second: well within 15 s it is active on both chains.
      await waitUntil(
        'the standby to take over both chains',
        () => says(b, ACTIVE).length === 2,
        15_000,
        () => b.describe(),
      );
      expect(says(b, ACTIVE)).toEqual(keys);

      // The lock lives as long as the holder's database session. When that session dies
      // (database restart, connection killed), the lock is released: the active indexer must
      // notice, stand down and compete again, never keep indexing without the lock (a standby
      // would take it and two indexers would follow the chain).
      const holders = await indexerLocks();
      expect(holders).toHaveLength(2);
      const linesBefore = b.logs().length;
      await adminQuery(inst.databaseUrl, 'SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [holders]);
      const since = () => b.logs().slice(linesBefore);
      await waitUntil(
        'the indexer to stand down and take both locks again on new sessions',
        () => {
          const after = since().filter((l) => l.role === 'indexer');
          const downAt = (chain: string) => after.findIndex((l) => l.chain === chain && l.msg.includes('standing down'));
          const activeAgain = (chain: string) =>
            after.some((l, i) => l.chain === chain && l.msg === ACTIVE && downAt(chain) >= 0 && i > downAt(chain));
          return keys.every(activeAgain);
        },
        30_000,
        () => b.describe(),
      );
      const relocked = await indexerLocks();
      expect(relocked).toHaveLength(2);
      for (const pid of relocked) expect(holders).not.toContain(pid);

      const exitB = await terminate(b);
      expect(exitB, b.describe()).toEqual({ code: 0, signal: null });
      expect(errorLogs(a)).toEqual([]);
      expect(errorLogs(b)).toEqual([]);
      // Both released their lock sessions: nothing of theirs is left holding an indexer lock.
      expect(await indexerLocks()).toEqual([]);
    },
  );

  it('misconfiguration stops the service before anything starts, naming the setting (exit code 2)', async () => {
    const noChains = await runCli(['start'], prodEnv({ CHAINS_FILE: undefined }));
    expect(noChains.code, noChains.stderr + noChains.stdout).toBe(2);
    expect(noChains.stderr).toMatch(/Invalid configuration: CHAINS_FILE/);
    expect(noChains.stdout).toBe('');

    const badKey = 'c2hvcnQta2V5';
    const shortKey = await runCli(['start', 'api'], prodEnv({ MASTER_KEY: badKey }));
    expect(shortKey.code, shortKey.stderr + shortKey.stdout).toBe(2);
    expect(shortKey.stderr).toMatch(/Invalid configuration: MASTER_KEY/);
    expect(shortKey.stderr).not.toContain(badKey); // a key is never echoed
    expect(shortKey.stdout).toBe('');

    const unknownRole = await runCli(['start', 'foo'], prodEnv());
    expect(unknownRole.code, unknownRole.stderr + unknownRole.stdout).toBe(2);
    expect(unknownRole.stderr).toMatch(/unknown role.*foo/);
    expect(unknownRole.stdout).not.toContain('running');

    // None of them seeded anything (a forgotten chains file must never bring up the demo).
    const businesses = await adminQuery<{ name: string }>(inst.databaseUrl, 'SELECT name FROM businesses');
    expect(businesses).toEqual([{ name: 'Acme Payments' }]);
    expect(readdirSync(inst.dataDir)).toEqual([]);
  });
});
