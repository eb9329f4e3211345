/**
 * A node that refuses long eth_getLogs ranges, as providers do (a cap on results, commonly
 * 10,000 logs, or on blocks): a busy chain's listed tokens log more than that in a range of
 * INDEXER_BATCH_BLOCKS while the indexer catches up. The indexer used to ask for the same
 * range again and again, forever: no deposit after it was ever credited. A range that cannot be
 * read now makes the next ones shorter, and they grow back once ranges are read again.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';

const BATCH = 40;
let h: Harness;
let eth: TestChain;
let indexer: ChainIndexer;
let proxy: Server;
let node = '';
/** The longest eth_getLogs range the node answers (blocks); longer ones are refused. */
let limit = 10;
let refused = 0;

interface Call {
  id: number;
  method: string;
  params?: { fromBlock?: string; toBlock?: string }[];
}

beforeAll(async () => {
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as Call | Call[];
      const calls = Array.isArray(body) ? body : [body];
      const tooLong = (c: Call) =>
        c.method === 'eth_getLogs' && Number(BigInt(c.params![0]!.toBlock!) - BigInt(c.params![0]!.fromBlock!)) + 1 > limit;
      fetch(node, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
        .then(async (answer) => {
          const answers = (await answer.json()) as { id: number }[] | { id: number };
          const list = (Array.isArray(answers) ? answers : [answers]).map((a) => {
            const call = calls.find((c) => c.id === a.id);
            if (!call || !tooLong(call)) return a;
            refused++;
            return { jsonrpc: '2.0', id: a.id, error: { code: -32005, message: 'query returned more than 10000 results' } };
          });
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(answers) ? list : list[0]));
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const port = (proxy.address() as AddressInfo).port;
  h = await startHarness({
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 2 }],
    services: { indexer: { batchBlocks: BATCH, extraWindow: 64 } },
    rpcUrlOf: (c) => {
      node = c.rpcUrl;
      return `http://127.0.0.1:${port}`;
    },
  });
  eth = chainOf(h, 'devnet-eth');
  indexer = h.services.deposits.indexer(h.services.catalogue.findChain('devnet-eth', 'testnet')!);
  const w = h.wallets['devnet-eth']!;
  const body = { configurations: { autoSweeping: { isActive: false } } };
  expect((await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await new Promise((resolve) => proxy?.close(resolve));
});

/** Steps to the head as the indexer role does, a failed step tried again; the steps that failed. */
async function drain(): Promise<number> {
  let failed = 0;
  for (let i = 0; i < 500; i++) {
    try {
      if ((await indexer.step()) === 'idle') return failed;
    } catch {
      failed++;
    }
  }
  throw new Error(`the indexer did not reach the head (${failed} steps failed)`);
}

async function statusOf(hash: string): Promise<string[]> {
  const { rows } = await sql<{ status: string }>`
    SELECT status FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${hash})`.execute(h.database.db);
  return rows.map((r) => r.status);
}

it('reads a backlog the node refuses in long ranges in shorter ones, credits what it holds, and grows the ranges back', async () => {
  const w = h.wallets['devnet-eth']!;
  const res = await h.api('POST', `/v1/wallets/${w.id}/addresses`, { key: w.apiKey, body: {} });
  const child = res.body.data as { address: string };
  await eth.mine(30);
  const receipt = await eth.sendToken('USDC', child.address, '12.5');
  await eth.mine(3 * BATCH);

  const failed = await drain();
  expect(refused).toBeGreaterThan(0);
  // 40 refused, then 20, then ranges of 10 are read (fewer than 32 of them: it does not try 20 again yet).
  expect(failed).toBe(2);
  expect(indexer.span).toBeLessThanOrEqual(limit);
  expect(await statusOf(receipt.transactionHash)).toEqual(['SUCCESS']);

  // The node answers long ranges again: the ranges grow back to INDEXER_BATCH_BLOCKS (32 of 10, 32 of 20).
  limit = Infinity;
  await eth.mine(30 * BATCH);
  expect(await drain()).toBe(0);
  expect(indexer.span).toBe(BATCH);
});

it('a short range at the head that fails leaves the span alone: a later backlog is read in full ranges', async () => {
  await drain();
  expect(indexer.span).toBe(BATCH);
  // Two blocks past the cursor, every eth_getLogs refused: a failure at the head, not of a long range.
  await eth.mine(2);
  limit = 0;
  await expect(indexer.step()).rejects.toThrow();
  limit = Infinity;
  expect(indexer.span).toBe(BATCH);
  // A backlog after it: read BATCH blocks at a time at once.
  await eth.mine(3 * BATCH);
  expect(await drain()).toBe(0);
  expect(indexer.span).toBe(BATCH);
});

it('a short range the node refuses again and again is taken for too long as well: the span narrows after a few tries', async () => {
  await drain();
  expect(indexer.span).toBe(BATCH);
  // A backlog shorter than the span, every range of it longer than 5 blocks refused.
  await eth.mine(BATCH / 2);
  limit = 5;
  try {
    const failed = await drain();
    // 20 blocks refused 3 times (a short range: not at once), then 10 refused once (full), then 5-block ranges read.
    expect(failed).toBe(4);
    expect(indexer.span).toBeLessThanOrEqual(5);
  } finally {
    limit = Infinity;
  }
});
