/**
 * A real HTTP webhook receiver on loopback, scripted per request: answer with a status,
 * hang (to exercise timeouts), redirect, or close the socket. Records every request with
 * its exact body bytes and headers.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Behaviour =
  { kind: 'status'; status: number; body?: string } | { kind: 'hang' } | { kind: 'redirect'; location: string } | { kind: 'destroy' };

export interface ReceivedRequest {
  at: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Behaviours for the next requests, in order; afterwards `fallback`. */
  script(...behaviours: Behaviour[]): void;
  fallback: Behaviour;
  waitForRequests(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(fallback: Behaviour = { kind: 'status', status: 200, body: 'ok' }): Promise<Receiver> {
  const queue: Behaviour[] = [];
  const requests: ReceivedRequest[] = [];
  const hanging = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        at: Date.now(),
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const b = queue.shift() ?? receiver.fallback;
      switch (b.kind) {
        case 'status':
          res.writeHead(b.status, { 'content-type': 'text/plain' }).end(b.body ?? '');
          return;
        case 'redirect':
          res.writeHead(302, { location: b.location }).end();
          return;
        case 'destroy':
          req.socket.destroy();
          return;
        case 'hang': {
          const release = () => res.destroy();
          hanging.add(release);
          res.on('close', () => hanging.delete(release));
          return;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    fallback,
    script: (...behaviours) => queue.push(...behaviours),
    async waitForRequests(n, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < n) {
        if (Date.now() > deadline) throw new Error(`receiver got ${requests.length} requests, expected ${n}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async close() {
      for (const release of hanging) release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

/** A loopback URL nobody listens on: connections are refused. */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hooks`;
}
