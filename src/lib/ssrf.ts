/**
 * Where webhooks may go. A tenant chooses its webhook URL and reads the start of the
 * target's answer in the delivery log, so on a shared installation a URL pointing inside
 * the operator's network would let a tenant read internal services (cloud metadata,
 * databases, admin pages). Private, loopback, link-local and every other special-purpose
 * address are therefore refused unless the operator allows them (WEBHOOK_ALLOW_PRIVATE_TARGETS,
 * on by default only for the embedded devnet).
 *
 * The rule is applied when a URL is saved (syntax, IP literals, reserved names, and the
 * addresses the name resolves to then) and again at every connection: the name is resolved,
 * every address is checked, and the connection goes to a checked address (the resolver
 * answer is handed to the socket), so DNS rebinding cannot slip a private address in after
 * the URL was accepted. Redirects are never followed (see the sender).
 */
import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup } from 'node:dns';
import { ValidationError } from './errors.js';

/** IPv4 special-purpose ranges (IANA registry, RFC 6890 and successors). */
const ipv4Blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", including 0.0.0.0 (unspecified)
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, including cloud metadata 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments (incl. 192.0.0.192 metadata on some clouds)
  ['192.0.2.0', 24], // documentation
  ['192.31.196.0', 24], // AS112
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['192.175.48.0', 24], // AS112 direct delegation
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255 broadcast
] as const) {
  ipv4Blocked.addSubnet(net, prefix, 'ipv4');
}

/**
 * IPv6: only global unicast (2000::/3) can be public at all, which already excludes
 * unspecified and loopback (::, ::1), IPv4-compatible (::/96), NAT64 (64:ff9b::/96,
 * 64:ff9b:1::/48), discard (100::/64), unique local (fc00::/7, e.g. fd00:ec2::254 metadata),
 * link-local (fe80::/10), site-local (fec0::/10) and multicast (ff00::/8). Inside 2000::/3
 * these are special-purpose or embed an IPv4 address the check could not see through.
 */
const ipv6BlockedInGlobal = new BlockList();
for (const [net, prefix] of [
  ['2001::', 23], // IETF protocol assignments, including Teredo 2001::/32 (embeds IPv4), benchmarking, ORCHID
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (embeds IPv4)
  ['3fff::', 20], // documentation
] as const) {
  ipv6BlockedInGlobal.addSubnet(net, prefix, 'ipv6');
}

/** The 16 bytes of an IPv6 address (as `isIP` accepts it, without a zone), or null. */
function ipv6Bytes(address: string): Uint8Array | null {
  let text = address;
  const bytes = new Uint8Array(16);
  // A trailing dotted quad (::ffff:1.2.3.4) stands for the last two groups.
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  if (halves.length === 1 ? head.length !== 8 : head.length + tail.length > 7) return null;
  const groups = [...head, ...new Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  for (const [i, g] of groups.entries()) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
    const v = parseInt(g, 16);
    bytes[i * 2] = v >> 8;
    bytes[i * 2 + 1] = v & 0xff;
  }
  return bytes;
}

/**
 * True for every address a webhook may not reach without the operator's consent: private,
 * loopback, link-local, unspecified, carrier-NAT, multicast, reserved, documentation and
 * the IPv6 forms that wrap any IPv4 address (mapped, compatible, NAT64, 6to4, Teredo).
 * Anything that is not an IP address at all is refused too.
 */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return ipv4Blocked.check(address, 'ipv4');
  if (family !== 6 || address.includes('%')) return true;
  const b = ipv6Bytes(address);
  if (!b) return true;
  // IPv4-mapped ::ffff:a.b.c.d: the socket reaches the IPv4 address, so judge that.
  if (b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) {
    return ipv4Blocked.check(`${b[12]}.${b[13]}.${b[14]}.${b[15]}`, 'ipv4');
  }
  if ((b[0]! & 0xe0) !== 0x20) return true; // outside 2000::/3
  return ipv6BlockedInGlobal.check(address, 'ipv6');
}

/**
 * Names that only ever mean something inside a network: localhost (RFC 6761), mDNS
 * `.local` (RFC 6762), `.home.arpa` (RFC 8375), `.internal` (ICANN, 2024) and single-label
 * names (completed by the resolver's search domains).
 */
function isLocalName(host: string): boolean {
  return (
    host === 'localhost' ||
    !host.includes('.') ||
    ['.localhost', '.local', '.internal', '.home.arpa', '.localdomain'].some((suffix) => host.endsWith(suffix))
  );
}

export type LookupAll = (
  hostname: string,
  callback: (err: NodeJS.ErrnoException | null, addresses: { address: string; family: number }[]) => void,
) => void;

