/**
 * Test helpers of the Solana deposit tests (sindex): a pass-through HTTP proxy in front of
 * the validator stand-in that records the JSON-RPC method of every call (batches count each
 * request), so a test counts the node calls a piece of the service made.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RpcProxy {
  url: string;
  /** The JSON-RPC methods called through the proxy, in order. */
  calls: string[];
  close(): Promise<void>;
}

export async function countingRpcProxy(target: string): Promise<RpcProxy> {
  const calls: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      try {
        const parsed = JSON.parse(body.toString('utf8')) as { method?: string } | { method?: string }[];
        for (const m of Array.isArray(parsed) ? parsed : [parsed]) if (m.method) calls.push(m.method);
      } catch {
        calls.push('(unparsable)');
      }
      fetch(`${target}${req.url ?? '/'}`, {
        method: req.method ?? 'POST',
        headers: { 'content-type': 'application/json' },
        ...(req.method === 'POST' ? { body } : {}),
      })
        .then(async (r) => {
          res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' });
          res.end(Buffer.from(await r.arrayBuffer()));
        })
        .catch(() => {
          res.writeHead(502);
          res.end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
