/**
 * A mined withdrawal followed to its final depth through a load balancer whose backends
 * disagree: one gives the receipt, another answers the head with a block number below the
 * receipt's block (it is behind). Depth is head - block + 1, which such a head made zero or
 * negative, and the withdrawal's public `confirmations` showed it. A head below the receipt's
 * block proves nothing (outbound/confirm.ts): nothing is reported, the check looks again.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { assetOf, getTx, outboundOf, randomAddress, settledTx, withdraw } from './world.js';

const ETH = 'devnet-eth';
let h: Harness;
let eth: TestChain;
let proxy: Server;
let node = '';
/** While set, the balancer's other backend answers eth_blockNumber: this many blocks behind the node. */
let behind: bigint | null = null;

type RpcCall = { id: unknown; method: string };

beforeAll(async () => {
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const forwarded = await fetch(node, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
        const answer = (await forwarded.json()) as unknown;
        const calls = ([] as RpcCall[]).concat(JSON.parse(text) as RpcCall | RpcCall[]);
        const answers = ([] as { id: unknown; result?: unknown }[]).concat(answer as never);
        if (behind !== null) {
          for (const a of answers) {
            const call = calls.find((c) => c.id === a.id);
            if (call?.method === 'eth_blockNumber' && typeof a.result === 'string')
              a.result = `0x${(BigInt(a.result) - behind).toString(16)}`;
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(answer) ? answers : answers[0]));
      })().catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const port = (proxy.address() as AddressInfo).port;
  h = await startHarness({
    // Final at 4 blocks: the withdrawal is followed for a while after it is mined.
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 4 }],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
    rpcUrlOf: (c) => {
      node = c.rpcUrl;
      return `http://127.0.0.1:${port}`;
    },
  });
  eth = chainOf(h, ETH);
  await eth.sendToken('USDC', h.wallets[ETH]!.address, '10');
}, 120_000);
afterAll(async () => {
  await h?.stop();
  await new Promise((resolve) => proxy?.close(resolve));
});

it("a head below the receipt's block reports no depth: confirmations never drop to zero or below", async () => {
  const res = await withdraw(h, ETH, { assetId: assetOf(h, ETH, 'USDC').id, address: randomAddress(), amount: '1' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const mined = await settledTx(h, ETH, res.body.data.id, 'SUCCESS');
  await h.stopWorker();
  const before = (await getTx(h, ETH, mined.id)).confirmations as number;
  expect(before).toBeGreaterThanOrEqual(1);
  const [row] = await outboundOf(h, mined.id);

  // The backend behind: its head 3 blocks below the node's, below the receipt's block.
  behind = BigInt((await eth.blockNumber()) - BigInt(mined.blockNumber)) + 3n;
  try {
    await h.services.outbound.confirm(row!.id);
  } finally {
    behind = null;
  }
  const t = await getTx(h, ETH, mined.id);
  expect(t).toMatchObject({ status: 'SUCCESS', blockHash: mined.blockHash });
  expect(t.confirmations).toBe(before);

  // The node's own head: the count goes on to final.
  await eth.mine(4);
  await h.services.outbound.confirm(row!.id);
  expect((await getTx(h, ETH, mined.id)).confirmations).toBeGreaterThanOrEqual(4);
});
