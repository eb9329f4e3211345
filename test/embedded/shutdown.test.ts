/**
 * How each role stops, run as production runs it (the built CLI, one process per role),
 * with work in flight that the test holds up with a database lock:
 * - api: stops accepting at once, finishes the request in flight, closes keep-alive
 *   connections, exits 0;
 * - worker: finishes its running job; or, past SHUTDOWN_TIMEOUT_MS, releases it to the other
 *   workers (it runs again elsewhere, nothing is lost) and exits 0;
 * - indexer: commits its range and releases its lock, exits 0; forced out mid-range, the
 *   range is rolled back and the next indexer records it.
 * A second signal forces exit (128 + signal number). SIGTERM and SIGINT both stop a role.
 * Under `npm start` one Ctrl-C arrives twice (the terminal's and npm's relay, seconds apart
 * under load): that never forces exit; a third signal does (src/cli/signals.ts).
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build.js';
import {
  bannerUrl,
  builtCli,
  descendants,
  errorLogs,
  exitOf,
  killAll,
  runToEnd,
  spawnProc,
  terminate,
  waitForBanner,
  waitUntil,
  type Proc,
} from '../support/cli.js';
import { startInstallation, type Installation } from '../support/installation.js';

let inst: Installation;
let businessKey: string;

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);

beforeAll(async () => {
  inst = await startInstallation({ specs: [DEVNET_CHAINS[0]!] });
  const created = await runToEnd(builtCli(['create-business', 'Shutdown Test'], inst.env({ LOG_LEVEL: 'warn' })));
  expect(created.code, created.stderr).toBe(0);
  businessKey = /"apiKey": "(sk_biz_[^"]+)"/.exec(created.stdout)![1]!;
});

afterAll(async () => {
  await killAll();
  await inst?.stop();
});

async function startRole(role: string, extra: Record<string, string> = {}): Promise<Proc & { banner: string }> {
  const proc = builtCli(['start', role], inst.env({ HEALTH_PORT: '0', ...extra }));
  return Object.assign(proc, { banner: await waitForBanner(proc) });
}

/** An open transaction on its own connection, holding whatever locks the test takes in it. */
async function holdLock(sql: string, params: unknown[] = []): Promise<{ pid: number; release: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: inst.databaseUrl });
  await client.connect();
  await client.query('BEGIN');
  await client.query(sql, params);
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  let released: Promise<void> | undefined;
  return {
    pid: rows[0]!.pid,
    // Idempotent, so a finally block can release whatever the test body got to.
    release: () => (released ??= client.query('COMMIT').then(() => client.end())),
  };
}

/** Sessions (other than the holder's) waiting for a lock the holder has. */
const blockedBy = async (holder: number) =>
  (await inst.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [holder]))[0]!
    .n;

