/**
 * One HTTP attempt of a webhook delivery. Only a 200 acknowledges; redirects are never
 * followed (a redirect is a failed attempt, and cannot lead to a private address). The
 * target policy (lib/ssrf.ts) is applied before any byte is sent: to the URL, and to every
 * address the name resolves to, the connection then going to a checked address.
 */
import http from 'node:http';
import https from 'node:https';
import { WebhookTargetPolicy, type LookupAll } from '../../lib/ssrf.js';
import { COMPAT_SIGNATURE_HEADER } from '../../lib/webhook-signature.js';
import { ATTEMPT_TIMEOUT_MS } from './schedule.js';

export const RESPONSE_LOG_LIMIT = 1024;

/**
 * Text of the answer (or error) as PostgreSQL can store it: no NUL (text columns refuse it)
 * and no lone UTF-16 surrogate (the 1 KiB cut can halve an emoji; json_to_recordset refuses
 * the escape), each replaced by U+FFFD. Otherwise the statement recording the outcome fails,
 * with every other outcome of its group: an acknowledged attempt is never recorded and is
 * made again.
 */
function storable(text: string | null): string | null {
  return text === null ? null : text.replace(/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/**
 * Where a redirect pointed, as the log shows it: origin and path, at most 200 characters. Its
 * query, fragment and credentials may carry the receiver's tokens, and a Location header may
 * be kilobytes long; the log keeps neither.
 */
export function redirectTarget(location: string, base: string): string {
  let target: URL;
  try {
    target = new URL(location, base);
  } catch {
    return 'an address that does not parse';
  }
  const shown = `${target.origin}${target.pathname}`;
  return shown.length > 200 ? `${shown.slice(0, 200)}...` : shown;
}

export interface SendResult {
  statusCode: number | null;
  /** The receiver's response body, truncated to RESPONSE_LOG_LIMIT characters. */
  response: string | null;
  error: string | null;
  ok: boolean;
  durationMs: number;
}

export interface SenderOptions {
  /** Resolver for save- and connect-time checks (injectable so tests can simulate DNS). */
  resolveAll?: LookupAll;
  timeoutMs?: number;
  /**
   * Repeat `x-service-signature` under `x-blockradar-signature` (WEBHOOK_COMPAT_SIGNATURE_HEADER,
   * default on), for receivers written for the described service.
   */
  compatSignatureHeader?: boolean;
}

export class WebhookSender {
  readonly #agents: { http: http.Agent; https: https.Agent };
  readonly #timeoutMs: number;
  readonly #compatHeader: boolean;

  constructor(
    private readonly targets: WebhookTargetPolicy,
    opts: SenderOptions = {},
  ) {
    // Keep-alive: a busy receiver is not paid a TCP (and TLS) handshake per delivery.
    this.#agents = {
      http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
      https: new https.Agent({ keepAlive: true, maxSockets: 64 }),
    };
    this.#timeoutMs = opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
    this.#compatHeader = opts.compatSignatureHeader ?? true;
  }

  /** `network` of the wallet: mainnet deliveries are HTTPS only. */
  send(url: string, body: string, headers: Record<string, string>, network: string): Promise<SendResult> {
    const started = performance.now();
    const done = (r: Omit<SendResult, 'durationMs' | 'ok'>): SendResult => ({
      ...r,
      response: storable(r.response),
      error: storable(r.error),
      ok: r.statusCode === 200 && r.error === null,
      durationMs: Math.round(performance.now() - started),
    });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.resolve(done({ statusCode: null, response: null, error: 'invalid URL' }));
    }
    // Saved URLs are checked again: the setting or the rules may have changed since.
    const refusal = this.targets.refusal(target, network);
    if (refusal) return Promise.resolve(done({ statusCode: null, response: null, error: refusal }));
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
            ...(this.#compatHeader && headers['x-service-signature'] ? { [COMPAT_SIGNATURE_HEADER]: headers['x-service-signature'] } : {}),
            ...headers,
          },
          // Names are resolved and checked here; IP literals were judged above.
          lookup: this.targets.lookup as never,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            if (text.length < RESPONSE_LOG_LIMIT) text += chunk;
          });
          res.on('end', () => {
            const statusCode = res.statusCode ?? null;
            const location = res.headers.location ? ` (redirect to ${redirectTarget(res.headers.location, url)} not followed)` : '';
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
