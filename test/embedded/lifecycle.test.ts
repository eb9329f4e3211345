/**
 * The embedded default as a person runs it: `npm start` in a terminal (npm runs one node
 * process, `node --import tsx src/main.ts`) with an empty data directory; a second start
 * refused while the first runs; Ctrl-C (SIGINT to the whole foreground process group: npm
 * relays it too, so the service gets it twice, sometimes seconds apart under load); a start
 * on the same directory after a clean stop; and a run killed with SIGKILL that the next
 * start recovers from. The tests share one data directory and run in order.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, erc20Abi, getAddress, http, isAddress, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { base58 } from '@scure/base';
import { devnetChain } from '../../src/devnet/chain.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 20_000;

interface Credentials {
  baseUrl: string;
  business: { id: string; name: string; apiKey: string };
  wallets: { id: string; name: string; network: string; blockchain: string; address: string; apiKey: string }[];
  chains: {
    slug: string;
    chainId: number;
    rpcUrl: string;
    assets: { id: string; symbol: string; address: string; decimals: number }[];
    faucet: { address: string; privateKey: string };
  }[];
  dashboard: { url: string; login: string; password: string };
}

interface Service {
  child: ChildProcess;
  /** The npm process; it is also the id of the process group `npm start` runs in. */
  pid: number;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  banner: { api: string; docs: string; dashboard: string; credentials: string };
  /** With PORT given: /readyz's first 200 during the start, and credentials.json's baseUrl at that moment. */
  firstReady?: { checks: Record<string, string>; credentialsBaseUrl: string | null };
}

// ---------------------------------------------------------------------------------------
// process helpers (Linux /proc)

function procStat(pid: number): { state: string; ppid: number; pgid: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, ppid: Number(fields[1]), pgid: Number(fields[2]) };
  } catch {
    return null;
  }
}