/** A request over a keep-alive agent; resolves with the response and the socket it used. */
function request(agent: http.Agent, url: string, method: string, body?: unknown): Promise<{ status: number; body: any; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: {
          'x-api-key': businessKey,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null, socket: req.socket! }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const closed = (socket: Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

const refusesConnections = (base: string) =>
  fetch(`${base}/healthz`).then(
    () => false,
    (err: { cause?: { code?: string } }) => err.cause?.code === 'ECONNREFUSED',
  );

describe.sequential('api', () => {
  let walletId: string;

  it('SIGTERM: stops accepting, finishes the request in flight, closes keep-alive connections, exits 0', { timeout: 120_000 }, async () => {
    // A generous timeout: the test decides when the request may finish.
    const api = await startRole('api', { SHUTDOWN_TIMEOUT_MS: '120000' });
    const base = bannerUrl(api.banner, 'API')!.replace(/\/v1$/, '');
    const agent = new http.Agent({ keepAlive: true });
    const created = await request(agent, `${base}/v1/wallets`, 'POST', { blockchain: 'devnet-eth', network: 'testnet', name: 'drain' });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    walletId = created.body.data.id;
    // An idle keep-alive connection, and a request in flight held up by a lock on its wallet.
    const idle = (await request(agent, `${base}/v1/wallets/${walletId}`, 'GET')).socket;
    const lock = await holdLock('SELECT 1 FROM wallets WHERE id = $1 FOR UPDATE', [walletId]);
    // Its own connection (an agent reuses an idle one, which must stay idle here).
    const busy = new http.Agent({ keepAlive: true });
    const inFlight = request(busy, `${base}/v1/wallets/${walletId}`, 'PATCH', { name: 'renamed while stopping' });
    inFlight.catch(() => undefined); // awaited below
    await waitUntil('the PATCH to wait for the lock', async () => (await blockedBy(lock.pid)) > 0, 20_000, api.describe);

    process.kill(api.pid, 'SIGTERM');
    await waitUntil('new connections to be refused', () => refusesConnections(base), 10_000, api.describe);
    await closed(idle);
    expect(api.exit()).toBeUndefined(); // still finishing the PATCH

    await lock.release();
    const done = await inFlight;
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.data.name).toBe('renamed while stopping');
    await closed(done.socket); // its keep-alive connection is closed once it falls idle
    expect(await exitOf(api)).toEqual({ code: 0, signal: null });
    expect(api.logs().some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM')).toBe(true);
    expect(errorLogs(api)).toEqual([]);
    agent.destroy();
    busy.destroy();
  });

  it('a request still running at SHUTDOWN_TIMEOUT_MS has its connection closed; exit 0', { timeout: 120_000 }, async () => {
    const api = await startRole('api', { SHUTDOWN_TIMEOUT_MS: '2000' });
    const base = bannerUrl(api.banner, 'API')!.replace(/\/v1$/, '');
    const agent = new http.Agent({ keepAlive: true });
    const lock = await holdLock('SELECT 1 FROM wallets WHERE id = $1 FOR UPDATE', [walletId]);
    try {
      const inFlight = request(agent, `${base}/v1/wallets/${walletId}`, 'PATCH', { name: 'too late' }).catch((err: Error) => err);
      await waitUntil('the PATCH to wait for the lock', async () => (await blockedBy(lock.pid)) > 0, 20_000, api.describe);
      const sentAt = Date.now();
      expect(await terminate(api, { signal: 'SIGINT' })).toEqual({ code: 0, signal: null });
      expect(Date.now() - sentAt).toBeGreaterThanOrEqual(2_000);
      expect(await inFlight).toBeInstanceOf(Error); // its connection was closed at the deadline
    } finally {
      await lock.release();
      agent.destroy();
    }
  });

  it('SIGINT twice: the second one forces exit (130) without waiting for the request', { timeout: 120_000 }, async () => {
    const api = await startRole('api');
    const base = bannerUrl(api.banner, 'API')!.replace(/\/v1$/, '');
    const agent = new http.Agent({ keepAlive: true });
    const lock = await holdLock('SELECT 1 FROM wallets WHERE id = $1 FOR UPDATE', [walletId]);
    try {
      const inFlight = request(agent, `${base}/v1/wallets/${walletId}`, 'PATCH', { name: 'never' }).catch((err: Error) => err);
      await waitUntil('the PATCH to wait for the lock', async () => (await blockedBy(lock.pid)) > 0, 20_000, api.describe);
      process.kill(api.pid, 'SIGINT');
      await waitUntil('the stop to begin', () => api.logs().some((l) => l.msg === 'shutting down'), 10_000, api.describe);
      process.kill(api.pid, 'SIGINT');
      expect(await runToEnd(api, 10_000)).toMatchObject({ code: 130, signal: null });
      expect(api.stderr()).toContain('forced exit');
      expect(await inFlight).toBeInstanceOf(Error); // the connection went with the process
    } finally {
      await lock.release();
      agent.destroy();
    }
  });
});

describe.sequential('npm start', () => {
  /** `npm start -- api` (npm execs one node process) and that node process's pid. */
  async function npmStartApi(): Promise<{ npm: Proc; service: number; base: string }> {
    const npm = spawnProc('npm', ['start', '--', 'api'], { env: inst.env({ HEALTH_PORT: undefined }) });
    const banner = await waitForBanner(npm, 120_000);
    const [service] = descendants(npm.pid);
    return { npm, service: service!, base: bannerUrl(banner, 'API')!.replace(/\/v1$/, '') };
  }

  it("a Ctrl-C's copy relayed by npm seconds later does not force exit; a third signal does", { timeout: 180_000 }, async () => {
    const walletId = (await inst.query<{ id: string }>('SELECT id::text FROM wallets LIMIT 1'))[0]!.id;
    for (const third of [false, true]) {
      const { npm, service, base } = await npmStartApi();
      const agent = new http.Agent({ keepAlive: true });
      const lock = await holdLock('SELECT 1 FROM wallets WHERE id = $1 FOR UPDATE', [walletId]);
      try {
        const inFlight = request(agent, `${base}/v1/wallets/${walletId}`, 'PATCH', { name: 'npm' }).catch((err: Error) => err);
        await waitUntil('the PATCH to wait for the lock', async () => (await blockedBy(lock.pid)) > 0, 20_000, npm.describe);
        // The terminal's copy reaches the service at once; npm's relay of the same press
        // comes 3 s later (under load it did, and used to force exit 130).
        process.kill(service, 'SIGINT');
        await waitUntil('the stop to begin', () => npm.logs().some((l) => l.msg === 'shutting down'), 10_000, npm.describe);
        await new Promise((r) => setTimeout(r, 3_000));
        process.kill(npm.pid, 'SIGINT');
        await new Promise((r) => setTimeout(r, 1_000));
        if (third) {
          process.kill(service, 'SIGINT'); // a second press: now it is forced
          expect(await runToEnd(npm, 20_000)).toMatchObject({ code: 130 });
          expect(npm.stderr()).toContain('forced exit');
          continue;
        }
        expect(npm.exit(), npm.describe()).toBeUndefined(); // still finishing the request
        await lock.release();
        expect(await inFlight).toMatchObject({ status: 200 });
        expect(await exitOf(npm)).toEqual({ code: 0, signal: null });
        expect(npm.stderr()).not.toContain('forced exit');
      } finally {
        await lock.release();
        agent.destroy();
      }
    }
  });
});

describe.sequential('worker', () => {
  const addJob = async () =>
    (await inst.query<{ id: string }>("SELECT id::text FROM graphile_worker.add_job('webhooks_sweep', '{}'::json)"))[0]!.id;
  const job = async (id: string) =>
    (
      await inst.query<{ locked_by: string | null; attempts: number }>(
        'SELECT locked_by, attempts FROM graphile_worker._private_jobs WHERE id = $1',
        [id],
      )
    )[0];
  const completed = (p: Proc, id: string) => p.logs().filter((l) => l.msg.includes(`Completed task ${id} (webhooks_sweep`)).length;

  it('SIGINT: the running job finishes, then the worker exits 0', { timeout: 120_000 }, async () => {
    const worker = await startRole('worker');
    const lock = await holdLock('LOCK TABLE webhook_deliveries IN ACCESS EXCLUSIVE MODE');
    const id = await addJob();
    await waitUntil(
      'the job to be running (waiting for the lock)',
      async () => (await blockedBy(lock.pid)) > 0 && !!(await job(id))?.locked_by,
      20_000,
      worker.describe,
    );

    process.kill(worker.pid, 'SIGINT');
    await waitUntil('the stop to begin', () => worker.logs().some((l) => l.msg === 'shutting down'), 10_000, worker.describe);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(worker.exit()).toBeUndefined(); // waiting for its job
    await lock.release();
    expect(await exitOf(worker)).toEqual({ code: 0, signal: null });
    expect(await job(id)).toBeUndefined(); // done (graphile-worker deletes completed jobs)
    expect(completed(worker, id)).toBe(1);
    expect(errorLogs(worker)).toEqual([]);
  });

  it(
    'SIGTERM past SHUTDOWN_TIMEOUT_MS: the running job is released, exit 0; another worker runs it once',
    { timeout: 120_000 },
    async () => {
      const worker = await startRole('worker', { SHUTDOWN_TIMEOUT_MS: '2000' });
      const lock = await holdLock('LOCK TABLE webhook_deliveries IN ACCESS EXCLUSIVE MODE');
      let id: string;
      try {
        id = await addJob();
        await waitUntil(
          'the job to be running',
          async () => (await blockedBy(lock.pid)) > 0 && !!(await job(id))?.locked_by,
          20_000,
          worker.describe,
        );
        const sentAt = Date.now();
        expect(await terminate(worker)).toEqual({ code: 0, signal: null });
        expect(Date.now() - sentAt).toBeGreaterThanOrEqual(2_000);
        expect(worker.logs().some((l) => l.msg === 'released jobs to other workers' && (l.jobs as string[]).includes(id))).toBe(true);
        // Not lost: back in the queue, free for any worker, its attempt counted.
        expect(await job(id)).toEqual({ locked_by: null, attempts: 1 });
      } finally {
        await lock.release();
      }
      const next = await startRole('worker');
      // Its row goes before its log line reaches us through the pipe: wait for both.
      await waitUntil(
        'the released job to run',
        async () => (await job(id!)) === undefined && completed(next, id!) > 0,
        20_000,
        next.describe,
      );
      expect(completed(next, id!)).toBe(1);
      expect(completed(worker, id!)).toBe(0);
      expect(await terminate(next, { signal: 'SIGINT' })).toEqual({ code: 0, signal: null });
    },
  );
});

describe.sequential('indexer', () => {
  const chainId = async () =>
    (
      await inst.query<{ id: string }>(
        "SELECT c.id::text FROM chains c JOIN blockchains b ON b.id = c.blockchain_id WHERE b.slug = 'devnet-eth' AND c.network = 'testnet'",
      )
    )[0]!.id;
  const cursor = async () =>
    Number(
      (await inst.query<{ n: string }>('SELECT block_number::text AS n FROM chain_cursors WHERE chain_id = $1', [await chainId()]))[0]!.n,
    );
  const indexerLocks = async () =>
    (
      await inst.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = 467 AND granted")
    )[0]!.n;
  const mine = (blocks: number) =>
    fetch(inst.chainOf('devnet-eth').config.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: [`0x${blocks.toString(16)}`] }),
    });
  const head = async () => {
    const res = await fetch(inst.chainOf('devnet-eth').config.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    });
    return Number(((await res.json()) as { result: string }).result);
  };

  async function activeIndexerMidRange(): Promise<{ indexer: Proc; lock: Awaited<ReturnType<typeof holdLock>>; before: number }> {
    const indexer = await startRole('indexer');
    await waitUntil(
      'the indexer to reach the head',
      async () => (await cursor().catch(() => -1)) >= (await head()),
      30_000,
      indexer.describe,
    );
    const before = await cursor();
    const lock = await holdLock('SELECT 1 FROM chain_cursors WHERE chain_id = $1 FOR UPDATE', [await chainId()]);
    await mine(5);
    await waitUntil('the range to wait for the cursor', async () => (await blockedBy(lock.pid)) > 0, 20_000, indexer.describe);
    return { indexer, lock, before };
  }

  it('SIGTERM mid-range: the range commits, the lock is released, exit 0', { timeout: 120_000 }, async () => {
    const { indexer, lock, before } = await activeIndexerMidRange();
    process.kill(indexer.pid, 'SIGTERM');
    await waitUntil('the stop to begin', () => indexer.logs().some((l) => l.msg === 'shutting down'), 10_000, indexer.describe);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(indexer.exit()).toBeUndefined(); // waiting for its range
    await lock.release();
    expect(await exitOf(indexer)).toEqual({ code: 0, signal: null });
    expect(await cursor()).toBe(before + 5);
    expect(await indexerLocks()).toBe(0);
    expect(errorLogs(indexer)).toEqual([]);
  });

  it('SIGINT twice mid-range: forced exit (130), the range rolls back, the next indexer records it', { timeout: 120_000 }, async () => {
    const { indexer, lock, before } = await activeIndexerMidRange();
    try {
      process.kill(indexer.pid, 'SIGINT');
      await waitUntil('the stop to begin', () => indexer.logs().some((l) => l.msg === 'shutting down'), 10_000, indexer.describe);
      process.kill(indexer.pid, 'SIGINT');
      expect(await runToEnd(indexer, 10_000)).toMatchObject({ code: 130, signal: null });
    } finally {
      await lock.release();
    }
    await waitUntil('its sessions to end (lock released)', async () => (await indexerLocks()) === 0, 10_000);
    expect(await cursor()).toBe(before);
    const next = await startRole('indexer');
    await waitUntil('the next indexer to record the range', async () => (await cursor()) === before + 5, 30_000, next.describe);
    expect(await terminate(next)).toEqual({ code: 0, signal: null });
  });
});
