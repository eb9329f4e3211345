/**
 * A load balancer in front of a chain node (the stand-in) with a second backend that answers
 * some requests otherwise: the requests `other` answers (a JSON body) are served by it, the
 * rest are forwarded to the node. Tests model that backend's answers on the real node's rules:
 * a node frozen at an earlier block or slot (so that code which ties two reads together can be
 * shown not to conclude from one a lagging node answered), or one configured otherwise.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Balancer {
  url: string;
  close(): Promise<void>;
}

/** `other(path, body)`: the second backend's answer to this request, or undefined to forward it to the node. */
export async function startBalancer(
  target: string,
  other: (path: string, body: Record<string, unknown>) => Promise<unknown> | unknown,
): Promise<Balancer> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      void (async () => {
        const answer = await other(path, text ? (JSON.parse(text) as Record<string, unknown>) : {});
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
