/**
 * JSON-RPC over HTTP(S) for the balance reads' hot path (multicall-balances.ts): pooled
 * keep-alive node:http(s) connections, a timeout, one retry when a kept-alive connection
 * turns out closed. Cheaper per call than viem's fetch-based transport, which builds a
 * TimeoutError (stack capture) for every request and goes through web streams.
 */
import http from 'node:http';
import https from 'node:https';

export class RpcError extends Error {
  override readonly name = 'RpcError';
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
