import { isIPv6 } from 'node:net';

/**
 * How many sessions one client may start in a window: each session issues a child address,
 * so an open page must not let one client issue them without end. A fixed window per client
 * (clientOf: an IPv4 address, or an IPv6 /64), in this process's memory (bounded: the oldest
 * clients go first; each replica counts its own).
 */
export class SessionLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly perWindow: number,
    private readonly windowMs: number,
    private readonly maxClients = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one session for `client`; false when its window is used up. */
  take(client: string): boolean {
    if (this.perWindow <= 0) return true;
    const t = this.now();
    let w = this.#windows.get(client);
    if (!w || t - w.start >= this.windowMs) {
      this.#windows.delete(client);
      if (this.#windows.size >= this.maxClients) this.#windows.delete(this.#windows.keys().next().value!);
      this.#windows.set(client, (w = { start: t, count: 0 }));
    }
    if (w.count >= this.perWindow) return false;
    w.count++;
    return true;
  }
}

/**
 * The client a request counts for: an IPv4 address as it is (also when IPv4-mapped, ::ffff:a.b.c.d),
 * an IPv6 address by its /64. One subscriber is routinely given a whole /64, so counting
 * each IPv6 address alone would let one client start sessions without end.
 */
export function clientOf(ip: string): string {
  const bare = ip.replace(/%.*$/, ''); // a zone id (fe80::1%eth0) names the interface, not the client
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  if (mapped) return mapped[1]!;
  if (!isIPv6(bare)) return bare;
  const [head, tail] = bare.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  // A trailing embedded IPv4 (::1.2.3.4) takes two groups; only the first four matter here.
  const width = right.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - width).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => (g.includes('.') ? g : parseInt(g, 16).toString(16)))
    .join(':')}::/64`;
}
