/**
 * A TCP proxy to PostgreSQL that holds every byte the server sends for `lagMs` (a replica on a
 * slower network path: its answers and its change notifications come late), and counts the
 * bytes the client sent (a query is on its way once the count grows). The lag can be changed
 * at any time (`setLag`): a test sets its world up at full speed, then slows the path down.
 */
import net from 'node:net';

export interface DelayingProxy {
  /** `target` (a database URL) with the proxy as its host. */
  url: string;
  /** Bytes the clients have sent the server so far. */
  sent(): number;
  /** From now on, what the server sends is held `lagMs`; bytes keep their order whatever the change. */
  setLag(lagMs: number): void;
  close(): void;
}

export async function startDelayingProxy(target: string, lagMs: number): Promise<DelayingProxy> {
  const to = new URL(target);
  let sent = 0;
  let lag = lagMs;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(to.port), to.hostname);
    // When each chunk is due: never before the previous one, so a shorter lag set while bytes
    // are held cannot overtake them (a PostgreSQL stream out of order is garbage).
    let lastDue = 0;
    const later = (fn: () => void) => {
      lastDue = Math.max(Date.now() + lag, lastDue);
      setTimeout(fn, lastDue - Date.now());
    };
    client.on('data', (d) => {
      sent += d.length;
      upstream.write(d);
    });
    upstream.on('data', (d) => later(() => client.writable && client.write(d)));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', () => later(end)).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    url: url.toString(),
    sent: () => sent,
    setLag: (ms) => {
      lag = ms;
    },
    close: () => server.close(),
  };
}
