import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { jsonRpcPoster } from './json-rpc-http.js';

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
