/**
 * Deposits on a Tron chain (issue 15, item 4), against the java-tron stand-in with blocks on
 * demand and real PostgreSQL: a deposit is confirmed when its block is solidified, whatever
 * the chain's `confirmations` (here 1); a deposit in a block reorganised away is failed, or
 * relocated when the new fork carries it; a scan costs the same node calls for 1 and for
 * 200 watched addresses (counted by a proxy in front of the stand-in); the deposit finder
 * takes a txID with or without 0x; two indexers on one database credit a deposit once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { resolveChain } from '../../../src/configuration.js';
import { DEVNET_CHAINS } from '../../../src/devnet/devnet.js';
import type { TronStandIn } from '../../../src/devnet/tron/index.js';
import { fundedWallet, sendToken, sendTrx, startForTest, type Wallet } from '../../../src/devnet/tron/testkit.js';
import type { ChainIndexer } from '../../../src/modules/deposits/indexer.js';
import { startHarness, type Harness } from '../../support/harness.js';

const SLUG = 'tron-deposits';

let s: TronStandIn;
let h: Harness;
let proxy: { server: Server; url: string; calls: string[] };
let usdt: string;
let wallet: { id: string; apiKey: string; address: string };
let payer: Wallet;

/** A pass-through to the stand-in that records the path of every node call. */
async function countingProxy(target: string): Promise<{ server: Server; url: string; calls: string[] }> {
  const calls: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls.push(req.url ?? '');
      const body = Buffer.concat(chunks);
      fetch(`${target}${req.url}`, {
        method: req.method ?? 'GET',
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
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

beforeAll(async () => {
  s = await startForTest({ blockTimeMs: 0 });
  usdt = s.tokens[0]!.address;
  proxy = await countingProxy(s.url);
  const chain = resolveChain(
    {
      blockchain: SLUG,
      family: 'tron',
      network: 'testnet',
      rpcUrl: proxy.url,
      chainId: 990_202,
      name: 'Tron',
      symbol: 'TRX',
      tokenStandard: 'TRC20',
      // Deliberately 1: on Tron the solidified block decides, not the configured depth.
      confirmations: 1,
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

const chainHandle = () => h.services.catalogue.findChain(SLUG, 'testnet')!;
const newIndexer = () => h.services.deposits.indexer(chainHandle());

async function drain(indexer: ChainIndexer) {
  for (let i = 0; i < 100; i++) if ((await indexer.step()) === 'idle') return;
  throw new Error('indexer did not reach the head');
}

async function child(): Promise<{ id: string; address: string }> {
  const res = await h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

async function deposits(txid: string) {
  const { rows } = await sql<{
    id: string;
    status: string;
    amount: string;
    block_number: string;
    block_hash: string;
    confirmations: number;
  }>`
    SELECT id, status, amount, block_number, block_hash, confirmations FROM transactions
     WHERE type = 'DEPOSIT' AND hash = ${txid} ORDER BY created_at`.execute(h.database.db);
  return rows;
}

async function eventNames(transactionId: string) {
  const { rows } = await sql<{ name: string }>`
    SELECT name FROM events WHERE transaction_id = ${transactionId} ORDER BY created_at, id`.execute(h.database.db);
  return rows.map((r) => r.name);
}

async function usdtTo(address: string, amount: bigint): Promise<string> {
  const sent = await sendToken(s, payer, usdt, address, amount);
  expect(sent.result, JSON.stringify(sent)).toBe(true);
  return sent.txid as string;
}

describe('Tron deposits are confirmed when their block is solidified', () => {
  it('a USDT deposit stays PENDING 19 blocks deep (confirmations: 1) and is SUCCESS once solidified', async () => {
    const indexer = newIndexer();
    await drain(indexer);
    const to = await child();
    const txid = await usdtTo(to.address, 4_200_001n);
    await s.control.produceBlocks(1);
    await drain(indexer);
    const [found] = await deposits(txid);
    expect(found).toMatchObject({ status: 'PENDING', amount: '4200001', confirmations: 1 });

    // 18 blocks on top: 19 deep, one short of the solidified block (the stand-in's lag is 19).
    await s.control.produceBlocks(18);
    await drain(indexer);
    expect(await deposits(txid)).toMatchObject([{ status: 'PENDING', confirmations: 19 }]);
    expect(await eventNames(found!.id)).toEqual(['deposit.processing']);

    await s.control.produceBlocks(1);
    await drain(indexer);
    expect(await deposits(txid)).toMatchObject([{ status: 'SUCCESS', amount: '4200001', confirmations: 20 }]);
    expect(await eventNames(found!.id)).toEqual(['deposit.processing', 'deposit.success']);
  });

  it('a deposit found already solidified (an indexer that was behind) is written SUCCESS at once', async () => {
    const indexer = newIndexer();
    await drain(indexer);
    const to = await child();
    const sent = await sendTrx(s, payer, to.address, 1_500_001);
    expect(sent.result, JSON.stringify(sent)).toBe(true);
    await s.control.solidify();
    await drain(indexer);
    const rows = await deposits(sent.txid as string);
    expect(rows).toMatchObject([{ status: 'SUCCESS', amount: '1500001' }]);
    expect(await eventNames(rows[0]!.id)).toEqual(['deposit.processing', 'deposit.success']);
  });
});

describe('reorganisations of the unsolidified head', () => {
  it('a deposit whose block is replaced without it is FAILED (deposit.failed), never credited', async () => {
    const indexer = newIndexer();
    await drain(indexer);
    const to = await child();
    const txid = await usdtTo(to.address, 3_000_000n);
    await s.control.produceBlocks(2);
    await drain(indexer);
    const [found] = await deposits(txid);
    expect(found!.status).toBe('PENDING');

    await s.control.reorg(3); // the deposit's block and the two above, transactions dropped
    await drain(indexer);
    await s.control.solidify();
    await drain(indexer);
    expect(await deposits(txid)).toMatchObject([{ id: found!.id, status: 'FAILED' }]);
    expect(await eventNames(found!.id)).toEqual(['deposit.processing', 'deposit.failed']);
  });

  it('a deposit the new fork carries too is the same record, moved to its new block, then SUCCESS', async () => {
    const indexer = newIndexer();
    await drain(indexer);
    const to = await child();
    const txid = await usdtTo(to.address, 2_500_000n);
    await s.control.produceBlocks(1);
    await drain(indexer);
    const [before] = await deposits(txid);

    await s.control.reorg(1, { keepTransactions: true });
    await drain(indexer);
    await s.control.solidify();
    await drain(indexer);
    const after = await deposits(txid);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: before!.id, status: 'SUCCESS', amount: '2500000' });
    expect(after[0]!.block_hash).not.toBe(before!.block_hash);
    const names = await eventNames(before!.id);
    expect(names.filter((n) => n === 'deposit.success')).toHaveLength(1);
    expect(names).not.toContain('deposit.failed');
  });
});

describe('node calls per block', () => {
  /** Node calls the indexer makes to read `blocks` new blocks, each holding a deposit to one of `targets`. */
  async function callsFor(indexer: ChainIndexer, targets: string[], blocks: number): Promise<Record<string, number>> {
    await drain(indexer);
    for (let i = 0; i < blocks; i++) {
      await usdtTo(targets[i % targets.length]!, 1_000n + BigInt(i));
      await s.control.produceBlocks(1);
    }
    const start = proxy.calls.length;
    await drain(indexer);
    const counts: Record<string, number> = {};
    for (const path of proxy.calls.slice(start)) counts[path] = (counts[path] ?? 0) + 1;
    return counts;
  }

  it('the same calls for 1 and for 200 watched addresses: two per block plus the heads', async () => {
    // A wallet of its own, so the other tests' addresses do not count.
    const res = await h.api('POST', '/v1/wallets', { key: h.businessKey, body: { blockchain: SLUG, network: 'testnet', name: 'count' } });
    expect(res.status).toBe(200);
    const w = res.body.data as { id: string; apiKey: string };
    for (const a of chainHandle().assets)
      expect((await h.api('PATCH', `/v1/wallets/${w.id}/assets/${a.id}`, { key: w.apiKey, body: { isActive: true } })).status).toBe(200);
    const issue = async () => {
      const r = await h.api('POST', `/v1/wallets/${w.id}/addresses`, { key: w.apiKey, body: { disableAutoSweep: true } });
      expect(r.status).toBe(200);
      return (r.body.data as { address: string }).address;
    };
    const indexer = newIndexer();
    const one = [await issue()];
    const few = await callsFor(indexer, one, 4);
    const many = [...one];
    while (many.length < 200) many.push(await issue());
    const lots = await callsFor(indexer, many.slice(-4), 4);
    expect(lots).toEqual(few);
    expect(few['/wallet/getblockbynum']).toBe(4);
    expect(few['/wallet/gettransactioninfobyblocknum']).toBe(4);
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM transactions WHERE type = 'DEPOSIT' AND wallet_id = ${w.id}`.execute(h.database.db);
    expect(Number(rows[0]!.n)).toBe(8);
  }, 60_000);
});

describe('the deposit finder with a Tron txID', () => {
  it('finds a deposit by its txID without 0x and with 0x: one record, the same both times', async () => {
    const to = await child();
    const txid = await usdtTo(to.address, 6_000_001n);
    await s.control.produceBlocks(1);
    const find = (transactionHash: string) =>
      h.api('POST', `/v1/wallets/${wallet.id}/deposit-finder`, { key: wallet.apiKey, body: { transactionHash } });
    const bare = await find(txid);
    expect(bare.status, JSON.stringify(bare.body)).toBe(200);
    expect(bare.body.data).toMatchObject([{ hash: txid, amount: '6.000001', type: 'DEPOSIT' }]);
    const prefixed = await find(`0x${txid.toUpperCase()}`);
    expect(prefixed.status, JSON.stringify(prefixed.body)).toBe(200);
    expect(prefixed.body.data.map((d: { id: string }) => d.id)).toEqual([bare.body.data[0].id]);
    expect(await deposits(txid)).toHaveLength(1);
  });

  it("the wallet's history filtered by a txID, without 0x and with 0x, lists its deposit", async () => {
    const to = await child();
    const txid = await usdtTo(to.address, 7_000_001n);
    await s.control.produceBlocks(1);
    await drain(newIndexer());
    const [d] = await deposits(txid);
    expect(d).toBeDefined();
    for (const hash of [txid, `0x${txid}`, txid.toUpperCase()]) {
      const res = await h.api('GET', `/v1/wallets/${wallet.id}/transactions?hash=${hash}`, { key: wallet.apiKey });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.map((t: { id: string }) => t.id)).toEqual([d!.id]);
    }
  });
});

describe('two indexers on one database', () => {
  it('credit a deposit once: one row, one deposit.processing, one deposit.success', async () => {
    const a = newIndexer();
    const b = newIndexer();
    await Promise.all([drain(a), drain(b)]);
    const to = await child();
    const txid = await usdtTo(to.address, 9_000_009n);
    const trx = await sendTrx(s, payer, to.address, 2_000_002);
    for (let i = 0; i < 21; i++) {
      await s.control.produceBlocks(1);
      await Promise.all([drain(a), drain(b)]);
    }
    for (const hash of [txid, trx.txid as string]) {
      const rows = await deposits(hash);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.status).toBe('SUCCESS');
      expect(await eventNames(rows[0]!.id)).toEqual(['deposit.processing', 'deposit.success']);
    }
  }, 60_000);
});
