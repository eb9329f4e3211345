/**
 * The chain id of a chain named by rpcUrl is the client's node's word (eth_chainId), and the
 * recovery signs for it, claims the sender under it (foreign_salvage_claims.chain_id, a
 * bigint) and records it. A node answering 0 (no chain: viem refuses to sign for it) or a
 * 64-bit id past PostgreSQL's bigint (and past a JavaScript number's exact integers, so the
 * transfer would be signed for a neighbouring id) got as far as the signature or the claim
 * and failed there: a 500. Such a node does not answer as a chain: 422 RPC_URL_UNREACHABLE,
 * nothing signed or written.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startAnvil, type AnvilHandle } from '../../src/devnet/anvil.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
let foreign: AnvilHandle;
let proxy: http.Server;
let proxyUrl: string;
/** What the proxy answers to eth_chainId; every other call goes to the foreign anvil. */
let chainIdAnswer = '0x0';
const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

type Call = { id: unknown; method: string };

beforeAll(async () => {
  h = await startHarness({});
  foreign = await startAnvil({ chainId: 31_996, port: 0 });
  proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString();
      const calls = JSON.parse(body) as Call | Call[];
      const lie = (c: Call) => (c.method === 'eth_chainId' ? { jsonrpc: '2.0', id: c.id, result: chainIdAnswer } : null);
      const single = !Array.isArray(calls) ? lie(calls) : null;
      let answer: string;
      if (single) answer = JSON.stringify(single);
      else {
        const upstream = await fetch(foreign.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const parsed = (await upstream.json()) as unknown;
        answer = JSON.stringify(Array.isArray(parsed) && Array.isArray(calls) ? parsed.map((r, i) => lie(calls[i]!) ?? r) : parsed);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  await fetch(foreign.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [wallet().address, '0xDE0B6B3A7640000'] }),
  });
}, 90_000);
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await foreign?.stop();
  await h?.stop();
});

const salvages = async () =>
  Number(
    (
      await sql<{ n: string }>`SELECT count(*) AS n FROM transactions WHERE wallet_id = ${wallet().id} AND type = 'SALVAGE'`.execute(
        h.database.db,
      )
    ).rows[0]!.n,
  );

describe('a node named by rpcUrl answering a chain id no chain has', () => {
  it.each([
    ['0', '0x0'],
    ['past a bigint', '0xffffffffffffffff'],
  ])('chain id %s: 422 RPC_URL_UNREACHABLE, nothing signed or written', async (_name, answer) => {
    chainIdAnswer = answer;
    const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    const body = {
      senderAddress: wallet().address,
      recipientAddress: fresh(),
      amount: '0.1',
      blockchainId: chain.row.blockchain_id,
      rpcUrl: proxyUrl,
    };
    const res = await h.api('POST', `${base()}/salvage`, { body });
    expect([res.status, res.body.error], JSON.stringify(res.body)).toEqual([422, 'RPC_URL_UNREACHABLE']);
    expect(await salvages()).toBe(0);
  });
});
