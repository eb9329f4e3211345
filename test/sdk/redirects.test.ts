/**
 * The SDK (and the `wallet` CLI, with the key of its stored profile) never sends the API key
 * where a redirect points. fetch follows redirects by default and drops only the standard
 * credential headers (Authorization, Cookie) on the way to another origin: `x-api-key` went
 * along, and a 307/308 re-sent a withdrawal's body there too. A redirect is an error that
 * names where it pointed; the caller fixes its base URL.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, WalletClient } from '../../packages/sdk/src/index.js';

const KEY = `sk_test_${'k'.repeat(43)}`;

let service: Server;
let elsewhere: Server;
let target = '';
const reached: IncomingMessage[] = [];

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  // Another origin: whoever a proxy, a moved domain or a hijacked page redirects to.
  elsewhere = createServer((req, res) => {
    reached.push(req);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
  });
  target = await listen(elsewhere);
  service = createServer((req, res) => res.writeHead(307, { location: `${target}${req.url}` }).end());
});
afterAll(async () => {
  await Promise.all([service, elsewhere].map((s) => new Promise((resolve) => s.close(resolve))));
});

describe('a redirect', () => {
  it('is not followed: the key and the body stay home, and the error names where it pointed', async () => {
    const client = new WalletClient({ baseUrl: await listen(service), apiKey: KEY, maxRetries: 0 });
    const list = await client.blockchains.list().then(
      () => null,
      (e: unknown) => e,
    );
    expect(list).toBeInstanceOf(ApiError);
    expect(list).toMatchObject({ status: 307 });
    expect((list as ApiError).message).toContain(target);
    // A 307 would have re-sent a withdrawal, body and all.
    await expect(
      client.withdrawals.create('01a22f86-44ce-7000-9509-fd906a0fa42f', { assetId: 'a', address: '0x1', amount: '1' } as never),
    ).rejects.toMatchObject({ status: 307 });
    expect(reached.map((r) => r.headers['x-api-key'])).toEqual([]);
  });
});
