/**
 * An HTTP proxy in front of a chain node that catches the service calling the node while
 * one of its database transactions is open.
 *
 * Why it matters: a transaction holds a pool connection (and often a sender's lock) for as
 * long as the node takes to answer, up to the client's timeout and retries. With enough
 * such calls at once the pool is empty and every route waits. So the flows read the chain
 * first and decide under their locks on what they read.
 *
 * How it sees one: while holding each request it asks PostgreSQL which sessions of the
 * watched database sit "idle in transaction" (waiting on something that is not the
 * database), and whether one of them stays so, with no statement since, all the while the
 * request is held, and moves on once the call is answered: that transaction was waiting on it.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { expect } from 'vitest';

export interface RpcGate {
  /** The proxy's URL: give it to the service as the chain's node. */
  url: string;
  /** Where requests go (set once the node is up): one node, so a world of one chain. */
  forwardTo(url: string): void;
  /** Starts checking each request against this database's sessions. */
  watch(databaseUrl: string): Promise<void>;
  /** The calls made while a transaction was open: the JSON-RPC methods (or the HTTP path). */
  readonly caught: string[];
  /**
   * Once: after the node answers the first JSON-RPC call `match` picks, and before that answer
   * reaches the service, runs `action` (the world changing between a flow's read and its lock).
   */
  afterAnswer(match: (call: { method: string; params: unknown[] }) => boolean, action: () => Promise<void>): void;
  /** Until cleared (null): JSON-RPC calls `match` picks are answered `ms` late (a slow node). */
  slow(match: ((call: { method: string; params: unknown[] }) => boolean) | null, ms?: number): void;
  /** Once every call answered so far has its verdict in `caught`. */
  settled(): Promise<void>;
  /** Requests checked so far. */
  checked(): number;
  close(): Promise<void>;
}

// Sessions of the watched database idle inside a transaction, and since when.
const IN_TRANSACTION = `SELECT pid, state_change::text AS since FROM pg_stat_activity
  WHERE datname = current_database() AND state = 'idle in transaction' AND pid <> pg_backend_pid()`;

function described(req: IncomingMessage, body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString()) as { method?: string } | { method?: string }[];
    const methods = (Array.isArray(parsed) ? parsed : [parsed]).map((p) => p.method).filter(Boolean);
    if (methods.length > 0) return methods.join(',');
  } catch {
    /* not JSON-RPC (a Tron node's HTTP API): the path names it */
  }
  return req.url ?? '?';
}

export async function startRpcGate(): Promise<RpcGate> {
  let target = '';
  let client: pg.Client | null = null;
  let checks = 0;
  const caught: string[] = [];
  let slowness: { match: (call: { method: string; params: unknown[] }) => boolean; ms: number } | null = null;
  const isSlow = (body: Buffer): boolean => {
    if (!slowness) return false;
    try {
      const parsed = JSON.parse(body.toString()) as { method?: string; params?: unknown[] } | { method?: string; params?: unknown[] }[];
      return (Array.isArray(parsed) ? parsed : [parsed]).some(
        (c) => typeof c.method === 'string' && slowness!.match({ method: c.method, params: c.params ?? [] }),
      );
    } catch {
      return false;
    }
  };
  // Verdicts still being reached on calls already answered.
  const pending = new Set<Promise<void>>();
  let hook: { match: (call: { method: string; params: unknown[] }) => boolean; action: () => Promise<void> } | null = null;
  const hooked = (body: Buffer) => {
    if (!hook) return null;
    try {
      const parsed = JSON.parse(body.toString()) as { method?: string; params?: unknown[] } | unknown[];
      if (Array.isArray(parsed) || typeof parsed.method !== 'string') return null;
      if (!hook.match({ method: parsed.method, params: parsed.params ?? [] })) return null;
    } catch {
      return null;
    }
    const { action } = hook;
    hook = null;
    return action;
  };
  // One check at a time on the one client: pg queues them anyway, this keeps the order.
  let queue: Promise<unknown> = Promise.resolve();
  const idle = (): Promise<Set<string>> => {
    const c = client;
    if (!c) return Promise.resolve(new Set());
    const run = queue.then(
      async () => new Set((await c.query<{ pid: number; since: string }>(IN_TRANSACTION)).rows.map((r) => `${r.pid} ${r.since}`)),
    );
    queue = run.catch(() => undefined);
    return run;
  };
  /**
   * Whether a session sat idle in a transaction, without a statement since, all the while this
   * call was held: a flow waiting on the call. A transaction merely between two statements
   * when the call arrived (another job's, in a world with a worker) moves on within the
   * first wait; the longer second wait is paid only on suspicion.
   */
  const waitedOn = async (): Promise<Set<string>> => {
    let still = await idle();
    for (const ms of [25, 250]) {
      if (still.size === 0) return still;
      await new Promise((r) => setTimeout(r, ms));
      const now = await idle();
      still = new Set([...still].filter((k) => now.has(k)));
    }
    return still;
  };
  /** Whether one of `suspects` ran a statement within 2 s of the call's answer: it was waiting on it. */
  const movedOn = async (suspects: Set<string>): Promise<boolean> => {
    for (let i = 0; i < 40; i++) {
      const now = await idle();
      if ([...suspects].some((k) => !now.has(k))) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return false;
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      try {
        let suspects = new Set<string>();
        if (client) {
          checks++;
          suspects = await waitedOn();
        }
        if (isSlow(body)) await new Promise((r) => setTimeout(r, slowness!.ms));
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) {
          if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
        }
        const answer = await fetch(`${target}${req.url ?? '/'}`, {
          method: req.method ?? 'POST',
          headers,
          ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body }),
        });
        const answered = Buffer.from(await answer.arrayBuffer());
        await hooked(body)?.();
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(answered);
        // A session idle all the while the call was held, that moves on once it is answered.
        if (suspects.size > 0) {
          const verdict = movedOn(suspects).then((moved) => {
            if (moved) caught.push(described(req, body));
          });
          pending.add(verdict);
          void verdict.catch(() => undefined).finally(() => pending.delete(verdict));
        }
      } catch (err) {
        if (!res.headersSent) res.writeHead(502).end(String(err));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    forwardTo(url) {
      target = url.replace(/\/$/, '');
    },
    async watch(databaseUrl) {
      const c = new pg.Client({ connectionString: databaseUrl });
      c.on('error', () => undefined);
      await c.connect();
      client = c;
    },
    caught,
    afterAnswer(match, action) {
      hook = { match, action };
    },
    checked: () => checks,
    slow(match, ms = 0) {
      slowness = match ? { match, ms } : null;
    },
    async settled() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
      await client?.end();
    },
  };
}

/**
 * Runs a flow through the gate and expects it to have called the node (through the proxy)
 * and never while one of its transactions was open; the flow's result.
 */
export async function outsideTransactions<T>(gate: RpcGate, run: () => Promise<T>): Promise<T> {
  gate.caught.length = 0;
  const before = gate.checked();
  const result = await run();
  await gate.settled();
  expect(gate.checked(), 'the flow called the node through the proxy').toBeGreaterThan(before);
  expect(gate.caught, 'node calls made while a transaction was open').toEqual([]);
  return result;
}
