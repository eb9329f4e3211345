/**
 * An RPC provider's API key in the path of the node's URL (Alchemy `/v2/<key>`, Infura
 * `/v3/<key>`, QuickNode `/<token>/`, Ankr `/<chain>/<key>`) never reaches the log. viem
 * names the URL in every transport error ("URL: https://…/v2/<key>"), and a request that
 * fails on a node that is down logs that error with its causes: the key must be gone from
 * every line, whatever logged it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';

const SECRET = 'Zq8rT2vW9xY4kL7mN3pB6cD1fG5hJ0sA';

let h: Harness;
let w: TestWallet;
let proxy: Server;
let node = '';
let down = false;

beforeAll(async () => {
  // The node behind a path that carries the provider's key; `down` answers 503 as a provider
  // does when it has an outage.
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (down || !req.url?.startsWith(`/v2/${SECRET}`)) {
        res.writeHead(503).end('unavailable');
        return;
      }
      fetch(node, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
        .then(async (answer) => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text()))
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const port = (proxy.address() as AddressInfo).port;
  h = await startHarness({
    specs: [DEVNET_CHAINS[0]!],
    rpcUrlOf: (c) => {
      node = c.rpcUrl;
      return `http://127.0.0.1:${port}/v2/${SECRET}`;
    },
  });
  w = Object.values(h.wallets)[0]!;
});
afterAll(async () => {
  await h?.stop();
  await new Promise((resolve) => proxy?.close(resolve));
});

describe('an RPC URL with an API key in its path', () => {
  it('is redacted from the lines a failed node call logs', async () => {
    const up = await h.api('GET', `/v1/wallets/${w.id}/balance`, { key: w.apiKey });
    expect(up.status).toBe(200);

    down = true;
    try {
      // Balances (their own JSON-RPC client) and a block read through viem.
      const balance = await h.api('GET', `/v1/wallets/${w.id}/balance`, { key: w.apiKey });
      const rescan = await h.api('POST', `/v1/wallets/${w.id}/rescan/blocks`, { key: w.apiKey, body: { blockNumber: 1 } });
      for (const res of [balance, rescan]) {
        expect(res.status).toBe(503);
        expect(res.body.error).toBe('CHAIN_UNAVAILABLE');
        expect(JSON.stringify(res.body)).not.toContain(SECRET);
      }
    } finally {
      down = false;
    }
    const logs = h.logs();
    // The failure was logged, with the node's host still there to tell which node failed.
    expect(logs).toContain('request failed');
    expect(logs).toMatch(/127\.0\.0\.1:\d+\/\[redacted\]/);
    expect(logs).not.toContain(SECRET);
  });
});