/** Running (a zombie waiting to be reaped holds no port and no files: it counts as gone). */
function isAlive(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== null && stat.state !== 'Z';
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

function allPids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/** Live processes that belong to this data directory: by command line or by process group. */
function leftovers(dataDir: string, groups: number[]): string[] {
  return allPids()
    .filter((pid) => pid !== process.pid && isAlive(pid))
    .filter((pid) => cmdline(pid).includes(dataDir) || groups.includes(procStat(pid)?.pgid ?? -1))
    .map((pid) => `${pid}: ${cmdline(pid)}`);
}

async function waitUntil(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  for (const deadline = Date.now() + ms; !check(); await new Promise((r) => setTimeout(r, 50))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

const readPid = (file: string): number => Number(readFileSync(file, 'utf8').split('\n')[0]!.trim());

// ---------------------------------------------------------------------------------------
// the service under test

let dataDir: string;
const started: Service[] = [];
/** Every postgres and anvil pid seen, so afterAll can clean up whatever a failure left. */
const seenPids = new Set<number>();

function serviceEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // Nothing from the outer environment may configure the service: it must be the default.
  const ours =
    /^(DATABASE_URL|MASTER_KEY|CHAINS_FILE|PUBLIC_URL|HOST|PORT|HEALTH_PORT|DATA_DIR|LOG_LEVEL|ADDRESS_LIMIT|SHUTDOWN_TIMEOUT_MS|ALLOW_KEY_EXPORT_.*|DEVNET|DEVNET_.*|RPC_.*)$/;
  for (const [k, v] of Object.entries(process.env)) if (!ours.test(k)) env[k] = v;
  return { ...env, DATA_DIR: dataDir, PORT: '0', DEVNET_PORT: '0', DEVNET_BLOCK_TIME: '0', LOG_LEVEL: 'warn', ...extra };
}

/** `npm start [-- args]` in a process group of its own, as a terminal runs it in the foreground. */
function spawnNpmStart(extraEnv: Record<string, string> = {}, args: string[] = []): ChildProcess {
  return spawn('npm', ['start', ...(args.length ? ['--', ...args] : [])], {
    cwd: ROOT,
    env: serviceEnv(extraEnv),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function startService(extraEnv: Record<string, string> = {}): Promise<Service> {
  // detached: a process group of its own, so a Ctrl-C can be sent to it as a terminal would.
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    env: serviceEnv(extraEnv),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const service = { child, pid: child.pid!, stdout: () => out, stderr: () => err, exited } as Service;
  started.push(service);

  const deadline = Date.now() + START_TIMEOUT_MS;
  let done: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void exited.then((e) => (done = e));
  // With a known port: asks /readyz all along the start, and notes what a client that waits for
  // it would find at its first 200 (a readiness probe, a script reading the credentials).
  const watching = extraEnv.PORT
    ? (async () => {
        // Until its first 200 (also once the banner is out: ready may come just after it).
        while (!done && Date.now() < deadline) {
          const res = await fetch(`http://127.0.0.1:${extraEnv.PORT}/readyz`).catch(() => null);
          if (res?.status === 200) {
            const body = (await res.json()) as { checks: Record<string, string> };
            const file = path.join(dataDir, 'credentials.json');
            const credentialsBaseUrl = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Credentials).baseUrl : null;
            service.firstReady = { checks: body.checks, credentialsBaseUrl };
            return;
          }
          await res?.arrayBuffer();
          await new Promise((r) => setTimeout(r, 10));
        }
      })()
    : null;
  while (!out.includes('Stop with Ctrl-C.')) {
    if (done) throw new Error(`the service exited during start (${JSON.stringify(done)})\nstdout:\n${out}\nstderr:\n${err}`);
    if (Date.now() > deadline) throw new Error(`no "running" banner within ${START_TIMEOUT_MS} ms\nstdout:\n${out}\nstderr:\n${err}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const line = (label: string) => new RegExp(`^\\s*${label}:\\s+(\\S+)`, 'm').exec(out)?.[1] ?? '';
  service.banner = { api: line('API'), docs: line('Docs'), dashboard: line('Dashboard'), credentials: line('Credentials') };
  await watching;
  recordPids();
  return service;
}

function recordPids(): void {
  const pm = path.join(dataDir, 'postgres', 'postmaster.pid');
  if (existsSync(pm)) seenPids.add(readPid(pm));
  for (const file of anvilPidFiles()) seenPids.add(readPid(file));
}

function anvilPidFiles(): string[] {
  const dir = path.join(dataDir, 'devnet');
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.pid'))
        .map((f) => path.join(dir, f))
    : [];
}

/** A person pressing Ctrl-C: the terminal sends SIGINT to the whole foreground process group. */
async function pressCtrlC(service: Service): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  process.kill(-service.pid, 'SIGINT');
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(
      () => reject(new Error(`still running ${STOP_TIMEOUT_MS} ms after Ctrl-C\n${service.stdout()}\n${service.stderr()}`)),
      STOP_TIMEOUT_MS,
    ).unref(),
  );
  return Promise.race([service.exited, timeout]);
}

function readCredentials(): Credentials {
  return JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8')) as Credentials;
}

async function api(
  creds: Credentials,
  method: string,
  urlPath: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${creds.baseUrl}${urlPath}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

function chainOf(creds: Credentials, slug: string) {
  const chain = creds.chains.find((c) => c.slug === slug);
  if (!chain) throw new Error(`no chain ${slug} in credentials`);
  return chain;
}
function walletOf(creds: Credentials, slug: string) {
  const wallet = creds.wallets.find((w) => w.blockchain === slug);
  if (!wallet) throw new Error(`no wallet on ${slug} in credentials`);
  return wallet;
}

/** A Solana JSON-RPC call to the devnet-solana stand-in; the result, or the error thrown. */
async function solanaRpc(rpcUrl: string, method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** Lamports of `address` on devnet-solana, as of the newest block. */
async function lamports(rpcUrl: string, address: string): Promise<bigint> {
  return BigInt((await solanaRpc(rpcUrl, 'getBalance', [address, { commitment: 'processed' }])).value);
}

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

async function tokenBalance(rpcUrl: string, token: string, owner: string): Promise<bigint> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  return client.readContract({ address: token as Address, abi: erc20Abi, functionName: 'balanceOf', args: [owner as Address] });
}

/** Levels 50 (error) and 60 (fatal) among the service's JSON log lines: each message and its error's. */
function errorLogs(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => /^\{.*"level":(50|60)\b/.test(l))
    .map((l) => {
      const line = JSON.parse(l) as { msg?: unknown; err?: { message?: unknown } };
      return `${String(line.msg)}${line.err ? ` (${String(line.err.message)})` : ''}`.slice(0, 400);
    });
}

/** No error line in the service's log; the lines found, if any, in the failure's message. */
function expectNoErrors(text: string): void {
  const found = errorLogs(text);
  expect(found, `error lines in the service's log:\n${found.join('\n')}`).toEqual([]);
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

async function freeConsecutivePorts(): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const srv = createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
  for (let attempt = 0; attempt < 50; attempt++) {
    // Below Linux's ephemeral range (32768 and up by default): there, the connections and
    // `listen(0)` servers of whatever else runs (other test files) can take one of the four
    // between this check and the service binding it.
    const base = 10_000 + Math.floor(Math.random() * 22_000);
    // The two anvils, devnet-tron (the Tron stand-in) and devnet-solana (the Solana stand-in) after them.
    if ((await free(base)) && (await free(base + 1)) && (await free(base + 2)) && (await free(base + 3))) return base;
  }
  throw new Error('no four consecutive free ports found');
}

// ---------------------------------------------------------------------------------------

beforeAll(async () => {
  // Under the system temp dir (not /root): the postgres OS user must be able to reach it.
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-lifecycle-'));
});

afterAll(async () => {
  // Whatever happened above, leave no service, PostgreSQL or anvil behind.
  for (const s of started) {
    try {
      process.kill(-s.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  recordPids();
  for (const pid of seenPids) {
    const cmd = cmdline(pid);
    if (!isAlive(pid) || !(cmd.includes('postgres') || cmd.includes('anvil'))) continue;
    try {
      // postgres runs in a process group of its own: take its backends with it.
      if (procStat(pid)?.pgid === pid) process.kill(-pid, 'SIGKILL');
      else process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  await waitUntil('orphans to exit', () => [...seenPids].every((pid) => !isAlive(pid)), 5_000).catch(() => undefined);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe.sequential('embedded default (npm start) lifecycle', () => {
  // Carried from one test to the next: the first run's results are what later runs must keep.
  let first: Credentials;
  let childAddress: { id: string; address: string; walletId: string };
  const USDC_SENT = 12_500_000n; // 12.5 USDC on the 6-decimal chain
  const USDT_SENT = 7_250_000_000_000_000_000n; // 7.25 USDT on the 18-decimal chain
  let bscChild: { id: string; address: string; walletId: string };

  it(
    'first start: initialises everything, prints where things are and writes credentials.json',
    { timeout: START_TIMEOUT_MS + 60_000 },
    async () => {
      const service = await startService();
      const credFile = path.join(dataDir, 'credentials.json');
      first = readCredentials();
      const creds = first;

      // The banner names the real listening port (PORT=0), the docs and the credentials file.
      expect(creds.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(Number(new URL(creds.baseUrl).port)).toBeGreaterThan(0);
      expect(service.banner.api).toBe(`${creds.baseUrl}/v1`);
      expect(service.banner.docs).toBe(`${creds.baseUrl}/docs`);
      expect(service.banner.credentials).toBe(credFile);
      expect(service.banner.dashboard).toBe(creds.dashboard.url);
      expect((await fetch(service.banner.docs, { redirect: 'follow' })).status).toBe(200);

      // Exactly the shape of DESIGN section 8, nothing more.
      expect(statSync(credFile).mode & 0o777).toBe(0o600);
      expect(Object.keys(creds).sort()).toEqual(['baseUrl', 'business', 'chains', 'dashboard', 'wallets']);
      expect(Object.keys(creds.business).sort()).toEqual(['apiKey', 'id', 'name']);
      expect(Object.keys(creds.dashboard).sort()).toEqual(['login', 'password', 'url']);
      expect(creds.dashboard.url.startsWith(creds.baseUrl)).toBe(true);
      expect(creds.dashboard.password.length).toBeGreaterThanOrEqual(12);
      expect(creds.wallets).toHaveLength(4);
      for (const w of creds.wallets) {
        expect(Object.keys(w).sort()).toEqual(['address', 'apiKey', 'blockchain', 'id', 'name', 'network']);
        expect(w.network).toBe('testnet');
        if (w.blockchain === 'devnet-tron') expect(w.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
        else if (w.blockchain === 'devnet-solana') expect(w.address).toMatch(BASE58);
        else expect(isAddress(w.address)).toBe(true);
        expect(w.apiKey).toMatch(/^sk_test_/);
      }
      expect(creds.wallets.map((w) => w.blockchain).sort()).toEqual(['devnet-bsc', 'devnet-eth', 'devnet-solana', 'devnet-tron']);
      expect(creds.chains.map((c) => c.slug).sort()).toEqual(['devnet-bsc', 'devnet-eth', 'devnet-solana', 'devnet-tron']);
      const decimalsBySlug: Record<string, number> = { 'devnet-eth': 6, 'devnet-bsc': 18 };
      for (const c of creds.chains) {
        // The EVM and Tron devnets also name their sanctions oracle (AML screening, docs/aml.md).
        const oracle = (c as { sanctionsOracle?: string }).sanctionsOracle;
        expect(Object.keys(c).sort()).toEqual([
          'assets',
          'chainId',
          'faucet',
          'rpcUrl',
          ...(oracle === undefined ? [] : ['sanctionsOracle']),
          'slug',
        ]);
        if (c.slug === 'devnet-tron') expect(oracle).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
        else if (c.slug === 'devnet-solana') expect(oracle).toBeUndefined();
        else expect(isAddress(oracle ?? '')).toBe(true);
        if (c.slug === 'devnet-tron') {
          // The Tron stand-in: java-tron's HTTP API at rpcUrl, USDT and USDC (6 decimals) deployed, a funded faucet.
          expect(c.assets.map((a) => [a.symbol, a.decimals]).sort()).toEqual([
            ['USDC', 6],
            ['USDT', 6],
          ]);
          for (const a of c.assets) expect(a.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
          const post = async (p: string, body: unknown) =>
            (await (await fetch(`${c.rpcUrl}/${p}`, { method: 'POST', body: JSON.stringify(body) })).json()) as Record<string, any>;
          expect((await post('wallet/getnowblock', {})).blockID).toMatch(/^[0-9a-f]{64}$/);
          expect((await post('wallet/getaccount', { address: c.faucet.address, visible: true })).balance).toBeGreaterThan(0);
          continue;
        }
        if (c.slug === 'devnet-solana') {
          // The Solana stand-in: Solana's JSON-RPC at rpcUrl, USDC and USDT mints (6 decimals), a
          // funded faucet whose key is a Solana wallet's (base58 of seed ‖ public key), and the
          // demo master funded with 100 SOL (it pays every fee of its wallet).
          expect(c.assets.map((a) => [a.symbol, a.decimals]).sort()).toEqual([
            ['USDC', 6],
            ['USDT', 6],
          ]);
          for (const a of c.assets) {
            expect(a.address).toMatch(BASE58);
            const mint = await solanaRpc(c.rpcUrl, 'getAccountInfo', [a.address, { encoding: 'jsonParsed', commitment: 'confirmed' }]);
            expect(mint.value.data.parsed).toMatchObject({ type: 'mint', info: { decimals: 6, mintAuthority: c.faucet.address } });
          }
          expect(await solanaRpc(c.rpcUrl, 'getHealth')).toBe('ok');
          expect(base58.decode(c.faucet.privateKey).subarray(32)).toEqual(base58.decode(c.faucet.address));
          expect(await lamports(c.rpcUrl, c.faucet.address)).toBeGreaterThan(0n);
          const master = walletOf(creds, 'devnet-solana').address;
          // Funded by a real transfer that lands in the next slot (400 ms).
          let held = 0n;
          for (const deadline = Date.now() + 10_000; held === 0n && Date.now() < deadline; await new Promise((r) => setTimeout(r, 100)))
            held = await lamports(c.rpcUrl, master);
          expect(held).toBe(100_000_000_000n);
          continue;
        }
        expect(Object.keys(c.faucet).sort()).toEqual(['address', 'privateKey']);
        expect(privateKeyToAccount(c.faucet.privateKey as Hex).address).toBe(getAddress(c.faucet.address));
        expect(c.assets.map((a) => a.symbol).sort()).toEqual(['USDC', 'USDT']);
        for (const a of c.assets) {
          expect(Object.keys(a).sort()).toEqual(['address', 'decimals', 'id', 'symbol']);
          expect(a.decimals).toBe(decimalsBySlug[c.slug]);
        }
        // The RPC URL is live and is the chain it claims to be; the tokens are real ERC-20s
        // with the advertised decimals, and the faucet holds them.
        const client = createPublicClient({ transport: http(c.rpcUrl) });
        expect(await client.getChainId()).toBe(c.chainId);
        expect(await client.getBalance({ address: c.faucet.address as Address })).toBeGreaterThan(0n);
        for (const a of c.assets) {
          const token = a.address as Address;
          expect(await client.readContract({ address: token, abi: erc20Abi, functionName: 'symbol' })).toBe(a.symbol);
          expect(await client.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' })).toBe(a.decimals);
          expect(await tokenBalance(c.rpcUrl, a.address, c.faucet.address)).toBeGreaterThanOrEqual(1_000n * 10n ** BigInt(a.decimals));
        }
      }
      expect(chainOf(creds, 'devnet-eth').chainId).not.toBe(chainOf(creds, 'devnet-bsc').chainId);

      // The keys work against the API: the wallet, its enabled test tokens, the business key.
      for (const w of creds.wallets) {
        const got = await api(creds, 'GET', `/v1/wallets/${w.id}`, w.apiKey);
        expect(got.status).toBe(200);
        expect(got.body.data).toMatchObject({ id: w.id, address: w.address, network: 'testnet', isActive: true });
        expect(got.body.data.business.id).toBe(creds.business.id);

        const assets = await api(creds, 'GET', `/v1/wallets/${w.id}/assets`, w.apiKey);
        expect(assets.status).toBe(200);
        const enabled = assets.body.data
          .filter((wa: { isActive: boolean }) => wa.isActive)
          .map((wa: { asset: { id: string; address: string } }) => wa.asset);
        const expected = chainOf(creds, w.blockchain).assets;
        expect(enabled.map((a: { id: string }) => a.id).sort()).toEqual(expected.map((a) => a.id).sort());
        const canonical = (a: string) => (w.blockchain === 'devnet-tron' || w.blockchain === 'devnet-solana' ? a : getAddress(a));
        expect(enabled.map((a: { address: string }) => canonical(a.address)).sort()).toEqual(
          expected.map((a) => canonical(a.address)).sort(),
        );
      }
      const list = await api(creds, 'GET', '/v1/wallets', creds.business.apiKey);
      expect(list.status).toBe(200);
      expect(list.body.data.map((w: { id: string }) => w.id).sort()).toEqual(creds.wallets.map((w) => w.id).sort());

      // A child address, funded from the faucet with a real transfer on each chain.
      const fund = async (slug: string, symbol: string, units: bigint) => {
        const wallet = walletOf(creds, slug);
        const created = await api(creds, 'POST', `/v1/wallets/${wallet.id}/addresses`, wallet.apiKey, { name: `lifecycle ${slug}` });
        expect(created.status).toBe(200);
        const child = { id: created.body.data.id as string, address: created.body.data.address as string, walletId: wallet.id };
        const chain = chainOf(creds, slug);
        const token = chain.assets.find((a) => a.symbol === symbol)!;
        const viemChain = devnetChain(chain.chainId, chain.rpcUrl);
        const sender = createWalletClient({
          chain: viemChain,
          transport: http(chain.rpcUrl),
          account: privateKeyToAccount(chain.faucet.privateKey as Hex),
        });
        const hash = await sender.writeContract({
          address: token.address as Address,
          abi: erc20Abi,
          functionName: 'transfer',
          args: [child.address as Address, units],
        });
        const receipt = await createPublicClient({
          chain: viemChain,
          transport: http(chain.rpcUrl),
          pollingInterval: 100,
        }).waitForTransactionReceipt({ hash });
        expect(receipt.status).toBe('success');
        expect(await tokenBalance(chain.rpcUrl, token.address, child.address)).toBe(units);
        return { child, token, wallet };
      };
      const eth = await fund('devnet-eth', 'USDC', USDC_SENT);
      childAddress = eth.child;
      const bsc = await fund('devnet-bsc', 'USDT', USDT_SENT);
      bscChild = bsc.child;

      // Balances through the API equal what is on chain, in each asset's own decimals.
      const ethBalances = await api(creds, 'GET', `/v1/wallets/${eth.wallet.id}/balances?address=${eth.child.address}`, eth.wallet.apiKey);
      expect(ethBalances.status).toBe(200);
      const bySymbol = (res: { body: any }) =>
        Object.fromEntries(
          res.body.data.map((b: { asset: { asset: { symbol: string } }; balance: string }) => [b.asset.asset.symbol, b.balance]),
        );
      expect(bySymbol(ethBalances)).toMatchObject({ USDC: '12.5', USDT: '0' });
      const bscBalances = await api(creds, 'GET', `/v1/wallets/${bsc.wallet.id}/addresses/${bsc.child.id}/balances`, bsc.wallet.apiKey);
      expect(bscBalances.status).toBe(200);
      expect(bySymbol(bscBalances)).toMatchObject({ USDT: '7.25', USDC: '0' });
      const master = await api(creds, 'GET', `/v1/wallets/${eth.wallet.id}/balances`, eth.wallet.apiKey);
      expect(master.status).toBe(200);
      expect(bySymbol(master)).toMatchObject({ USDC: '0', USDT: '0' });

      expectNoErrors(service.stdout());
    },
  );

  it('npm runs the service as one node process: no shell or loader process between them', async () => {
    const service = started.at(-1)!;
    const children = allPids().filter((pid) => procStat(pid)?.ppid === service.pid && isAlive(pid));
    expect(children).toHaveLength(1);
    expect(cmdline(children[0]!).trim()).toMatch(/^(\S*\/)?node --import tsx src\/main\.ts$/);
  });

  it(
    'a second start on the same data directory refuses, naming the running process, and touches nothing',
    { timeout: 120_000 },
    async () => {
      const service = started.at(-1)!;
      const [servicePid] = allPids().filter((pid) => procStat(pid)?.ppid === service.pid && isAlive(pid));
      const postmasterFile = path.join(dataDir, 'postgres', 'postmaster.pid');
      const postmaster = readFileSync(postmasterFile, 'utf8');
      const anvilPids = anvilPidFiles().map(readPid).sort();
      const credentials = readFileSync(path.join(dataDir, 'credentials.json'), 'utf8');
      const before = readdirSync(dataDir).sort();

      // The same command again, and one-off commands that would start the database too.
      for (const args of [[], ['create-business', 'Second Business'], ['rotate-master-key', '--status']]) {
        const second = spawnNpmStart({}, args);
        let out = '';
        second.stdout!.on('data', (d) => (out += d));
        second.stderr!.on('data', (d) => (out += d));
        const code = await new Promise<number | null>((resolve) => second.once('exit', resolve));
        expect(code, out).toBe(1);
        expect(out).toContain(
          `refusing to start: ${realpathSync(dataDir)} is in use by another instance of the service (pid ${servicePid}:`,
        );
        expect(out).toContain('src/main.ts');
        expect(out).not.toContain('Stop with Ctrl-C.');
      }

      // Nothing was touched: the same PostgreSQL and anvil processes, files and data.
      expect(readFileSync(postmasterFile, 'utf8')).toBe(postmaster);
      expect(anvilPidFiles().map(readPid).sort()).toEqual(anvilPids);
      for (const pid of [readPid(postmasterFile), ...anvilPids]) expect(isAlive(pid), `pid ${pid}`).toBe(true);
      expect(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8')).toBe(credentials);
      expect(readdirSync(dataDir).sort()).toEqual(before);
      const creds = readCredentials();
      const wallet = creds.wallets[0]!;
      expect((await api(creds, 'GET', `/v1/wallets/${wallet.id}`, wallet.apiKey)).status).toBe(200);
      const businesses = await api(creds, 'GET', '/v1/wallets', creds.business.apiKey);
      expect(businesses.status).toBe(200);
    },
  );

  it('Ctrl-C stops the service, PostgreSQL and anvil cleanly', { timeout: STOP_TIMEOUT_MS + 20_000 }, async () => {
    const service = started.at(-1)!;
    const postmasterFile = path.join(dataDir, 'postgres', 'postmaster.pid');
    const postgresPid = readPid(postmasterFile);
    const anvilPids = anvilPidFiles().map(readPid);
    expect(anvilPids).toHaveLength(2);
    for (const pid of [postgresPid, ...anvilPids]) expect(isAlive(pid), `pid ${pid} before Ctrl-C`).toBe(true);

    const exit = await pressCtrlC(service);
    expect(exit, service.stderr()).toEqual({ code: 0, signal: null });
    expect(service.stderr()).not.toContain('forced exit');
    // The database must outlive the HTTP server and the worker: no connection errors on the way out.
    expectNoErrors(service.stdout());

    await waitUntil('postgres and anvil to exit', () => [postgresPid, ...anvilPids].every((pid) => !isAlive(pid)), 5_000);
    expect(leftovers(dataDir, [service.pid, postgresPid])).toEqual([]);
    expect(existsSync(postmasterFile)).toBe(false);
    expect(anvilPidFiles()).toEqual([]);
  });

  it('a second start reuses the database, the chain state, the wallets and the keys', { timeout: START_TIMEOUT_MS + 60_000 }, async () => {
    // On another port than the first run's (PORT=0 gave it one): what credentials.json says
    // when /readyz first answers 200 shows whether the start had finished by then.
    const port = await freePort();
    const service = await startService({ PORT: String(port) });
    const again = readCredentials();
    expect(again.baseUrl).toBe(`http://127.0.0.1:${port}`);
    // Ready only once the whole start is done: every role runs and the credentials are written.
    expect(service.firstReady, 'readyz answered 200 during the start').toBeDefined();
    expect(service.firstReady!.credentialsBaseUrl).toBe(again.baseUrl);
    expect(service.firstReady!.checks.worker).toBe('ok');

    expect(again.business).toEqual(first.business);
    expect(again.wallets).toEqual(first.wallets);
    expect(again.dashboard.password).toBe(first.dashboard.password);
    for (const c of first.chains) {
      const now = chainOf(again, c.slug);
      expect(now.assets).toEqual(c.assets);
      expect(now.faucet).toEqual(c.faucet);
      expect(now.chainId).toBe(c.chainId);
    }
    expect(service.banner.api).toBe(`${again.baseUrl}/v1`);

    // The address made in the first run is still the wallet's, and its deposit is still on chain.
    const wallet = first.wallets.find((w) => w.id === childAddress.walletId)!;
    const list = await api(again, 'GET', `/v1/wallets/${wallet.id}/addresses`, wallet.apiKey);
    expect(list.status).toBe(200);
    expect(list.body.data.map((a: { id: string; address: string }) => [a.id, a.address])).toContainEqual([
      childAddress.id,
      childAddress.address,
    ]);
    const ethChain = chainOf(again, 'devnet-eth');
    const usdc = ethChain.assets.find((a) => a.symbol === 'USDC')!;
    expect(await tokenBalance(ethChain.rpcUrl, usdc.address, childAddress.address)).toBe(USDC_SENT);
    const one = await api(again, 'GET', `/v1/wallets/${wallet.id}/addresses/${childAddress.id}/balance?assetId=${usdc.id}`, wallet.apiKey);
    expect(one.status).toBe(200);
    expect(one.body.data.balance).toBe('12.5');
    const bscChain = chainOf(again, 'devnet-bsc');
    const usdt = bscChain.assets.find((a) => a.symbol === 'USDT')!;
    expect(await tokenBalance(bscChain.rpcUrl, usdt.address, bscChild.address)).toBe(USDT_SENT);

    // The Solana stand-in kept its chain: the same mints (above), the demo master's SOL funded once.
    const solana = chainOf(again, 'devnet-solana');
    expect(await lamports(solana.rpcUrl, walletOf(again, 'devnet-solana').address)).toBe(100_000_000_000n);
    const solanaWallet = walletOf(again, 'devnet-solana');
    const solBalance = await api(again, 'GET', `/v1/wallets/${solanaWallet.id}/balances`, solanaWallet.apiKey);
    expect(solBalance.status).toBe(200);

    // No second business or extra wallets were seeded.
    const wallets = await api(again, 'GET', '/v1/wallets', again.business.apiKey);
    expect(wallets.body.data).toHaveLength(4);

    // This time a supervisor stops `npm start`: SIGTERM to npm alone, which passes it on.
    const postgresPid = readPid(path.join(dataDir, 'postgres', 'postmaster.pid'));
    const anvilPids = anvilPidFiles().map(readPid);
    process.kill(service.pid, 'SIGTERM');
    const exit = await Promise.race([
      service.exited,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`still running ${STOP_TIMEOUT_MS} ms after SIGTERM to npm`)), STOP_TIMEOUT_MS).unref(),
      ),
    ]);
    expect(exit, service.stderr()).toEqual({ code: 0, signal: null });
    expectNoErrors(service.stdout());
    await waitUntil('postgres and anvil to exit', () => [postgresPid, ...anvilPids].every((pid) => !isAlive(pid)), 5_000);
  });

  it('a start after a SIGKILLed run reclaims its orphaned PostgreSQL and anvil', { timeout: 2 * START_TIMEOUT_MS + 60_000 }, async () => {
    // A fixed devnet port, so the orphan really is "anvil still on its port".
    const devnetPort = await freeConsecutivePorts();
    const env = { DEVNET_PORT: String(devnetPort) };
    const killed = await startService(env);
    const beforeKill = readCredentials();
    const ports = [String(devnetPort), String(devnetPort + 1), String(devnetPort + 2), String(devnetPort + 3)].sort();
    expect(beforeKill.chains.map((c) => new URL(c.rpcUrl).port).sort()).toEqual(ports);

    const postmasterFile = path.join(dataDir, 'postgres', 'postmaster.pid');
    const postgresPid = readPid(postmasterFile);
    const anvilPids = anvilPidFiles().map(readPid);
    expect(anvilPids).toHaveLength(2);

    // SIGKILL npm and the service's node process, as the OOM killer or `kill -9` would: no
    // shutdown code runs, the database and the devnets are orphaned.
    const nodePids = [...allPids().filter((pid) => procStat(pid)?.ppid === killed.pid), killed.pid];
    expect(nodePids.length).toBeGreaterThanOrEqual(2);
    for (const pid of nodePids) process.kill(pid, 'SIGKILL');
    await killed.exited;
    await waitUntil('the node processes to die', () => nodePids.every((pid) => !isAlive(pid)));

    for (const pid of [postgresPid, ...anvilPids]) expect(isAlive(pid), `orphan ${pid} after SIGKILL`).toBe(true);
    expect(existsSync(postmasterFile)).toBe(true);
    expect(anvilPidFiles()).toHaveLength(2);
    const orphanChain = createPublicClient({ transport: http(chainOf(beforeKill, 'devnet-eth').rpcUrl) });
    expect(await orphanChain.getChainId()).toBe(chainOf(beforeKill, 'devnet-eth').chainId);

    // The next start recovers: the old processes are stopped, the same ports and data reused.
    const service = await startService(env);
    const after = readCredentials();
    for (const pid of [postgresPid, ...anvilPids]) expect(isAlive(pid), `orphan ${pid} after recovery`).toBe(false);
    const newPostgresPid = readPid(postmasterFile);
    expect(newPostgresPid).not.toBe(postgresPid);
    expect(anvilPidFiles().map(readPid).sort()).not.toEqual([...anvilPids].sort());
    expect(after.chains.map((c) => new URL(c.rpcUrl).port).sort()).toEqual(ports);

    expect(after.business).toEqual(first.business);
    expect(after.wallets).toEqual(first.wallets);
    for (const w of after.wallets) {
      const got = await api(after, 'GET', `/v1/wallets/${w.id}`, w.apiKey);
      expect(got.status).toBe(200);
      expect(got.body.data.address).toBe(w.address);
    }
    const wallet = after.wallets.find((w) => w.id === childAddress.walletId)!;
    const balances = await api(after, 'GET', `/v1/wallets/${wallet.id}/addresses/${childAddress.id}/balances`, wallet.apiKey);
    expect(balances.status).toBe(200);
    expect(balances.body.data.find((b: { asset: { asset: { symbol: string } } }) => b.asset.asset.symbol === 'USDC').balance).toBe('12.5');

    const exit = await pressCtrlC(service);
    expect(exit).toEqual({ code: 0, signal: null });
    await waitUntil('postgres and anvil to exit', () => !isAlive(newPostgresPid), 5_000);
    expect(leftovers(dataDir, [killed.pid, service.pid, postgresPid, newPostgresPid])).toEqual([]);
    expect(existsSync(postmasterFile)).toBe(false);
    expect(anvilPidFiles()).toEqual([]);
  });
});
