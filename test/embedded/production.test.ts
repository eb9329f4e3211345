/**
 * The service as an operator runs it in production, through the real CLI (`tsx src/main.ts`,
 * what `npm run migrate` and `npm start` run) as child processes: an external PostgreSQL
 * (a fresh database on the test cluster), MASTER_KEY from the environment, and a chains file
 * that describes the in-process devnet chains as custom chains, the way an operator
 * configures a private EVM chain. Then each role alone, two indexers electing one active per
 * chain, and the misconfigurations that must stop the service before anything starts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPublicClient, createWalletClient, erc20Abi, getAddress, http, isAddress, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startDevnet, type Devnet, type DevnetChain } from '../../src/devnet/devnet.js';
import { devnetChain } from '../../src/devnet/chain.js';
import { createLogger } from '../../src/lib/logger.js';
import { createDatabaseFromTemplate, dropDatabase } from '../support/harness.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TSX_CLI = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 20_000;
const CATALOGUE_SLUGS = ['ethereum', 'bsc', 'polygon', 'base', 'arbitrum', 'optimism', 'avalanche', 'celo'];

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface Proc {
  child: ChildProcess;
  /** The tsx process; with `detached` it also leads the process group of the CLI. */
  pid: number;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<Exit>;
  /** The JSON (pino) log lines printed on stdout so far. */
  logs: () => { level: number; msg: string; [k: string]: unknown }[];
}

// ---------------------------------------------------------------------------------------
// processes

const procs: Proc[] = [];

