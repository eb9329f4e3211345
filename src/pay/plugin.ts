/**
 * The payer's page at /pay/<slug> (docs/checkout.md): choose a network and coin, get a
 * session with its own address, pay by QR code or by copying, watch the status live. No API
 * key, no cookie: the slug and the session id are what a payer holds. Strict CSP, nothing
 * from another origin; the QR code is an SVG drawn here (qr, server-side).
 */
import { readFileSync } from 'node:fs';
import encodeQR from 'qr';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, RateLimitedError, ValidationError } from '../lib/errors.js';
import { formatAmount } from '../lib/money.js';
import { UUID_PATTERN } from '../lib/ids.js';
import { CreateCheckoutBody } from '../modules/checkouts/schemas.js';
import { dueOf, isHttpUrl, owing, paymentUri, type CheckoutRow, type LinkRow, type PublicLink } from '../modules/checkouts/service.js';
import type { Services } from '../services.js';
import { check } from '../dashboard/validate.js';
import { parseForm } from '../dashboard/web.js';
import { LiveCheckouts } from './live.js';
import {
  chooserPage,
  errorPage,
  inactivePage,
  notFoundPage,
  PREFIX,
  requestErrorPage,
  sessionPage,
  statusText,
  successText,
  type Choice,
} from './views.js';
import { SessionLimiter, clientOf } from './limit.js';

const ASSETS: Record<string, { type: string; body: Buffer }> = {
  'pay.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('./assets/pay.css', import.meta.url)) },
  'pay.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./assets/pay.js', import.meta.url)) },
};

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const UUID = new RegExp(UUID_PATTERN);
const SLUG = /^[A-Za-z0-9-]{1,250}$/;

function send(reply: FastifyReply, page: { value: string }, status = 200): FastifyReply {
  return reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', CSP)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .send(`<!doctype html>\n${page.value}`);
}

const params = (req: FastifyRequest) => req.params as { slug: string; id?: string };
const query = (req: FastifyRequest) => (req.query ?? {}) as Record<string, string | undefined>;

/**
 * The posted form's fields. A web form (parseForm) gives text only, but the route also takes
 * what Fastify parses by itself (JSON, plain text), where a field may be a number, an object
 * or absent: anything but named text fields is refused (400) before a value is used as text.
 */
function form(req: FastifyRequest): Record<string, string> {
  const body: unknown = req.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw new ValidationError('The form must be a set of named text fields', [{ field: 'body', message: 'must be a form' }]);
  for (const [k, v] of Object.entries(body))
    if (typeof v !== 'string') throw new ValidationError(`${k} must be text`, [{ field: k, message: 'must be a string' }]);
  return body as Record<string, string>;
}

/** What the payer is told when the request itself is refused (Fastify's own messages name parsers and headers). */
function clientMessage(err: Error, status: number): string {
  if (err instanceof AppError) return err.message;
  if (status === 413) return 'The form sent is too large.';
  if (status === 415) return 'The form was sent in a format this page does not read.';
  return 'The form sent could not be read.';
}
const text = (v: unknown, max: number) => (typeof v === 'string' && v.trim() !== '' && v.length <= max ? v.trim() : undefined);

/**
 * Live-status streams one client may hold open (a payer has a tab or two; payers behind one
 * carrier NAT share an address), and this process in all. Refused, the page reloads itself
 * now and then instead (assets/pay.js).
 */
const STREAMS_PER_CLIENT = 20;
const STREAMS_PER_PROCESS = 5_000;

