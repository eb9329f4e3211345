/**
 * The dashboard's HTTP plumbing: cookies, the loopback test for the Secure flag, form
 * bodies, safe redirects and security headers. Kept apart from the pages so each page
 * module is only about what it shows.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const PREFIX = '/dashboard';
export const SESSION_COOKIE = 'wallet_dashboard';
/** Double-submit token of the login form, which has no session yet. */
export const LOGIN_CSRF_COOKIE = 'wallet_dashboard_login';
/** A browser that signed in before: its sign-ins are not throttled by strangers' failures (service.ts). */
export const DEVICE_COOKIE = 'wallet_dashboard_device';

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!name || name in out) continue;
    try {
      out[name] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      /* a malformed cookie is ignored, as if absent */
    }
  }
  return out;
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/**
 * Secure unless the request came over loopback in plain HTTP (the embedded default on a
 * developer's machine). A TLS proxy on the same host says so with X-Forwarded-Proto;
 * honouring that header from anyone is safe because it can only add the flag.
 */
export function cookieIsSecure(req: FastifyRequest): boolean {
  const forwarded = req.headers['x-forwarded-proto'];
  const viaTls = typeof forwarded === 'string' && forwarded.split(',')[0]!.trim().toLowerCase() === 'https';
  return req.protocol === 'https' || viaTls || !isLoopback(req.socket.remoteAddress);
}

export function setCookie(reply: FastifyReply, req: FastifyRequest, name: string, value: string, maxAgeSeconds: number): void {
  const attrs = [`${name}=${encodeURIComponent(value)}`, `Path=${PREFIX}`, `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Strict'];
  if (cookieIsSecure(req)) attrs.push('Secure');
  const existing = reply.getHeader('set-cookie');
  const list = Array.isArray(existing) ? existing : existing ? [String(existing)] : [];
  void reply.header('set-cookie', [...list, attrs.join('; ')]);
}

export function clearCookie(reply: FastifyReply, req: FastifyRequest, name: string): void {
  setCookie(reply, req, name, '', 0);
}

export function safeEqual(a: string, b: string): boolean {
  // Typed as strings, but a body field is the client's: anything else is simply unequal.
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * A `next` target after login: only a dashboard path of ours, never another site. Printable
 * ASCII only (the sign-in redirect percent-encodes the URL it names): it becomes a Location
 * header, and Node refuses a header holding a control character or one above U+00FF, so
 * `?next=/dashboard/%E2%82%AC` made the sign-in a 500 that opened a session and lost its cookie.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string') return `${PREFIX}/wallets`;
  if (!next.startsWith(`${PREFIX}/`) || !/^[\x21-\x7e]+$/.test(next) || next.includes('\\') || next.includes('//'))
    return `${PREFIX}/wallets`;
  return next;
}

/** urlencoded form fields; the first value of a repeated field wins. */
export function parseForm(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(body)) if (!(k in out)) out[k] = v;
  return out;
}

/**
 * The posted form's string fields. The plugin parses only urlencoded bodies (all strings);
 * fields of any other type are dropped here too, so no handler ever reads a number, an
 * array or an object where it expects text, whatever parser a later change adds.
 */
export function formOf(req: FastifyRequest): Record<string, string> {
  const body = req.body;
  const out: Record<string, string> = {};
  if (!body || typeof body !== 'object' || Array.isArray(body)) return out;
  for (const [k, v] of Object.entries(body)) if (typeof v === 'string') out[k] = v;
  return out;
}

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join('; ');

export function sendPage(reply: FastifyReply, page: { value: string }, status = 200): FastifyReply {
  return (
    reply
      .status(status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', CSP)
      .header('x-frame-options', 'DENY')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      // Pages can show a freshly issued API key: never cache them.
      .header('cache-control', 'no-store')
      .send(`<!doctype html>\n${page.value}`)
  );
}

export function redirect(reply: FastifyReply, location: string): FastifyReply {
  return reply.status(303).header('location', location).header('cache-control', 'no-store').send();
}

/** The client's address as Fastify sees it (honours trustProxy when the operator sets it). */
export function clientIp(req: FastifyRequest): string {
  return req.ip || req.socket.remoteAddress || 'unknown';
}