export const systemLookupAll: LookupAll = (hostname, callback) => dnsLookup(hostname, { all: true }, callback);

export interface TargetPolicyOptions {
  /** The operator's WEBHOOK_ALLOW_PRIVATE_TARGETS; default false. */
  allowPrivate?: boolean;
  /** Resolves names at save and connect time (injectable: tests answer from a table). */
  resolveAll?: LookupAll;
  /** How long a save waits for DNS before leaving the check to connect time; default 3 s. */
  saveResolveTimeoutMs?: number;
}

const PRIVATE_MESSAGE = 'must not point to a private, loopback, link-local or other special-purpose address';

export class ForbiddenTargetError extends Error {
  constructor(host: string, literal = false) {
    // A resolved address is not named: the tenant would otherwise learn the operator's internal DNS.
    super(`refused: ${host} ${literal ? 'is' : 'resolves to'} a private, loopback, link-local or other special-purpose address`);
    this.name = 'ForbiddenTargetError';
  }
}

/** The WHATWG parser's hostname without the brackets of an IPv6 literal. */
const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * The installation's rule for webhook targets. One instance is shared by the wallet service
 * (save time) and the webhook sender (connect time).
 */
export class WebhookTargetPolicy {
  readonly allowPrivate: boolean;
  readonly #resolveAll: LookupAll;
  readonly #saveTimeoutMs: number;

  constructor(opts: TargetPolicyOptions = {}) {
    this.allowPrivate = opts.allowPrivate ?? false;
    this.#resolveAll = opts.resolveAll ?? systemLookupAll;
    this.#saveTimeoutMs = opts.saveResolveTimeoutMs ?? 3_000;
  }

  /**
   * The URL's own problem, without DNS, or null. Mainnet wallets deliver over HTTPS only
   * (a setting cannot change that). The WHATWG parser already turns decimal, octal and hex
   * IPv4 forms (http://2130706433/, http://0x7f000001/) into dotted quads.
   */
  problem(url: URL, network: string): string | null {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use http or https';
    if (url.username || url.password) return 'must not carry credentials';
    if (network === 'mainnet' && url.protocol !== 'https:') return 'must use HTTPS for a mainnet wallet';
    // `localhost.` is localhost to the resolver but slips past name checks: no trailing dots.
    if (url.hostname.endsWith('.')) return 'must not end the host name with a dot';
    if (this.allowPrivate) return null;
    const host = bareHost(url);
    if (isIP(host)) return isForbiddenAddress(host) ? PRIVATE_MESSAGE : null;
    if (isLocalName(host)) return 'must name a public host';
    return null;
  }

  /**
   * Save time: the URL's own rules, then the addresses its name resolves to now. A name
   * that does not resolve (yet) is accepted: every connection checks again.
   */
  async check(raw: string, network: string, field = 'webhookUrl'): Promise<URL> {
    const fail = (message: string) => new ValidationError(`${field} ${message}`, [{ field, message }]);
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw fail('is not a valid URL');
    }
    const problem = this.problem(url, network);
    if (problem) throw fail(problem);
    const host = bareHost(url);
    if (!this.allowPrivate && !isIP(host)) {
      const addresses = await this.#resolveForSave(host);
      if (addresses.some((a) => isForbiddenAddress(a.address))) throw fail(PRIVATE_MESSAGE);
    }
    return url;
  }

  #resolveForSave(host: string): Promise<{ address: string }[]> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve([]), this.#saveTimeoutMs);
      this.#resolveAll(host, (err, addresses) => {
        clearTimeout(timer);
        resolve(err ? [] : addresses);
      });
    });
  }

  /**
   * Connect time, before any byte is sent: the refusal for a URL, or null. IP literals
   * never reach `lookup`, so they are judged here; names are judged in `lookup`.
   */
  refusal(url: URL, network: string): string | null {
    const problem = this.problem(url, network);
    if (!problem) return null;
    return problem === PRIVATE_MESSAGE ? new ForbiddenTargetError(bareHost(url), true).message : `refused: the URL ${problem}`;
  }

  /**
   * The `lookup` for http.request. Every resolved address must be allowed (a name with one
   * public and one private record cannot be used to reach the private one), and the socket
   * connects to the addresses handed back here, the ones that were checked.
   */
  readonly lookup = (hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void): void => {
    this.#resolveAll(hostname, (err, addresses) => {
      if (err) return callback(err);
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} did not resolve`), { code: 'ENOTFOUND' }));
      if (!this.allowPrivate && addresses.some((a) => isForbiddenAddress(a.address))) {
        return callback(new ForbiddenTargetError(hostname));
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
}
