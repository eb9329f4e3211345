import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { encodeAbiParameters, encodeFunctionData, erc20Abi, multicall3Abi, toFunctionSelector, type Hex } from 'viem';
import {
  AGGREGATE3_SELECTOR,
  BALANCE_OF_SELECTOR,
  GET_ETH_BALANCE_SELECTOR,
  decodeBalanceResults,
  encodeBalanceCalls,
  jsonRpcPoster,
} from './multicall-balances.js';

const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11';
const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const OWNER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

describe('multicall balance encoding', () => {
  it('uses the selectors viem computes', () => {
    expect(AGGREGATE3_SELECTOR).toBe(
      toFunctionSelector('function aggregate3((address target, bool allowFailure, bytes callData)[] calls)'),
    );
    expect(BALANCE_OF_SELECTOR).toBe(toFunctionSelector('function balanceOf(address)'));
    expect(GET_ETH_BALANCE_SELECTOR).toBe(toFunctionSelector('function getEthBalance(address)'));
  });

  it('encodes exactly what viem encodes for the same aggregate3 call', () => {
    const ours = encodeBalanceCalls(MULTICALL3, [
      { owner: OWNER, token: TOKEN },
      { owner: OWNER, token: null },
    ]);
    const theirs = encodeFunctionData({
      abi: multicall3Abi,
      functionName: 'aggregate3',
      args: [
        [
          { target: TOKEN, allowFailure: false, callData: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [OWNER] }) },
          {
            target: MULTICALL3,
            allowFailure: false,
            callData: encodeFunctionData({ abi: multicall3Abi, functionName: 'getEthBalance', args: [OWNER] }),
          },
        ],
      ],
    });
    expect(ours).toBe(theirs);
  });

  it('decodes uint256 results and refuses empty return data', () => {
    const results = (rows: { success: boolean; returnData: Hex }[]) =>
      encodeAbiParameters(
        [
          {
            type: 'tuple[]',
            components: [
              { name: 'success', type: 'bool' },
              { name: 'returnData', type: 'bytes' },
            ],
          },
        ],
        [rows],
      );
    const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}` as Hex;
    const big = 2n ** 255n + 12345n;
    expect(
      decodeBalanceResults(
        results([
          { success: true, returnData: word(7n) },
          { success: true, returnData: word(big) },
        ]),
        2,
      ),
    ).toEqual([7n, big]);
    expect(() => decodeBalanceResults(results([{ success: true, returnData: '0x' }]), 1)).toThrow(/no uint256/);
    expect(() => decodeBalanceResults(results([{ success: true, returnData: word(1n) }]), 2)).toThrow(/1 results for 2/);
  });
});

describe('jsonRpcPoster', () => {
  it('posts JSON-RPC over one kept-alive connection and surfaces RPC errors', async () => {
    const sockets = new Set<unknown>();
    const server = http.createServer((req, res) => {
      sockets.add(req.socket);
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const { id, method, params } = JSON.parse(body);
        res.setHeader('content-type', 'application/json');
        if (method === 'fail') res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: 'execution reverted' } }));
        else res.end(JSON.stringify({ jsonrpc: '2.0', id, result: { method, params } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const rpc = jsonRpcPoster(`http://127.0.0.1:${port}`, { timeoutMs: 2_000 });
    try {
      for (let i = 0; i < 5; i++) expect(await rpc.call('eth_call', [i])).toEqual({ method: 'eth_call', params: [i] });
      expect(sockets.size).toBe(1);
      await expect(rpc.call('fail', [])).rejects.toThrow('execution reverted');
    } finally {
      rpc.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('retries once when a kept-alive connection was closed by the node', async () => {
    let requests = 0;
    const server = http.createServer((req, res) => {
      requests++;
      req.resume();
      req.on('end', () => {
        // The first reuse of the connection is cut, as a node closing idle sockets would.
        if (requests === 2) return req.socket.destroy();
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: requests }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const rpc = jsonRpcPoster(`http://127.0.0.1:${(server.address() as { port: number }).port}`, { timeoutMs: 2_000 });
    try {
      expect(await rpc.call('a', [])).toBe(1);
      expect(await rpc.call('b', [])).toBe(3);
    } finally {
      rpc.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
