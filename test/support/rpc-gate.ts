/**
 * An HTTP proxy in front of a chain node that catches the service calling the node while
 * one of its database transactions is open.
 *
 * Why it matters: a transaction holds a pool connection (and often a sender's lock) for as
 * long as the node takes to answer, up to the client's timeout and retries. With enough
 * such calls at once the pool is empty and every route waits. So the flows read the chain
 * first and decide under their locks on what they read.
 *
 * How it sees one: when a request reaches the proxy, and again a moment later (a call made
 * beside a statement still running), it asks PostgreSQL whether a session of the watched
 * database sits "idle in transaction": the service is waiting on something that is not the
 * database. The world must run nothing else meanwhile (no worker, no indexer), so that such
 * a session can only be the flow that made the call.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';

export interface RpcGate {
  /** The proxy's URL: give it to the service as the chain's node. */
  url: string;
  /** Where requests go (set once the node is up). */
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
  /** Requests checked so far. */
  checked(): number;
  close(): Promise<void>;
}

const IN_TRANSACTION = `SELECT count(*)::int AS n FROM pg_stat_activity
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
  const inTransaction = (): Promise<boolean> => {
    const c = client;
    if (!c) return Promise.resolve(false);
    const run = queue.then(async () => (await c.query<{ n: number }>(IN_TRANSACTION)).rows[0]!.n > 0);
    queue = run.catch(() => undefined);
    return run;
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      try {
        if (client) {
          checks++;
          const now = await inTransaction();
          await new Promise((r) => setTimeout(r, 20));
          const later = await inTransaction();
          if (process.env.RPC_GATE_DEBUG) console.log('rpc-gate', described(req, body), now, later);
          if (now || later) caught.push(described(req, body));
        }
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
      } catch (err) {
        res.writeHead(502).end(String(err));
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
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
      await client?.end();
    },
  };
}
