/**
 * A TCP proxy in front of the service, whose connections a test can cut (a network
 * failure as a client sees it) while the service itself keeps running.
 */
import net from 'node:net';

export interface Proxy {
  url: string;
  /** Destroys every connection open through the proxy now. */
  cut(): void;
  /** Connections made through it so far. */
  connections(): number;
  close(): Promise<void>;
}

export async function startProxy(target: string): Promise<Proxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<net.Socket>();
  let made = 0;
  const server = net.createServer((client) => {
    made++;
    const upstream = net.connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    cut: () => {
      for (const s of open) s.destroy();
    },
    connections: () => made,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
