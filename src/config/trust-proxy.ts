/**
 * TRUST_PROXY: which reverse proxies may name the client (X-Forwarded-For, -Proto, -Host),
 * with Fastify's `trustProxy` semantics. Unset or false: none, the client is the socket's
 * peer. true: every hop (the left-most X-Forwarded-For address); only right when nothing
 * reaches the service except through a proxy that overwrites the header. A number n: the
 * n nearest hops are proxies. Otherwise a comma-separated list of proxy addresses or CIDR
 * ranges (`127.0.0.1,10.0.0.0/8`): hops from them are skipped, the first other one is the client.
 */
import { isIP } from 'node:net';

export type TrustProxy = boolean | number | string[];

/** The parsed value, or a message saying what is wrong with `raw`. */
export function parseTrustProxy(raw: string | undefined): TrustProxy | { problem: string } {
  const value = raw?.trim() ?? '';
  if (value === '' || /^(false|no)$/i.test(value)) return false;
  if (/^(true|yes)$/i.test(value)) return true;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return hops <= 100 ? (hops === 0 ? false : hops) : { problem: `must be at most 100 hops (got "${value}")` };
  }
  const entries = value.split(',').map((e) => e.trim());
  const bad = entries.find((e) => !isAddressOrRange(e));
  if (bad !== undefined) {
    return {
      problem: `must be true, false, a number of hops, or a comma-separated list of IP addresses or CIDR ranges (bad entry "${bad}")`,
    };
  }
  return entries;
}

function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}
