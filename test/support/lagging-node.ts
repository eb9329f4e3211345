/**
 * A load balancer in front of a chain node (the stand-in) with a second backend that lags:
 * the requests `lagging` answers (a JSON body) are served by the lagging backend, the rest
 * are forwarded to the node. Tests model the lagging backend's answers on the real node's
 * rules (what a node frozen at an earlier block or slot says), so that code which ties two
 * reads together can be shown not to conclude from one that a lagging node answered.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LaggingBalancer {
  url: string;
  close(): Promise<void>;
}

/** `lagging(path, body)`: the lagging backend's answer to this request, or undefined to forward it. */
export async function startLaggingBalancer(
  target: string,
  lagging: (path: string, body: Record<string, unknown>) => Promise<unknown> | unknown,
): Promise<LaggingBalancer> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      void (async () => {
        const answer = await lagging(path, text ? (JSON.parse(text) as Record<string, unknown>) : {});
        if (answer !== undefined) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
          return;
        }
        const r = await fetch(`${target}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
        res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text());
      })().catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
