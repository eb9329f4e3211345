/**
 * Forked by auth-flood.ts: an autocannon load whose connections leave from another
 * loopback address (`localAddress`, e.g. 127.0.0.2), so the server sees a second client.
 * autocannon has no such option; its client opens sockets with `net.connect(port, host)`,
 * which this process alone redirects. Runs until the parent sends 'stop'.
 */
import net from 'node:net';
import autocannon, { type Options } from 'autocannon';

process.once('message', (msg: { opts: Options; localAddress: string }) => {
  const connect = net.connect;
  (net as unknown as { connect: unknown }).connect = (...args: unknown[]) =>
    typeof args[0] === 'number'
      ? connect({ port: args[0], host: args[1] as string, localAddress: msg.localAddress })
      : (connect as (...a: unknown[]) => net.Socket)(...args);
  const run = autocannon(msg.opts);
  process.once('message', () => run.stop());
  run.then(
    (result) => process.send?.({ result }, () => process.exit(0)),
    (err: Error) => process.send?.({ error: err.message }, () => process.exit(1)),
  );
});
