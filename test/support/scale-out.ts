/**
 * The scale-out proof (issue 13 item 4): a mixed load of deposits (faucet transfers to child
 * addresses) and withdrawals through two API processes behind a round-robin client, while
 * (1) the active indexer is killed with SIGKILL (the standby takes over), (2) a worker is
 * killed with SIGKILL mid-job (its jobs finish on the other worker), (3) PostgreSQL is
 * restarted (every role reconnects by itself). A supervisor's restart of each killed
 * process is played too. Then: every deposit credited once with one `deposit.success`,
 * every accepted withdrawal on chain once, the master's nonces without gaps, and every
 * process stopping with exit code 0 on SIGTERM. Returns the figures and the problems found.
 */
import { randomUUID } from 'node:crypto';
import { createPublicClient, createWalletClient, erc20Abi, http as viemHttp, parseEther, type Address, type Hash, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { devnetChain } from '../../src/devnet/chain.js';
import type { DevnetChainSpec } from '../../src/devnet/devnet.js';
import { startCluster, type Cluster, type RoleProc } from './scale-out-cluster.js';
import { verifyOutcome, type ChainLoad } from './scale-out-checks.js';

export interface ScaleOutOptions {
  specs: DevnetChainSpec[];
  /** Child addresses per chain that deposits go to. */
  addresses: number;
  /** Pause between deposits, and between withdrawals, per chain. */
  depositEveryMs: number;
  withdrawEveryMs: number;
  /** Load keeps going at least this long, and until the three disruptions are over. */
  minLoadMs: number;
  /** How long PostgreSQL stays down. */
  postgresDownMs: number;
  /** How long to wait for everything to settle after the load. */
  settleMs: number;
  log: (line: string) => void;
}

export interface ScaleOutReport {
  figures: Record<string, number | string>;
  problems: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** Two API processes behind a round-robin client that retries elsewhere on a network error or a 5xx. */
class RoundRobin {
  #next = 0;
  requests = 0;
  retries = 0;
  constructor(private readonly bases: string[]) {}
  async call(method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}) {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const base = this.bases[this.#next++ % this.bases.length]!;
      this.requests++;
      try {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: { 'x-api-key': key, ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(15_000),
        });
        const text = await res.text();
        if (res.status < 500) return { status: res.status, body: text ? JSON.parse(text) : null };
      } catch {
        // the process or the database is restarting: try the other one
      }
      if (Date.now() > deadline) throw new Error(`${method} ${path}: no answer below 500 within 120 s`);
      this.retries++;
      await sleep(250);
    }
  }
}

export async function runScaleOut(opts: ScaleOutOptions): Promise<ScaleOutReport> {
  const { log } = opts;
  const cluster = await startCluster({ specs: opts.specs, receiverDelayMs: 400, log });
  const problems: string[] = [];
  const figures: Record<string, number | string> = {};
  try {
    const api = new RoundRobin(cluster.procs.filter((p) => p.role === 'api').map((p) => p.apiUrl!));
    const loads = await Promise.all(cluster.devnet.chains.map((chain) => prepareChain(cluster, api, chain, opts.addresses)));
    log(`prepared ${loads.length} chain(s): a wallet each, ${opts.addresses} child addresses, the master funded`);

    // The load runs until the disruptions are over and at least minLoadMs has passed.
    let disrupted = false;
    const loadStarted = Date.now();
    const running = () => !disrupted || Date.now() - loadStarted < opts.minLoadMs;
    const loadDone = Promise.all(loads.map((l) => driveLoad(l, api, opts, running, problems)));

    await sleep(2_000);
    for (const chain of loads) Object.assign(figures, await killActiveIndexer(cluster, chain.key, log, problems));
    Object.assign(figures, await killWorkerMidJob(cluster, log, problems));
    Object.assign(figures, await restartPostgres(cluster, opts.postgresDownMs, log, problems));
    disrupted = true;
    await loadDone;
    figures['load seconds'] = seconds(Date.now() - loadStarted);

    const settleStarted = Date.now();
    problems.push(...(await verifyOutcome(cluster, loads, opts.settleMs, log)));
    figures['settle seconds'] = seconds(Date.now() - settleStarted);
    figures['deposits'] = loads.reduce((n, l) => n + l.deposits.length, 0);
    figures['withdrawals accepted'] = loads.reduce((n, l) => n + l.withdrawals.length, 0);
    figures['api requests'] = api.requests;
    figures['api requests retried'] = api.retries;
    figures['webhook requests received'] = cluster.received.length;

    const exits = await cluster.stopRoles();
    const unclean = exits.filter((e) => e.code !== 0);
    figures['processes stopped with SIGTERM'] = exits.length;
    for (const e of unclean)
      problems.push(
        e.code === -1
          ? `${e.role} pid ${e.pid} died before the end: ${cluster.procs.find((p) => p.proc.pid === e.pid)!.proc.describe()}`
          : `${e.role} pid ${e.pid} exited with ${e.code ?? e.signal} on SIGTERM`,
      );
    return { figures, problems };
  } finally {
    await cluster.stop();
  }
}