export async function payPlugin(
  app: FastifyInstance,
  opts: { services: Services; statusOf: (err: AppError) => number; sessionsPerIp?: number },
): Promise<void> {
  const { checkouts, catalogue, clock } = opts.services;
  const live = new LiveCheckouts(checkouts, (err) => app.log.error({ err }, 'live checkout status failed'));
  const limiter = new SessionLimiter(opts.sessionsPerIp ?? 30, 10 * 60_000);
  const streams = new Set<() => void>();
  /** Open live-status streams per client (clientOf), this process. */
  const openStreams = new Map<string, number>();
  app.addHook('onClose', async () => {
    for (const end of [...streams]) end();
    live.stop();
  });
  app.addHook('onRoute', (route) => {
    route.schema = { ...(route.schema ?? {}), hide: true };
  });
  // Plain text names no fields: 415 here (this plugin's own parsers only), as for any other type.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_req, body, done) =>
    done(null, parseForm(body as string)),
  );
  app.setNotFoundHandler((_req, reply) => send(reply, notFoundPage(), 404));
  // A client's mistake (bad text in the query or form, a body of the wrong type, malformed or
  // too large) keeps its 4xx status and says what was wrong; only our own faults are the 500 page.
  app.setErrorHandler((err: FastifyError | Error, req, reply) => {
    if (err instanceof AppError && err.code === 'NOT_FOUND') return send(reply, notFoundPage(), 404);
    const fastifyStatus = (err as FastifyError).statusCode;
    const status = err instanceof AppError ? opts.statusOf(err) : typeof fastifyStatus === 'number' ? fastifyStatus : 500;
    if (status >= 400 && status < 500) return send(reply, requestErrorPage(clientMessage(err, status)), status);
    req.log.error({ err }, 'payment page failed');
    return send(reply, errorPage(), 500);
  });

  app.get('/assets/:name', async (req, reply) => {
    // Own entries only: a name like `constructor` or `__proto__` is an object's, not a file.
    const { name } = req.params as { name: string };
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset) return send(reply, notFoundPage(), 404);
    return reply
      .header('content-type', asset.type)
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff')
      .send(asset.body);
  });

  /** The link of a slug, or the plain 404 page. */
  async function linkOf(req: FastifyRequest, reply: FastifyReply): Promise<PublicLink | null> {
    const { slug } = params(req);
    const found = SLUG.test(slug) ? await checkouts.publicLink(slug) : null;
    if (!found) void send(reply, notFoundPage(), 404);
    return found;
  }

  function choices(found: PublicLink): Choice[] {
    return found.accepts.flatMap((a) => {
      const asset = catalogue.asset(a.asset_id);
      if (!asset) return [];
      return [
        {
          value: `${a.wallet_id}:${a.asset_id}`,
          symbol: asset.row.symbol,
          chain: asset.chain.config.blockchain.name,
        },
      ];
    });
  }

  /**
   * What the URL's query may fill in (as the described service does). A redirect: only one
   * the URL parser reads (the session page builds the redirect with it), and only to the
   * link's own site when it has one; a link without one takes any http(s) URL from the payer
   * (docs/checkout.md says so: the payer chooses where their own browser goes afterwards).
   */
  function prefill(link: LinkRow, q: Record<string, string | undefined>) {
    const redirect = normalUrl(text(q.redirectUrl, 2048));
    const allowed = redirect && (!link.redirect_url || sameOrigin(redirect, link.redirect_url));
    return {
      ...(link.amount === null && text(q.amount, 40) ? { amount: text(q.amount, 40)! } : {}),
      ...(text(q.name, 200) ? { name: text(q.name, 200)! } : {}),
      ...(text(q.email, 254) ? { email: text(q.email, 254)! } : {}),
      ...(text(q.reference, 200) ? { reference: text(q.reference, 200)! } : {}),
      ...(allowed ? { redirectUrl: redirect } : {}),
    };
  }

  app.get('/:slug', async (req, reply) => {
    const found = await linkOf(req, reply);
    if (!found) return reply;
    const { slug } = params(req);
    if (!found.open) return send(reply, inactivePage(found.link, slug));
    return send(
      reply,
      chooserPage(found.link, slug, { choices: choices(found), amount: found.link.amount, prefill: prefill(found.link, query(req)) }),
    );
  });

  app.post('/:slug', async (req, reply) => {
    const found = await linkOf(req, reply);
    if (!found) return reply;
    const { slug } = params(req);
    if (!found.open) return send(reply, inactivePage(found.link, slug));
    const f = form(req);
    const [walletId, assetId] = (f.choice ?? '').split(':');
    const chosen = prefill(found.link, f);
    try {
      if (!limiter.take(clientOf(req.ip || 'unknown')))
        throw new RateLimitedError('RATE_LIMITED', 'Too many payment sessions from your address; wait a few minutes.', 600);
      const input = check(
        CreateCheckoutBody,
        {
          ...(walletId && UUID.test(walletId) ? { walletId } : {}),
          ...(assetId ? { asset: assetId } : {}),
          ...chosen,
        },
        'body',
      );
      const row = await checkouts.startFromPage(slug, input);
      return reply.status(303).header('location', `${PREFIX}/${slug}/${row.id}`).header('cache-control', 'no-store').send();
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'NOT_FOUND' || opts.statusOf(err) >= 500) throw err;
      const status = opts.statusOf(err);
      return send(
        reply,
        chooserPage(found.link, slug, { choices: choices(found), amount: found.link.amount, prefill: chosen, error: err.message }),
        status,
      );
    }
  });

  app.get('/:slug/image', async (req, reply) => {
    const found = await linkOf(req, reply);
    if (!found) return reply;
    const image = await checkouts.image(found.link.id);
    if (!image) return send(reply, notFoundPage(), 404);
    return reply
      .header('content-type', image.image_type)
      .header('content-security-policy', "default-src 'none'")
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'public, max-age=60')
      .send(image.image);
  });

  /** A session of the slug's link, or the plain 404 page. */
  async function sessionOf(req: FastifyRequest, reply: FastifyReply) {
    const { slug, id } = params(req);
    const found = SLUG.test(slug) && id && UUID.test(id) ? await checkouts.publicCheckout(slug, id) : null;
    if (!found) void send(reply, notFoundPage(), 404);
    return found;
  }

  function describe(row: CheckoutRow) {
    const asset = catalogue.asset(row.asset_id)!;
    const d = asset.row.decimals;
    return {
      asset,
      amount: formatAmount(BigInt(row.amount), d),
      amountDue: formatAmount(dueOf(row), d),
      // The instructions (address, amount, QR code) while something is due; hidden once the
      // full amount is seen, even before it is confirmed (else they ask for it again).
      owing: owing(row),
      amountPaid: formatAmount(BigInt(row.seen_in_time) + BigInt(row.seen_late), d),
    };
  }

  /** Where a settled session sends the payer: its own redirect, else the link's, with the session named. */
  function redirectOf(link: LinkRow, row: CheckoutRow): string | null {
    // Creation checks both now; one stored before that check, which no parser reads, means no
    // redirect (the success message instead) rather than a 500 on every page of the session.
    const target = [row.redirect_url, link.redirect_url].find((u): u is string => !!u && isHttpUrl(u));
    if (!target) return null;
    const url = new URL(target);
    url.searchParams.set('checkoutId', row.id);
    url.searchParams.set('status', row.status);
    if (row.reference) url.searchParams.set('reference', row.reference);
    return url.toString();
  }

  app.get('/:slug/:id', async (req, reply) => {
    const found = await sessionOf(req, reply);
    if (!found) return reply;
    const { link, row } = found;
    const d = describe(row);
    return send(
      reply,
      sessionPage({
        // The link's slug now (the page may be read under one it was renamed away from).
        slug: link.slug,
        link,
        row,
        symbol: d.asset.row.symbol,
        chain: d.asset.chain.config.blockchain.name,
        amount: d.amount,
        amountDue: d.amountDue,
        amountPaid: d.amountPaid,
        owing: d.owing,
        paymentUri: paymentUri(d.asset, row),
        remainingMs: Math.max(0, row.expires_at.getTime() - clock.now().getTime()),
        // Like the success message, the merchant's redirect only once the session settled.
        redirect: row.status === 'settled' ? redirectOf(link, row) : null,
      }),
    );
  });

  app.get('/:slug/:id/qr.svg', async (req, reply) => {
    const found = await sessionOf(req, reply);
    if (!found) return reply;
    // Nothing due (paid in full, expired, closed): no code to pay with. The page hides it and
    // tells the payer not to send more; an image saved or still open must not go on asking.
    if (!owing(found.row)) return send(reply, notFoundPage(), 404);
    const asset = catalogue.asset(found.row.asset_id)!;
    const uri = paymentUri(asset, found.row) ?? found.row.address;
    return reply
      .header('content-type', 'image/svg+xml')
      .header('content-security-policy', "default-src 'none'")
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'no-store')
      .send(encodeQR(uri, 'svg', { ecc: 'medium', border: 4 }).replace('<svg ', '<svg shape-rendering="crispEdges" '));
  });

  // Live status: one event per change of the session (and the first at once).
  app.get('/:slug/:id/events', async (req, reply) => {
    const found = await sessionOf(req, reply);
    if (!found) return reply;
    const { link } = found;
    // A client that hung up while the session was read sent its 'close' already: a stream
    // started now would never end (its slot, timer and watcher kept for good).
    if (req.raw.destroyed || req.raw.socket.destroyed) return reply;
    // HEAD: the stream's headers, no stream (Node holds a HEAD's headers back until an end a
    // stream never reaches: the client hung, holding a stream slot).
    if (req.method === 'HEAD') {
      return reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-store').send();
    }
    // Each stream holds a socket and a listener until the client leaves: one client (or all
    // of them, on this open page) may only hold so many.
    const client = clientOf(req.ip || 'unknown');
    const held = openStreams.get(client) ?? 0;
    if (held >= STREAMS_PER_CLIENT || streams.size >= STREAMS_PER_PROCESS) {
      return reply
        .status(429)
        .header('retry-after', '30')
        .header('cache-control', 'no-store')
        .type('text/plain')
        .send('Too many open status streams.');
    }
    openStreams.set(client, held + 1);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      connection: 'keep-alive',
    });
    const write = (row: CheckoutRow) => {
      const d = describe(row);
      const s = statusText(row);
      const data = {
        status: row.status,
        state: s.key,
        text: s.text,
        partial: row.partial,
        overpaid: row.overpaid,
        paidLate: row.paid_late,
        amountDue: d.amountDue,
        amountPaid: d.amountPaid,
        owing: d.owing,
        redirect: row.status === 'settled' ? redirectOf(link, row) : null,
        message: row.status === 'settled' ? successText(link) : null,
      };
      res.write(`event: status\ndata: ${JSON.stringify(data)}\n\n`);
    };
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
    let unwatch: () => void = () => undefined;
    const end = () => {
      if (!streams.delete(end)) return; // ended already (the client left, then the server closed)
      clearInterval(heartbeat);
      unwatch();
      const left = (openStreams.get(client) ?? 1) - 1;
      if (left > 0) openStreams.set(client, left);
      else openStreams.delete(client);
      res.end();
    };
    streams.add(end);
    req.raw.on('close', end);
    write(found.row);
    unwatch = live.watch(found.row.id, write);
    return reply;
  });
}

/**
 * A URL as the parser writes it (`HTTPS://shop/a b` -> `https://shop/a%20b`), when it is an
 * http(s) one the session's own check takes (CreateCheckoutBody's redirectUrl): the form
 * carries it in a hidden field, and a value the check refused would fail every submission
 * of the page. Anything else is dropped (undefined).
 */
function normalUrl(value: string | undefined): string | undefined {
  if (!value || !isHttpUrl(value)) return undefined;
  const href = new URL(value).href;
  return href.length <= 2048 && /^https?:\/\/\S+$/.test(href) ? href : undefined;
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}
