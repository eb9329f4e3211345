/**
 * The deposit finder reads a transaction off the node, then records it. If the block it read
 * is reorganised away in between and the indexer has already read that height again (on the
 * new fork, without the transaction), nothing may record the finder's deposit in a block no
 * range will read again: the indexer would confirm it by its number once that height is
 * solidified, crediting a transfer the chain does not hold.
 *
 * A proxy in front of the java-tron stand-in holds the finder's next node call after its
 * reads (the head), so the reorganisation and the indexer's pass happen exactly in between.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { resolveChain } from '../../../src/configuration.js';
import { DEVNET_CHAINS } from '../../../src/devnet/devnet.js';
import type { TronStandIn } from '../../../src/devnet/tron/index.js';
import { fundedWallet, sendToken, startForTest, type Wallet } from '../../../src/devnet/tron/testkit.js';
import type { ChainIndexer } from '../../../src/modules/deposits/indexer.js';
import { startHarness, type Harness } from '../../support/harness.js';

const SLUG = 'tron-finder-reorg';

let s: TronStandIn;
let h: Harness;
let usdt: string;
let wallet: { id: string; apiKey: string };
let payer: Wallet;

/** A pass-through that, once armed, holds the next request for `path` until released. */
interface HoldingProxy {
  server: Server;
  url: string;
  arm(path: string): { held: Promise<void>; release(): void };
}

async function holdingProxy(target: string): Promise<HoldingProxy> {
  let trap: { path: string; hit: () => void; gate: Promise<void> } | null = null;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let wait: Promise<void> = Promise.resolve();
      if (trap && trap.path === req.url) {
        trap.hit();
        wait = trap.gate;
        trap = null;
      }
      void wait
        .then(() =>
          fetch(`${target}${req.url}`, {
            method: req.method ?? 'GET',
            headers: { 'content-type': 'application/json' },
            ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
          }),
        )
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
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arm(path) {
      let hit!: () => void;
      let release!: () => void;
      const held = new Promise<void>((r) => (hit = r));
      const gate = new Promise<void>((r) => (release = r));
      trap = { path, hit, gate };
      return { held, release };
    },
  };
}

let proxy: HoldingProxy;

beforeAll(async () => {
  s = await startForTest({ blockTimeMs: 0 });
  usdt = s.tokens[0]!.address;
  proxy = await holdingProxy(s.url);
  const chain = resolveChain(
    {
      blockchain: SLUG,
      family: 'tron',
      network: 'testnet',
      rpcUrl: proxy.url,
      chainId: 990_203,
      name: 'Tron',
      symbol: 'TRX',
      tokenStandard: 'TRC20',
      confirmations: 20,
      multicall3: s.multicall.address,
      assets: [{ symbol: 'USDT', address: usdt, decimals: 6 }],
    },
    'test',
  );
  h = await startHarness({ specs: [DEVNET_CHAINS[0]!], extraChains: [chain] });
  const created = await h.api('POST', '/v1/wallets', { key: h.businessKey, body: { blockchain: SLUG, network: 'testnet', name: 'Tron' } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  wallet = created.body.data;
  for (const a of h.services.catalogue.findChain(SLUG, 'testnet')!.assets) {
    const res = await h.api('PATCH', `/v1/wallets/${wallet.id}/assets/${a.id}`, { key: wallet.apiKey, body: { isActive: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  payer = await fundedWallet(s, 2_000_000_000, { USDT: 1_000_000_000n });
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await new Promise((resolve) => proxy?.server.close(resolve));
  await s?.stop();
});

async function drain(indexer: ChainIndexer) {
  for (let i = 0; i < 100; i++) if ((await indexer.step()) === 'idle') return;
  throw new Error('indexer did not reach the head');
}

describe('the deposit finder racing a reorganisation', () => {
  it('never leaves a deposit of a block replaced meanwhile for the indexer to confirm', async () => {
    const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(SLUG, 'testnet')!);
    await drain(indexer);
    const res = await h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const to = res.body.data as { address: string };
    const sent = await sendToken(s, payer, usdt, to.address, 7_000_000n);
    expect(sent.result, JSON.stringify(sent)).toBe(true);
    const txid = sent.txid as string;
    await s.control.produceBlocks(2);

    // The finder reads the transaction in its block, then asks for the head: held there.
    const gate = proxy.arm('/wallet/getblock');
    const found = h.api('POST', `/v1/wallets/${wallet.id}/deposit-finder`, { key: wallet.apiKey, body: { transactionHash: txid } });
    await gate.held;
    // Meanwhile the block is replaced without the transaction, and the indexer reads past it.
    await s.control.reorg(3);
    await drain(indexer);
    gate.release();
    // The finder tells the client to ask again (the chain changed under it), and keeps nothing.
    const answer = await found;
    expect(answer.status, JSON.stringify(answer.body)).toBe(503);
    expect(answer.body.error).toBe('CHAIN_UNAVAILABLE');

    // Once that height is solidified, nothing of the transaction is credited.
    await s.control.solidify();
    await drain(indexer);
    const { rows } = await sql<{ status: string }>`
      SELECT status FROM transactions WHERE type = 'DEPOSIT' AND hash = ${txid}`.execute(h.database.db);
    expect(rows.filter((r) => r.status !== 'FAILED')).toEqual([]);
    const info = await fetch(`${s.url}/wallet/gettransactioninfobyid`, { method: 'POST', body: JSON.stringify({ value: txid }) });
    expect(((await info.json()) as { blockNumber?: number }).blockNumber).toBeUndefined();
  });
});
