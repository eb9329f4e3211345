/**
 * One HTTP attempt of a webhook delivery. Only a 200 acknowledges; redirects are never
 * followed (a redirect is a failed attempt, and cannot lead to a private address); for
 * mainnet wallets every address the connection uses is checked at connect time.
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { ForbiddenTargetError, guardedLookup, isForbiddenAddress, systemLookupAll, type DeliveryPolicy } from '../../lib/ssrf.js';
import { ATTEMPT_TIMEOUT_MS } from './schedule.js';

export const RESPONSE_LOG_LIMIT = 1024;

export interface SendResult {
  statusCode: number | null;
  /** The receiver's response body, truncated to RESPONSE_LOG_LIMIT characters. */
  response: string | null;
  error: string | null;
  ok: boolean;
  durationMs: number;
}

export interface SenderOptions {
  /** Resolver used for the connect-time check (injectable so tests can simulate DNS). */
  resolveAll?: typeof systemLookupAll;
  timeoutMs?: number;
}

export class WebhookSender {
  readonly #agents: { http: http.Agent; https: https.Agent };
  readonly #lookupGuarded: ReturnType<typeof guardedLookup>;
  readonly #timeoutMs: number;

  constructor(opts: SenderOptions = {}) {
    // Keep-alive: a busy receiver is not paid a TCP (and TLS) handshake per delivery.
    this.#agents = {
      http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
      https: new https.Agent({ keepAlive: true, maxSockets: 64 }),
    };
    this.#lookupGuarded = guardedLookup(opts.resolveAll ?? systemLookupAll);
    this.#timeoutMs = opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  }

  send(url: string, body: string, headers: Record<string, string>, policy: DeliveryPolicy): Promise<SendResult> {
    const started = performance.now();
    const done = (r: Omit<SendResult, 'durationMs' | 'ok'>): SendResult => ({
      ...r,
      ok: r.statusCode === 200 && r.error === null,
      durationMs: Math.round(performance.now() - started),
    });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.resolve(done({ statusCode: null, response: null, error: 'invalid URL' }));
    }
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (policy === 'public') {
      if (target.protocol !== 'https:')
        return Promise.resolve(done({ statusCode: null, response: null, error: 'refused: mainnet webhooks must use HTTPS' }));
      // IP literals never reach `lookup`, so they are checked here.
      if (isIP(host) && isForbiddenAddress(host))
        return Promise.resolve(done({ statusCode: null, response: null, error: new ForbiddenTargetError(host, host).message }));
    }
    const secure = target.protocol === 'https:';
    return new Promise((resolve) => {
      let settled = false;
      const finish = (r: Omit<SendResult, 'durationMs' | 'ok'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(done(r));
      };
      const req = (secure ? https : http).request(
        target,
        {
          method: 'POST',
          agent: secure ? this.#agents.https : this.#agents.http,
          headers: {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'user-agent': 'stablecoin-wallet-service-webhooks/1.0',
            ...headers,
          },
          ...(policy === 'public' ? { lookup: this.#lookupGuarded as never } : {}),
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            if (text.length < RESPONSE_LOG_LIMIT) text += chunk;
          });
          res.on('end', () => {
            const statusCode = res.statusCode ?? null;
            const location = res.headers.location ? ` (redirect to ${res.headers.location} not followed)` : '';
            finish({
              statusCode,
              response: text.slice(0, RESPONSE_LOG_LIMIT),
              error: statusCode === 200 ? null : `receiver answered HTTP ${statusCode}${location}`,
            });
          });
          res.on('error', (err) =>
            finish({ statusCode: res.statusCode ?? null, response: text.slice(0, RESPONSE_LOG_LIMIT), error: err.message }),
          );
          // Fires after 'end' too (then ignored); alone it means the body was cut off.
          res.on('close', () =>
            finish({
              statusCode: res.statusCode ?? null,
              response: text.slice(0, RESPONSE_LOG_LIMIT),
              error: 'connection closed before the response ended',
            }),
          );
        },
      );
      const timer = setTimeout(() => {
        req.destroy(new Error(`no response within ${this.#timeoutMs / 1000} s`));
      }, this.#timeoutMs);
      req.on('error', (err) => finish({ statusCode: null, response: null, error: err.message }));
      req.end(body);
    });
  }

  close(): void {
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }
}