async function prepareChain(
  cluster: Cluster,
  api: RoundRobin,
  chain: Cluster['devnet']['chains'][number],
  addresses: number,
): Promise<ChainLoad> {
  const slug = chain.config.blockchain.slug;
  const created = await api.call('POST', '/v1/wallets', cluster.businessKey, {
    blockchain: slug,
    network: 'testnet',
    name: `scale ${slug}`,
  });
  if (created.status !== 200) throw new Error(`create wallet: ${JSON.stringify(created.body)}`);
  const { id: walletId, apiKey, address: master } = created.body.data as { id: string; apiKey: string; address: Address };
  const patched = await api.call('PATCH', `/v1/wallets/${walletId}`, apiKey, { webhookUrl: cluster.receiverUrl });
  if (patched.status !== 200) throw new Error(`set webhook URL: ${JSON.stringify(patched.body)}`);
  const assets = await api.call('GET', `/v1/wallets/${walletId}/assets`, apiKey);
  const usdc = (assets.body.data as { asset: { id: string; symbol: string; address: Address; decimals: number } }[]).find(
    (a) => a.asset.symbol === 'USDC',
  )!.asset;
  const children: Address[] = [];
  for (let i = 0; i < addresses; i++) {
    const res = await api.call('POST', `/v1/wallets/${walletId}/addresses`, apiKey, { name: `customer ${i}`, disableAutoSweep: true });
    if (res.status !== 200) throw new Error(`create address: ${JSON.stringify(res.body)}`);
    children.push(res.body.data.address);
  }
  const faucet = new Faucet(chain.config.rpcUrl, chain.config.chainId, chain.faucet.privateKey as Hex);
  await faucet.init();
  // Gas and USDC for the master, mined before the first withdrawal. The USDC is a deposit too.
  const funding = { to: master, amount: 1_000_000n * 10n ** BigInt(usdc.decimals) };
  await faucet.wait(await faucet.send({ to: master, value: parseEther('100') }));
  const fundingHash = await faucet.transfer(usdc.address, funding.to, funding.amount);
  await faucet.wait(fundingHash);
  return {
    key: `${slug}:testnet`,
    slug,
    rpcUrl: chain.config.rpcUrl,
    chainId: chain.config.chainId,
    walletId,
    apiKey,
    master,
    usdc,
    children,
    faucet,
    deposits: [{ hash: fundingHash, ...funding }],
    withdrawals: [],
  };
}

/** Sends transactions from the faucet in nonce order without waiting for receipts. */
export class Faucet {
  #nonce = 0;
  readonly #client;
  readonly #public;
  constructor(rpcUrl: string, chainId: number, privateKey: Hex) {
    const chain = devnetChain(chainId, rpcUrl);
    this.#client = createWalletClient({ chain, transport: viemHttp(rpcUrl), account: privateKeyToAccount(privateKey) });
    this.#public = createPublicClient({ chain, transport: viemHttp(rpcUrl) });
  }
  async init(): Promise<void> {
    this.#nonce = await this.#public.getTransactionCount({ address: this.#client.account.address, blockTag: 'pending' });
  }
  send(tx: { to: Address; value: bigint }): Promise<Hash> {
    return this.#client.sendTransaction({ ...tx, nonce: this.#nonce++, gas: 21_000n });
  }
  async wait(hash: Hash): Promise<void> {
    const receipt = await this.#public.waitForTransactionReceipt({ hash, pollingInterval: 200 });
    if (receipt.status !== 'success') throw new Error(`faucet transaction ${hash} reverted`);
  }
  transfer(token: Address, to: Address, amount: bigint): Promise<Hash> {
    return this.#client.writeContract({
      address: token,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [to, amount],
      nonce: this.#nonce++,
      gas: 100_000n,
    });
  }
}

