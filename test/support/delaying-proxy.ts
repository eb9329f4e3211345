/**
 * A TCP proxy to PostgreSQL that holds every byte the server sends for `lagMs` (a replica on a
 * slower network path: its answers and its change notifications come late), and counts the
 * bytes the client sent (a query is on its way once the count grows).
 */
import net from 'node:net';

export interface DelayingProxy {
  /** `target` (a database URL) with the proxy as its host. */
  url: string;
  /** Bytes the clients have sent the server so far. */
  sent(): number;
  close(): void;
}

export async function startDelayingProxy(target: string, lagMs: number): Promise<DelayingProxy> {
  const to = new URL(target);
  let sent = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(to.port), to.hostname);
    client.on('data', (d) => {
      sent += d.length;
      upstream.write(d);
    });
    upstream.on('data', (d) => setTimeout(() => client.writable && client.write(d), lagMs));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', () => setTimeout(end, lagMs)).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return { url: url.toString(), sent: () => sent, close: () => server.close() };
}
