// JSON-RPC 2.0 over HTTP POST, single and batch requests, as a Solana node serves it; plus
// GET /health. Everything else answers 404 or 405.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { RPC, RpcError } from './errors.js';
import { parseJson, stringifyJson } from './json.js';
import type { Method, MethodContext } from './rpc-common.js';

const HOST = '127.0.0.1';
const MAX_BODY_BYTES = 16 * 1024 * 1024;

interface Logger {
  warn(...a: unknown[]): void;
}

type Response = { jsonrpc: '2.0'; id: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };

async function call(methods: Record<string, Method>, ctx: MethodContext, req: unknown, log: Logger): Promise<Response> {
  if (!req || typeof req !== 'object' || Array.isArray(req)) {
    return { jsonrpc: '2.0', id: null, error: { code: RPC.INVALID_REQUEST, message: 'Invalid request' } };
  }
  const r = req as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  const id = r.id ?? null;
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string') {
    return { jsonrpc: '2.0', id, error: { code: RPC.INVALID_REQUEST, message: 'Invalid request' } };
  }
  const method = Object.hasOwn(methods, r.method) ? methods[r.method] : undefined;
  if (!method) return { jsonrpc: '2.0', id, error: { code: RPC.METHOD_NOT_FOUND, message: 'Method not found' } };
  const params = r.params === undefined || r.params === null ? [] : r.params;
  if (!Array.isArray(params)) {
    return { jsonrpc: '2.0', id, error: { code: RPC.INVALID_PARAMS, message: 'Invalid params: expected an array' } };
  }
  try {
    return { jsonrpc: '2.0', id, result: await method(params, ctx) };
  } catch (err) {
    if (err instanceof RpcError) {
      const error: Response['error'] = { code: err.rpcCode, message: err.message };
      if (err.data !== undefined) error.data = err.data;
      return { jsonrpc: '2.0', id, error };
    }
    log.warn({ method: r.method, err: (err as Error).message }, 'solana stand-in: internal error');
    return { jsonrpc: '2.0', id, error: { code: RPC.INTERNAL, message: `Internal error: ${(err as Error).message}` } };
  }
}

export interface RpcServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startRpcServer(methods: Record<string, Method>, ctx: MethodContext, port: number, log: Logger): Promise<RpcServer> {
  const server = http.createServer((req, res) => {
    const send = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    if (req.method === 'GET' && req.url === '/health') return send(200, 'ok', 'text/plain');
    if (req.method !== 'POST') return send(405, 'Used HTTP Method is not allowed. POST or OPTIONS is required', 'text/plain');
    if (req.url !== '/' && req.url !== '') return send(404, 'Not Found', 'text/plain');
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        send(413, 'Payload Too Large', 'text/plain');
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) return;
      void (async () => {
        let body: unknown;
        try {
          body = parseJson(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return send(200, stringifyJson({ jsonrpc: '2.0', error: { code: RPC.PARSE_ERROR, message: 'Parse error' }, id: null }));
        }
        if (Array.isArray(body)) {
          if (body.length === 0) {
            return send(200, stringifyJson({ jsonrpc: '2.0', error: { code: RPC.INVALID_REQUEST, message: 'Invalid request' }, id: null }));
          }
          // Calls of a batch run in order: each sees the effects of the ones before it.
          const out: Response[] = [];
          for (const r of body) out.push(await call(methods, ctx, r, log));
          return send(200, stringifyJson(out));
        }
        send(200, stringifyJson(await call(methods, ctx, body, log)));
      })().catch((err: unknown) => {
        log.warn({ err: (err as Error).message }, 'solana stand-in: request failed');
        if (!res.headersSent) send(500, 'Internal Server Error', 'text/plain');
      });
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host: HOST }, () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://${HOST}:${actual}`,
    port: actual,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
