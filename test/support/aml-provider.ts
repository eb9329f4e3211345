/**
 * A test double of an HTTP screening provider: a server on loopback speaking the API the
 * service's built-in HTTP provider calls (Chainalysis's sanctions screening API:
 * `GET /api/v1/address/{address}` with `X-API-Key`, answering `{ identifications: [...] }`).
 * Tests list addresses on it, make it hang (a provider that times out) or fail, and count
 * the requests it got.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProviderDouble {
  url: string;
  apiKey: string;
  /** Addresses it answers as sanctioned (exact spelling, as the service sends them). */
  listed: Set<string>;
  /** 'ok' answers; 'hang' never answers (until 'ok' again or stop); 'error' answers 503. */
  mode: 'ok' | 'hang' | 'error';
  /** How long each answer takes (ms; default 0): a remote API's round trip. */
  latencyMs: number;
  requests: number;
  stop(): Promise<void>;
}

export async function startProviderDouble(apiKey = 'test-screening-key'): Promise<ProviderDouble> {
  const hanging = new Set<ServerResponse>();
  const state: ProviderDouble = {
    url: '',
    apiKey,
    listed: new Set(),
    mode: 'ok',
    latencyMs: 0,
    requests: 0,
    stop: async () => {
      for (const res of hanging) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    state.requests += 1;
    const m = /^\/api\/v1\/address\/([^/?]+)$/.exec(req.url ?? '');
    if (!m || req.method !== 'GET') return void res.writeHead(404).end();
    if (req.headers['x-api-key'] !== apiKey)
      return void res.writeHead(403, { 'content-type': 'application/json' }).end('{"message":"bad key"}');
    if (state.mode === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (state.mode === 'error') return void res.writeHead(503).end();
    const address = decodeURIComponent(m[1]!);
    const identifications = state.listed.has(address)
      ? [{ category: 'sanctions', name: 'SANCTIONS: TEST DOUBLE', description: 'listed by the test', url: 'https://example.invalid' }]
      : [];
    const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ identifications }));
    if (state.latencyMs > 0) setTimeout(answer, state.latencyMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
