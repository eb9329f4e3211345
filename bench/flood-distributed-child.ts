/**
 * Forked by auth-flood.ts: a random-key flood from many source addresses (issue 24, item 2).
 * Every request opens a new connection whose socket is bound to the next loopback address
 * (127.10.0.1, 127.10.0.2, …; Linux routes all of 127/8 to the loopback interface), so the
 * server sees a new client address per request and no per-address limit ever applies, as
 * with a botnet. Each request carries a fresh, well-formed random key (`sk_test_` and 43
 * base64url characters), so it passes any check of the key's shape.
 *
 * Open loop: requests are sent at `rate` per second whatever the answers take (a closed
 * loop would slow down as soon as the server holds refusals, and measure less flood than
 * was asked for). At most `maxOutstanding` are in flight; requests beyond are counted as
 * `skipped` (offered, never sent). Runs until the parent sends 'stop'.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';

interface Job {
  url: string;
  rate: number;
  maxOutstanding: number;
}

export interface DistributedFloodResult {
  durationS: number;
  sent: number;
  answered: number;
  skipped: number;
  errors: number;
  statusCodes: Record<string, number>;
  /** Distinct source addresses used. */
  sources: number;
}

/** The n-th source address: 127.10.0.1 onwards, skipping .0 and .255 in the last two bytes. */
function source(n: number): string {
  const c = (n % 254) + 1;
  const b = Math.floor(n / 254) % 254;
  const a = 10 + (Math.floor(n / (254 * 254)) % 240);
  return `127.${a}.${b}.${c}`;
}

process.once('message', (job: Job) => {
  const target = new URL(job.url);
  const started = Date.now();
  const result: DistributedFloodResult = { durationS: 0, sent: 0, answered: 0, skipped: 0, errors: 0, statusCodes: {}, sources: 0 };
  let outstanding = 0;
  let offered = 0;

  const fire = () => {
    const localAddress = source(result.sent);
    result.sent++;
    outstanding++;
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: 'GET',
        localAddress,
        // A new connection per request (Connection: close), as each bot would open.
        agent: false,
        headers: { 'x-api-key': `sk_test_${randomBytes(32).toString('base64url')}` },
        timeout: 10_000,
      },
      (res) => {
        res.resume();
        res.once('end', () => {
          result.answered++;
          result.statusCodes[String(res.statusCode)] = (result.statusCodes[String(res.statusCode)] ?? 0) + 1;
          outstanding--;
        });
      },
    );
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', () => {
      result.errors++;
      outstanding--;
    });
    req.end();
  };

  const timer = setInterval(() => {
    const due = Math.floor(((Date.now() - started) / 1000) * job.rate);
    while (offered < due) {
      offered++;
      if (outstanding >= job.maxOutstanding) result.skipped++;
      else fire();
    }
  }, 5);

  process.once('message', () => {
    clearInterval(timer);
    result.durationS = (Date.now() - started) / 1000;
    result.sources = Math.min(result.sent, 254 * 254 * 240);
    // Answers still in flight are not waited for: the figure is what was sent and answered meanwhile.
    process.send?.({ result }, () => process.exit(0));
  });
});
