/**
 * An EVM chain this installation does not configure, reached through an RPC URL a client
 * gave for one asset recovery (modules/salvage/foreign.ts): an EvmAdapter for the chain the
 * endpoint says it is (eth_chainId; the EvmAdapter's foreignChains capability builds it), every connection of which resolves its host through
 * `lookup` (the webhook target policy's: a private or loopback address is refused at connect
 * time unless the operator allows them) and follows no redirect. Nothing of it is kept.
 */
import http from 'node:http';
import https from 'node:https';
import type { ChainConfig } from '../../config/index.js';
import type { ForeignLookup as Lookup } from '../capabilities.js';

const TIMEOUT_MS = 15_000;
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** fetch over node:http(s) with `lookup` deciding where the socket goes. */
export function checkedFetch(lookup: Lookup): typeof fetch {
  return ((input: string | URL | Request, init: RequestInit = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
      const request = url.protocol === 'https:' ? https.request : http.request;
      const headers = Object.fromEntries(new Headers(init.headers).entries());
      const req = request(url, { method: init.method ?? 'GET', headers, lookup, timeout: TIMEOUT_MS }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_ANSWER_BYTES) req.destroy(new Error('the RPC endpoint answered too much'));
          else chunks.push(c);
        });
        res.on('error', reject);
        res.on('end', () => {
          const out = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') out.set(k, v);
          resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 502, headers: out }));
        });
      });
      req.on('timeout', () => req.destroy(new Error(`no answer from the RPC endpoint within ${TIMEOUT_MS} ms`)));
      req.on('error', reject);
      init.signal?.addEventListener('abort', () => req.destroy(new Error('aborted')));
      req.end(typeof init.body === 'string' ? init.body : undefined);
    })) as typeof fetch;
}

/**
 * The configuration of the chain behind `url`, named like `like` (the wallet's chain) but with
 * its own chain id, and the fetch its adapter must use (the adapter's foreignChains capability).
 */
export async function foreignEvmChain(
  url: string,
  lookup: Lookup,
  like: ChainConfig,
): Promise<{ config: ChainConfig; fetchFn: typeof fetch }> {
  const fetchFn = checkedFetch(lookup);
  const res = await fetchFn(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
  });
  if (res.status !== 200) throw new Error(`HTTP ${res.status} from the RPC endpoint`);
  const answer = (await res.json()) as { result?: unknown };
  if (typeof answer.result !== 'string' || !/^0x[0-9a-fA-F]{1,16}$/.test(answer.result))
    throw new Error('the RPC endpoint gave no chain id');
  // The client's node's word: no chain has id 0 (viem refuses to sign for it), and one past a
  // number's exact integers would be signed for a neighbouring id and overflow the bigint the
  // sender's claim is keyed by (foreign_salvage_claims): both answered as no chain, before
  // anything is signed or written.
  const id = BigInt(answer.result);
  if (id === 0n || id > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`the RPC endpoint gave chain id ${id}, which no chain has`);
  const chainId = Number(id);
  const { swapRouter: _router, priceFeeds: _feeds, ...rest } = like;
  const config: ChainConfig = {
    ...rest,
    rpcUrl: url,
    chainId,
    blockchain: { ...like.blockchain, name: `EVM chain ${chainId}` },
    multicall3: null,
  };
  return { config, fetchFn };
}
