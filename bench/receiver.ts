/**
 * A minimal, fast webhook receiver on loopback for the benchmarks: answers every POST with
 * 200 "ok" as soon as the body has arrived.
 *
 * It runs in a worker thread with its own event loop, as a receiver on another machine
 * would: parsing HTTP for thousands of requests per second on the service's own loop would
 * take that time from the worker being measured. (The code is plain JavaScript evaluated in
 * the thread: tsx does not load TypeScript in worker threads.)
 *
 * Two modes:
 * - counting (default): requests and TCP connections are counted in shared memory, nothing
 *   else is done per request; for throughput runs.
 * - recording: each request's arrival time (taken when its headers arrive, as
 *   `performance.timeOrigin + performance.now()`, i.e. epoch milliseconds with sub-ms
 *   precision, comparable across threads) is posted to the main thread with the event name
 *   and a key from the body (`data.benchKey`, else `data.hash`, else `data.id`); for latency
 *   runs, which are slow enough for one message per request.
 */
import { Worker } from 'node:worker_threads';

export interface ReceivedHook {
  /** Epoch milliseconds (sub-ms precision) when the request's headers arrived. */
  at: number;
  event: string | null;
  key: string | null;
  /** The `webhook-id` header (the delivery id). */
  deliveryId: string | null;
  bytes: number;
}

export interface BenchReceiver {
  url: string;
  /** Requests answered so far. */
  received(): number;
  /** TCP connections accepted so far (keep-alive reuse shows as few connections). */
  connections(): number;
  /** Recording mode on or off; resolves once the thread has switched. */
  setRecording(on: boolean): Promise<void>;
  /** Called on the main thread for every request received while recording. */
  onHook: ((hook: ReceivedHook) => void) | null;
  /** Resolves when `received()` reaches `n`; rejects after `timeoutMs`. */
  waitForCount(n: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** Epoch milliseconds with sub-millisecond precision, comparable with the receiver's `at`. */
export const nowMs = (): number => performance.timeOrigin + performance.now();

const RECEIVER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const { createServer } = require('node:http');
const counters = new Int32Array(workerData.shared);
const HEADERS = { 'content-type': 'text/plain', 'content-length': '2' };
let recording = false;
const server = createServer((req, res) => {
  const at = performance.timeOrigin + performance.now();
  if (!recording) {
    req.on('data', () => {});
    req.on('end', () => {
      res.writeHead(200, HEADERS).end('ok');
      Atomics.add(counters, 0, 1);
    });
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    res.writeHead(200, HEADERS).end('ok');
    Atomics.add(counters, 0, 1);
    const raw = Buffer.concat(chunks);
    let event = null;
    let key = null;
    try {
      const body = JSON.parse(raw.toString('utf8'));
      event = typeof body.event === 'string' ? body.event : null;
      const d = body.data || {};
      key = d.benchKey != null ? String(d.benchKey) : d.hash != null ? String(d.hash) : d.id != null ? String(d.id) : null;
    } catch {}
    const id = req.headers['webhook-id'];
    parentPort.postMessage({ t: 'hook', at, event, key, deliveryId: typeof id === 'string' ? id : null, bytes: raw.length });
  });
});
// Longer than any pause between runs: a keep-alive socket the server closes while the
// client reuses it would fail a delivery ("socket hang up") and push it to the 5-minute retry.
server.keepAliveTimeout = 600000;
server.headersTimeout = 601000;
server.requestTimeout = 0;
server.on('connection', () => Atomics.add(counters, 1, 1));
parentPort.on('message', (m) => {
  if (m.t === 'record') {
    recording = m.on;
    parentPort.postMessage({ t: 'recording', on: m.on });
  } else if (m.t === 'close') {
    server.closeAllConnections();
    server.close(() => parentPort.postMessage({ t: 'closed' }));
  }
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ t: 'ready', port: server.address().port }));
`;

type FromThread = { t: 'ready'; port: number } | { t: 'recording'; on: boolean } | { t: 'closed' } | ({ t: 'hook' } & ReceivedHook);

export async function startBenchReceiver(): Promise<BenchReceiver> {
  const shared = new SharedArrayBuffer(8);
  const counters = new Int32Array(shared);
  const worker = new Worker(RECEIVER_SOURCE, { eval: true, workerData: { shared } });
  const waiters: { match: (m: FromThread) => boolean; resolve: () => void }[] = [];
  let port = 0;
  let closed = false;

  const receiver: BenchReceiver = {
    url: '',
    received: () => Atomics.load(counters, 0),
    connections: () => Atomics.load(counters, 1),
    onHook: null,
    setRecording(on) {
      return expect(
        (m) => m.t === 'recording' && m.on === on,
        () => worker.postMessage({ t: 'record', on }),
      );
    },
    async waitForCount(n, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (receiver.received() < n) {
        if (Date.now() > deadline) throw new Error(`receiver got ${receiver.received()} requests, expected ${n} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.race([
        expect(
          (m) => m.t === 'closed',
          () => worker.postMessage({ t: 'close' }),
        ),
        new Promise((r) => setTimeout(r, 2_000)),
      ]);
      await worker.terminate();
    },
  };

  function expect(match: (m: FromThread) => boolean, send: () => void): Promise<void> {
    return new Promise<void>((resolve) => {
      waiters.push({ match, resolve });
      send();
    });
  }

  worker.on('message', (m: FromThread) => {
    if (m.t === 'hook') {
      receiver.onHook?.({ at: m.at, event: m.event, key: m.key, deliveryId: m.deliveryId, bytes: m.bytes });
      return;
    }
    if (m.t === 'ready') port = m.port;
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (waiters[i]!.match(m)) {
        waiters[i]!.resolve();
        waiters.splice(i, 1);
      }
    }
  });
  const failed = new Promise<never>((_, reject) => worker.once('error', reject));
  failed.catch(() => undefined); // after start-up, a thread error shows as missing requests
  await Promise.race([
    expect(
      (m) => m.t === 'ready',
      () => undefined,
    ),
    failed,
  ]);
  receiver.url = `http://127.0.0.1:${port}/hooks`;
  return receiver;
}