async function driveLoad(
  load: ChainLoad,
  api: RoundRobin,
  opts: ScaleOutOptions,
  running: () => boolean,
  problems: string[],
): Promise<void> {
  const unit = 10n ** BigInt(load.usdc.decimals - 4); // 0.0001 USDC
  const deposits = (async () => {
    for (let k = 0; running(); k++) {
      const to = load.children[k % load.children.length]!;
      const amount = unit * BigInt(10_000 + k); // distinct amounts: 1.0000, 1.0001, ...
      const hash = await load.faucet.transfer(load.usdc.address, to, amount);
      load.deposits.push({ hash, to, amount });
      await sleep(opts.depositEveryMs);
    }
  })();
  const pending: Promise<void>[] = [];
  for (let k = 0; running(); k++) {
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const amount = unit * BigInt(100 + k);
    const key = randomUUID();
    pending.push(
      api
        .call(
          'POST',
          `/v1/wallets/${load.walletId}/withdraw`,
          load.apiKey,
          { assets: [{ id: load.usdc.id, amount: formatUnits(amount, load.usdc.decimals), address: to }] },
          { 'idempotency-key': key },
        )
        .then(
          (res) => {
            if (res.status === 200) load.withdrawals.push({ id: (res.body.data as { id: string }[])[0]!.id, to, amount });
            else problems.push(`withdrawal refused: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
          },
          (err: Error) => void problems.push(`withdrawal lost: ${err.message}`),
        ),
    );
    await sleep(opts.withdrawEveryMs);
  }
  await Promise.all([deposits, ...pending]);
}

function formatUnits(amount: bigint, decimals: number): string {
  const s = amount.toString().padStart(decimals + 1, '0');
  return `${s.slice(0, -decimals)}.${s.slice(-decimals)}`.replace(/\.?0+$/, '');
}

const readyz = async (p: RoleProc): Promise<{ status: number; body: any }> => {
  try {
    const res = await fetch(`${p.healthUrl}/readyz`, { signal: AbortSignal.timeout(5_000) });
    return { status: res.status, body: await res.json() };
  } catch (err) {
    return { status: 0, body: { error: (err as Error).message } };
  }
};
const live = (cluster: Cluster, role: string) => cluster.procs.filter((p) => p.role === role && !p.proc.exit());

async function killActiveIndexer(cluster: Cluster, chainKey: string, log: (l: string) => void, problems: string[]) {
  let active: RoleProc | undefined;
  for (const deadline = Date.now() + 30_000; !active && Date.now() < deadline; await sleep(200)) {
    for (const p of live(cluster, 'indexer')) if ((await readyz(p)).body.indexer?.[chainKey] === 'active') active = p;
  }
  if (!active) {
    problems.push(`no active indexer for ${chainKey}`);
    return {};
  }
  const standby = live(cluster, 'indexer').find((p) => p !== active)!;
  const seen = standby.proc.logs().length;
  const killedAt = Date.now();
  cluster.killed.add(active.proc.pid);
  active.proc.child.kill('SIGKILL');
  let tookOver: number | undefined;
  for (const deadline = Date.now() + 30_000; tookOver === undefined && Date.now() < deadline; await sleep(50)) {
    const line = standby.proc
      .logs()
      .slice(seen)
      .find((l) => l.msg === 'indexer active for chain' && l.chain === chainKey);
    tookOver = line?.time;
  }
  if (tookOver === undefined) problems.push(`the standby indexer did not take over ${chainKey} within 30 s`);
  const gap = tookOver === undefined ? NaN : seconds(tookOver - killedAt);
  log(
    `kill -9 of the active indexer (pid ${active.proc.pid}) for ${chainKey}: the standby (pid ${standby.proc.pid}) took over after ${gap} s`,
  );
  await cluster.startRole('indexer'); // what the supervisor does
  return { [`indexer takeover gap ${chainKey} (s)`]: gap };
}

async function killWorkerMidJob(cluster: Cluster, log: (l: string) => void, problems: string[]) {
  const idsOf = (p: RoleProc) =>
    p.proc
      .logs()
      .filter((l) => Array.isArray(l.workerIds))
      .flatMap((l) => l.workerIds as string[]);
  const lockedBy = async (ids: string[]) =>
    (
      await cluster.query<{ id: string }>('SELECT id::text FROM graphile_worker._private_jobs WHERE locked_by = ANY($1::text[])', [ids])
    ).map((j) => j.id);
  // Kill a worker while it runs jobs; the jobs it still held once dead are the stranded ones
  // (one it finished in the meantime is not). A few tries, as a supervisor restarts it.
  for (let attempt = 1; attempt <= 5; attempt++) {
    let victim: RoleProc | undefined;
    for (const deadline = Date.now() + 30_000; !victim && Date.now() < deadline; await sleep(20)) {
      for (const p of live(cluster, 'worker')) if ((await lockedBy(idsOf(p))).length > 0) victim = p;
    }
    if (!victim) break;
    cluster.killed.add(victim.proc.pid);
    victim.proc.child.kill('SIGKILL');
    const killedAt = Date.now();
    await victim.proc.exited;
    const stranded = await lockedBy(idsOf(victim));
    const survivor = live(cluster, 'worker').find((p) => p !== victim)!;
    await cluster.startRole('worker'); // what the supervisor does
    if (stranded.length === 0) continue;
    let finishedAt: number | undefined;
    for (const deadline = Date.now() + 60_000; finishedAt === undefined && Date.now() < deadline; await sleep(200)) {
      const left = await cluster.query('SELECT 1 FROM graphile_worker._private_jobs WHERE id = ANY($1::bigint[])', [stranded]);
      if (left.length === 0) finishedAt = Date.now();
    }
    const workers = live(cluster, 'worker');
    const elsewhere = stranded.filter((id) => workers.some((p) => p.proc.logs().some((l) => l.msg.startsWith(`Completed task ${id} `))));
    if (finishedAt === undefined) problems.push(`jobs ${stranded.join(', ')} of the killed worker did not finish within 60 s`);
    if (elsewhere.length !== stranded.length)
      problems.push(`jobs of the killed worker not completed by another: ${stranded.filter((id) => !elsewhere.includes(id))}`);
    const after = finishedAt === undefined ? NaN : seconds(finishedAt - killedAt);
    log(
      `kill -9 of worker pid ${victim.proc.pid} with ${stranded.length} job(s) running: all completed elsewhere (pid ${survivor.proc.pid} or the restarted one) ${after} s later`,
    );
    return { 'worker jobs stranded by kill -9': stranded.length, 'worker jobs finished elsewhere after (s)': after };
  }
  problems.push('no worker could be killed while it held a job');
  return {};
}

async function restartPostgres(cluster: Cluster, downMs: number, log: (l: string) => void, problems: string[]) {
  const { stoppedAt, startedAt } = await cluster.restartPostgres(downMs);
  const chains = cluster.devnet.chains.map((c) => `${c.config.blockchain.slug}:testnet`);
  let readyAt: number | undefined;
  let last = '';
  for (const deadline = Date.now() + 90_000; readyAt === undefined && Date.now() < deadline; await sleep(250)) {
    const probes = await Promise.all(cluster.procs.filter((p) => !p.proc.exit()).map(async (p) => ({ p, r: await readyz(p) })));
    const notReady = probes.filter(({ r }) => r.status !== 200);
    const active = chains.map((c) => probes.filter(({ p, r }) => p.role === 'indexer' && r.body.indexer?.[c] === 'active').length);
    last = JSON.stringify({ notReady: notReady.map(({ p, r }) => ({ role: p.role, pid: p.proc.pid, r: r.body })), active });
    if (notReady.length === 0 && active.every((n) => n === 1)) readyAt = Date.now();
  }
  if (readyAt === undefined) problems.push(`not every role was ready again within 90 s of PostgreSQL's restart: ${last}`);
  const after = readyAt === undefined ? NaN : seconds(readyAt - startedAt);
  log(
    `PostgreSQL down for ${seconds(startedAt - stoppedAt)} s; every process ready again (one active indexer per chain) ${after} s after it came back`,
  );
  return { 'postgres down (s)': seconds(startedAt - stoppedAt), 'all roles ready after postgres restart (s)': after };
}
