/**
 * The hot path of balance reads: one Multicall3 `aggregate3` eth_call for a batch of
 * (owner, token) pairs, posted over a keep-alive node:http(s) agent.
 *
 * Why not viem's `multicall` over its http transport (still used for everything else):
 * profiled under the balance benchmark, each call spent its time hashing the same
 * function signatures again (keccak for every selector), building an eager TimeoutError
 * (stack capture) per request and going through fetch's web streams. The selectors here
 * are constants (checked against viem's `toFunctionSelector` in the tests), the ABI
 * encoding and decoding are still viem's.
 */
import http from 'node:http';
import https from 'node:https';
import { decodeAbiParameters, encodeAbiParameters, type Address, type Hex } from 'viem';
import type { BalanceQuery } from '../types.js';

/** aggregate3((address,bool,bytes)[]) */
export const AGGREGATE3_SELECTOR = '0x82ad56cb';
/** balanceOf(address) */
export const BALANCE_OF_SELECTOR = '0x70a08231';
/** Multicall3's getEthBalance(address) */
export const GET_ETH_BALANCE_SELECTOR = '0x4d2301cc';

const CALLS = [
  {
    type: 'tuple[]',
    components: [
      { name: 'target', type: 'address' },
      { name: 'allowFailure', type: 'bool' },
      { name: 'callData', type: 'bytes' },
    ],
  },
] as const;
const RESULTS = [
  {
    type: 'tuple[]',
    components: [
      { name: 'success', type: 'bool' },
      { name: 'returnData', type: 'bytes' },
    ],
  },
] as const;

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export class RpcError extends Error {
  override readonly name = 'RpcError';
}

/** Calldata of one aggregate3 call reading every query (no failure allowed: all or an error). */
export function encodeBalanceCalls(multicall3: string, queries: readonly BalanceQuery[]): Hex {
  const calls = queries.map((q) => {
    if (!HEX_ADDRESS.test(q.owner)) throw new RpcError('balance owner is not an address');
    const owner = q.owner.slice(2).toLowerCase().padStart(64, '0');
    return q.token
      ? { target: q.token as Address, allowFailure: false, callData: `${BALANCE_OF_SELECTOR}${owner}` as Hex }
      : { target: multicall3 as Address, allowFailure: false, callData: `${GET_ETH_BALANCE_SELECTOR}${owner}` as Hex };
  });
  return `${AGGREGATE3_SELECTOR}${encodeAbiParameters(CALLS, [calls]).slice(2)}`;
}

export function decodeBalanceResults(data: Hex, expected: number): bigint[] {
  const [results] = decodeAbiParameters(RESULTS, data);
  if (results.length !== expected) throw new RpcError(`multicall returned ${results.length} results for ${expected} calls`);
  return results.map((r, i) => {
    // A "token" without code answers success with no data: never read that as a balance.
    if (!r.success || r.returnData.length !== 66) throw new RpcError(`balance call ${i} returned no uint256`);
    return BigInt(r.returnData);
  });
}

export interface JsonRpcPoster {
  call(method: string, params: unknown[]): Promise<unknown>;
  close(): void;
}

/** JSON-RPC over HTTP(S) with pooled keep-alive connections, a timeout, one retry on a dropped connection. */
export function jsonRpcPoster(url: string, opts: { timeoutMs: number; maxSockets?: number }): JsonRpcPoster {
  const parsed = new URL(url);
  const secure = parsed.protocol === 'https:';
  // Resolved once: converting the URL on every request showed in the profile.
  const target = {
    protocol: parsed.protocol,
    hostname: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port || (secure ? 443 : 80),
    path: `${parsed.pathname}${parsed.search}`,
    ...(parsed.username ? { auth: `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}` } : {}),
  };
  const agent = new (secure ? https : http).Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 32 });
  const request = secure ? https.request : http.request;
  let id = 0;

  const post = (body: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          ...target,
          method: 'POST',
          agent,
          timeout: opts.timeoutMs,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode !== 200) reject(new RpcError(`HTTP ${res.statusCode ?? '?'} from the RPC endpoint`));
            else resolve(text);
          });
        },
      );
      req.on('timeout', () => req.destroy(new RpcError(`no answer from the RPC endpoint within ${opts.timeoutMs} ms`)));
      req.on('error', (err) => reject(err instanceof RpcError ? err : Object.assign(err, { staleSocket: req.reusedSocket })));
      req.end(body);
    });

  return {
    async call(method, params) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params });
      let text: string;
      try {
        text = await post(body);
      } catch (err) {
        // A kept-alive socket the node closed meanwhile fails on reuse (ECONNRESET): the
        // request never reached it, and reads are idempotent anyway, so retry once.
        if (!(err as { staleSocket?: boolean }).staleSocket) throw err;
        text = await post(body);
      }
      const json = JSON.parse(text) as { result?: unknown; error?: { code?: number; message?: string } };
      if (json.error) throw new RpcError(json.error.message ?? `JSON-RPC error ${json.error.code ?? ''}`);
      return json.result;
    },
    close() {
      agent.destroy();
    },
  };
}