function procStat(pid: number): { state: string; ppid: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, ppid: Number(fields[1]) };
  } catch {
    return null;
  }
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** Every live process below `root` (children, grandchildren...). */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(Number(name));
    if (stat && stat.state !== 'Z') parent.set(Number(name), stat.ppid);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const [child, ppid] of parent) {
      if (ppid === pid) {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(root);
  return out;
}

async function waitUntil(what: string, check: () => boolean, ms: number, context: () => string = () => ''): Promise<void> {
  for (const deadline = Date.now() + ms; !check(); await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}\n${context()}`);
  }
}

function spawnCli(args: string[], env: NodeJS.ProcessEnv): Proc {
  // detached: a process group of its own, so afterAll can take down tsx and its node child together.
  const child = spawn(process.execPath, [TSX_CLI, 'src/main.ts', ...args], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const proc: Proc = {
    child,
    pid: child.pid!,
    stdout: () => out,
    stderr: () => err,
    exited,
    logs: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level: number; msg: string }),
  };
  procs.push(proc);
  return proc;
}

const describeProc = (p: Proc) => `stdout:\n${p.stdout()}\nstderr:\n${p.stderr()}`;

/** A command that runs to completion (migrate, create-business, a refused start). */
async function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<Exit & { stdout: string; stderr: string }> {
  const proc = spawnCli(args, env);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`"${args.join(' ')}" still running after ${START_TIMEOUT_MS} ms\n${describeProc(proc)}`)),
      START_TIMEOUT_MS,
    );
  });
  try {
    const exit = await Promise.race([proc.exited, timeout]);
    return { ...exit, stdout: proc.stdout(), stderr: proc.stderr() };
  } finally {
    clearTimeout(timer);
  }
}

/** `start <role>` up to its "running" banner. */
async function startRole(role: string, env: NodeJS.ProcessEnv): Promise<Proc & { banner: string }> {
  const proc = spawnCli(['start', role], env);
  let exit: Exit | undefined;
  void proc.exited.then((e) => (exit = e));
  await waitUntil(
    `the ${role} banner`,
    () => {
      if (exit) throw new Error(`start ${role} exited during start (${JSON.stringify(exit)})\n${describeProc(proc)}`);
      return proc.stdout().includes('Stop with Ctrl-C.');
    },
    START_TIMEOUT_MS,
    () => describeProc(proc),
  );
  const banner = proc.stdout().slice(proc.stdout().indexOf('Stablecoin wallet service running'));
  return Object.assign(proc, { banner: banner.slice(0, banner.indexOf('Stop with Ctrl-C.')) });
}

/**
 * What an orchestrator does: SIGTERM to the process it started (tsx relays it to the
 * service). Resolves with the exit once the whole process tree below it is gone too.
 */
async function terminate(proc: Proc): Promise<Exit> {
  const tree = descendants(proc.pid);
  process.kill(proc.pid, 'SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`still running ${STOP_TIMEOUT_MS} ms after SIGTERM\n${describeProc(proc)}`)),
      STOP_TIMEOUT_MS,
    );
  });
  try {
    const exit = await Promise.race([proc.exited, timeout]);
    const alive = (pid: number) => !['Z', undefined].includes(procStat(pid)?.state);
    await waitUntil(
      'the processes below the CLI to exit',
      () => !tree.some(alive),
      5_000,
      () =>
        tree
          .filter(alive)
          .map((pid) => `${pid}: ${cmdline(pid)}`)
          .join('\n'),
    );
    return exit;
  } finally {
    clearTimeout(timer);
  }
}

/** Levels 50 (error) and 60 (fatal) among a process's JSON log lines. */
const errorLogs = (p: Proc) =>
  p
    .logs()
    .filter((l) => l.level >= 50)
    .map((l) => l.msg);

// ---------------------------------------------------------------------------------------
// the installation

const logger = createLogger('warn');
let devnet: Devnet | undefined;
let databaseUrl: string | undefined;
let emptyDatabaseUrl: string | undefined;
let tmp: string | undefined;
let dataDir: string;
let chainsFile: string;
const masterKey = randomBytes(32).toString('base64');

/** The outer environment minus everything that configures the service. */
function cleanEnv(): NodeJS.ProcessEnv {
  const ours =
    /^(DATABASE_URL|MASTER_KEY|CHAINS_FILE|PUBLIC_URL|HOST|PORT|DATA_DIR|LOG_LEVEL|ADDRESS_LIMIT|ALLOW_KEY_EXPORT_.*|DEVNET|DEVNET_.*|RPC_.*)$/;
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!ours.test(k)) env[k] = v;
  return env;
}

/** The README's production settings. */
function prodEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
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
}

const chainOf = (slug: string): DevnetChain => devnet!.chains.find((c) => c.config.blockchain.slug === slug)!;

async function adminQuery<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'wallet-production-'));
  dataDir = path.join(tmp, 'data');
  await mkdir(dataDir);
  databaseUrl = await createDatabaseFromTemplate();
  devnet = await startDevnet({ portBase: 0, blockTime: 0, logger });

  // Exactly what an operator writes for private EVM chains: none of these slugs is in the
  // built-in catalogue, so chain id, name, symbol and the token list come from the file.
  // The first names its Multicall3, the second leaves it out (balances read call by call).
  chainsFile = path.join(tmp, 'chains.json');
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
});

afterAll(async () => {
  // Whatever happened above: no CLI process survives, then the devnet, databases and files go.
  for (const p of procs) {
    if (p.child.exitCode !== null || p.child.signalCode !== null) continue;
    try {
      process.kill(-p.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  await Promise.all(procs.map((p) => Promise.race([p.exited, new Promise((r) => setTimeout(r, 5_000))])));
  await devnet?.stop().catch(() => undefined);
  for (const url of [databaseUrl, emptyDatabaseUrl]) if (url) await dropDatabase(url).catch(() => undefined);
  if (tmp) await rm(tmp, { recursive: true, force: true });
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
    const rows = await adminQuery<{ id: string; name: string }>(databaseUrl!, 'SELECT id::text, name FROM businesses');
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

    const ready = await call('GET', '/readyz', null);
    expect(ready.status, JSON.stringify(ready.body)).toBe(200);
    expect(Object.keys(ready.body.checks).sort()).toEqual(['database', 'rpc:devnet-bsc:testnet', 'rpc:devnet-eth:testnet']);

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
    const below = descendants(service.pid).map((pid) => `${pid}: ${cmdline(pid)}`);
    expect(below.length).toBeGreaterThanOrEqual(1); // the node process tsx runs
    expect(below.filter((line) => /postgres|anvil/.test(line))).toEqual([]);
    expect(readdirSync(dataDir)).toEqual([]);
    expect(existsSync(path.join(dataDir, 'postgres'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'credentials.json'))).toBe(false);
    expect(service.logs().filter((l) => l.role === 'worker' || l.role === 'indexer')).toEqual([]);

    const exit = await terminate(service);
    expect(exit, describeProc(service)).toEqual({ code: 0, signal: null });
    expect(errorLogs(service)).toEqual([]);
    // No API key reaches the logs.
    for (const key of seenKeys) expect(service.stdout() + service.stderr()).not.toContain(key);
  });

  it('start worker: runs the jobs queued in this database and stops cleanly on SIGTERM', async () => {
    // A job queued while no worker runs stays queued (the API role does not run jobs)...
    const [job] = await adminQuery<{ id: string }>(
      databaseUrl!,
      "SELECT id::text FROM graphile_worker.add_job('webhooks_sweep', '{}'::json)",
    );
    const pending = async () =>
      Number(
        (await adminQuery<{ n: string }>(databaseUrl!, 'SELECT count(*)::text AS n FROM graphile_worker.jobs WHERE id = $1', [job!.id]))[0]!
          .n,
      );
    expect(await pending()).toBe(1);

    const worker = await startRole('worker', prodEnv());
    expect(worker.banner).toContain('running (worker)');
    expect(worker.banner).not.toMatch(/API:/);
    expect(worker.logs().some((l) => l.msg === 'worker started' && l.role === 'worker')).toBe(true);
    // ...until the worker process takes it and completes it (completed jobs are deleted).
    let left = 1;
    for (const deadline = Date.now() + 15_000; left > 0 && Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      left = await pending();
    }
    expect(left, describeProc(worker)).toBe(0);
    expect(worker.logs().some((l) => l.role === 'worker' && l.msg.includes(`Completed task ${job!.id} (webhooks_sweep`))).toBe(true);

    const exit = await terminate(worker);
    expect(exit, describeProc(worker)).toEqual({ code: 0, signal: null });
    expect(errorLogs(worker)).toEqual([]);
  });

  /** Backends holding an indexer lock (advisory, first key 0x1d3) in our database. */
  const indexerLocks = async () =>
    (
      await adminQuery<{ pid: number }>(
        databaseUrl!,
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

      const a = await startRole('indexer', prodEnv());
      expect(a.banner).toContain('running (indexer)');
      await waitUntil(
        'the first indexer to be active on both chains',
        () => says(a, ACTIVE).length === 2,
        15_000,
        () => describeProc(a),
      );
      expect(says(a, ACTIVE)).toEqual(keys);

      const b = await startRole('indexer', prodEnv());
      await waitUntil(
        'the second indexer to stand by on both chains',
        () => says(b, STANDBY).length === 2,
        15_000,
        () => describeProc(b),
      );
      expect(says(b, STANDBY)).toEqual(keys);
      expect(says(b, ACTIVE)).toEqual([]);
      expect(says(a, STANDBY)).toEqual([]);

      const exitA = await terminate(a);
      expect(exitA, describeProc(a)).toEqual({ code: 0, signal: null });
      // The standby polls the lock every 5 s: well within 15 s it is active on both chains.
      await waitUntil(
        'the standby to take over both chains',
        () => says(b, ACTIVE).length === 2,
        15_000,
        () => describeProc(b),
      );
      expect(says(b, ACTIVE)).toEqual(keys);

      // The lock lives as long as the holder's database session. When that session dies
      // (database restart, connection killed), the lock is released: the active indexer must
      // notice, stand down and compete again, never keep indexing without the lock (a standby
      // would take it and two indexers would follow the chain).
      const holders = await indexerLocks();
      expect(holders).toHaveLength(2);
      const linesBefore = b.logs().length;
      await adminQuery(databaseUrl!, 'SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [holders]);
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
        () => describeProc(b),
      );
      const relocked = await indexerLocks();
      expect(relocked).toHaveLength(2);
      for (const pid of relocked) expect(holders).not.toContain(pid);

      const exitB = await terminate(b);
      expect(exitB, describeProc(b)).toEqual({ code: 0, signal: null });
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
    const businesses = await adminQuery<{ name: string }>(databaseUrl!, 'SELECT name FROM businesses');
    expect(businesses).toEqual([{ name: 'Acme Payments' }]);
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
