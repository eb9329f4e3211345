/**
 * Where webhooks may go. Mainnet wallets deliver only over HTTPS to public addresses; the
 * check is made on the addresses the connection actually uses (so DNS rebinding cannot
 * slip a private address in after the URL was accepted), and redirects are never
 * followed. Testnet wallets may use local receivers, as the spec allows.
 */
import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup } from 'node:dns';
import { ValidationError } from './errors.js';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, including cloud metadata 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64: embeds an IPv4 address
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7], // unique local, including fd00:ec2::254 (metadata)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** True for loopback, private, link-local, metadata, multicast and reserved addresses. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
  return blocked.check(address, 'ipv6');
}

export type DeliveryPolicy = 'public' | 'local-allowed';

export function policyFor(network: string): DeliveryPolicy {
  return network === 'mainnet' ? 'public' : 'local-allowed';
}

/**
 * Validates a webhook URL when it is saved. The WHATWG parser already normalises decimal,
 * octal and hex IPv4 forms (http://2130706433/, http://0x7f000001/) to dotted quads, so
 * they are caught like 127.0.0.1.
 */
export function checkWebhookUrl(raw: string, policy: DeliveryPolicy, field = 'webhookUrl'): URL {
  const fail = (message: string) => new ValidationError(`${field} ${message}`, [{ field, message }]);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fail('is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw fail('must use http or https');
  if (url.username || url.password) throw fail('must not carry credentials');
  if (policy === 'local-allowed') return url;
  if (url.protocol !== 'https:') throw fail('must use HTTPS for a mainnet wallet');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && isForbiddenAddress(host)) throw fail('must not point to a private, loopback, link-local or metadata address');
  if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) {
    throw fail('must name a public host for a mainnet wallet');
  }
  return url;
}

export class ForbiddenTargetError extends Error {
  constructor(host: string, address: string) {
    super(`refused: ${host} resolves to ${address}, a private, loopback, link-local or metadata address`);
    this.name = 'ForbiddenTargetError';
  }
}

type LookupAll = (
  hostname: string,
  callback: (err: NodeJS.ErrnoException | null, addresses: { address: string; family: number }[]) => void,
) => void;

export const systemLookupAll: LookupAll = (hostname, callback) => dnsLookup(hostname, { all: true }, callback);

/**
 * A `lookup` for http.request that refuses forbidden addresses at connection time. Every
 * resolved address must be allowed, so a hostname with one public and one private record
 * cannot be used to reach the private one.
 */
export function guardedLookup(resolveAll: LookupAll = systemLookupAll) {
  return (hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void): void => {
    resolveAll(hostname, (err, addresses) => {
      if (err) return callback(err);
      const bad = addresses.find((a) => isForbiddenAddress(a.address));
      if (bad) return callback(new ForbiddenTargetError(hostname, bad.address));
      if (addresses.length === 0) return callback(new Error(`${hostname} did not resolve`));
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
}
