/**
 * The HTTP core every resource calls: URL and query building, the API key, an automatic
 * `Idempotency-Key` on every POST, timeouts, retries with backoff, and the service's error
 * body turned into ApiError. Runs on the global fetch of Node 20+ (or one you pass).
 */
import { randomUUID } from 'node:crypto';
import { ApiError, ConnectionError, TimeoutError, WalletSdkError, type FieldIssue } from '../errors.js';
import { SDK_VERSION } from '../version.js';
import type { Answer, CallArgs, OperationName } from './operations.js';

export interface ClientOptions {
  /** Where the service runs, e.g. `http://127.0.0.1:8080` (no `/v1`). */
  baseUrl: string;
  /** A wallet key (`sk_test_…`, `sk_live_…`) or a business key (`sk_biz_…`). */
  apiKey: string;
  /** Further attempts after a 429 or 503 (and after a broken connection, for requests safe to send twice). Default 2. */
  maxRetries?: number;
  /** Per attempt, in ms. Default 60,000. */
  timeoutMs?: number;
  /** Longest wait between attempts, in ms; a longer `Retry-After` is cut to it. Default 30,000. */
  maxRetryDelayMs?: number;
  /** Another fetch (a proxy agent, instrumentation). Default: the global one. */
  fetch?: typeof globalThis.fetch;
  /** Sent with every request. */
  headers?: Record<string, string>;
}

export interface RequestOptions {
  /** Sent as `Idempotency-Key` (POST only); by default a fresh UUID per call, the same on each retry of it. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
  headers?: Record<string, string>;
}

/**
 * POSTs the service answers once per Idempotency-Key (a second send returns the first
 * answer): only these are sent again after a connection broke mid-request. The others
 * might have been done already, so that error is left to the caller.
 */
const REPLAY_SAFE_POSTS: ReadonlySet<OperationName> = new Set<OperationName>([
  'POST /v1/wallets/{walletId}/withdraw',
  'POST /v1/wallets/{walletId}/addresses/{addressId}/withdraw',
  'POST /v1/wallets/{walletId}/withdraw/sign',
  'POST /v1/wallets/{walletId}/addresses/{addressId}/withdraw/sign',
]);

/**
 * POSTs that are reads with a body: they move nothing and change no state a client acts on
 * (a swap quote is stored only to be executed by its id), so they are sent again as GETs
 * are, whatever the 503 or a broken connection.
 */
const READ_POSTS: ReadonlySet<OperationName> = new Set<OperationName>([
  'POST /v1/wallets/{walletId}/withdraw/network-fee',
  'POST /v1/wallets/{walletId}/addresses/{addressId}/withdraw/network-fee',
  'POST /v1/wallets/{walletId}/contracts/read',
  'POST /v1/wallets/{walletId}/addresses/{addressId}/contracts/read',
  'POST /v1/wallets/{walletId}/contracts/network-fee',
  'POST /v1/wallets/{walletId}/addresses/{addressId}/contracts/network-fee',
  'POST /v1/wallets/{walletId}/salvage/network-fee',
  'POST /v1/wallets/{walletId}/swaps/quote',
  'POST /v1/wallets/{walletId}/addresses/{addressId}/swaps/quote',
]);

/**
 * The service's 503s that say nothing was written (the catalogue's CONCURRENT_UPDATE: rolled
 * back; CHAIN_UNAVAILABLE and AML_UNAVAILABLE: refused before anything was written): only
 * these are sent again for a POST the service does not answer once per Idempotency-Key. Any
 * other 503 may come after the request took effect: DATABASE_BUSY (a step committed before
 * the connections ran out), a code this version does not know, or a proxy's own 503 with no
 * service body (Envoy answers one when the service's connection closed before it answered,
 * e.g. a process that died after its COMMIT). A 429 is refused before anything is done.
 */
const WROTE_NOTHING: ReadonlySet<string> = new Set(['CONCURRENT_UPDATE', 'CHAIN_UNAVAILABLE', 'AML_UNAVAILABLE']);

const BASE_DELAY_MS = 500;

export class Transport {
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #fetch: typeof globalThis.fetch;
  readonly #opts: Required<Pick<ClientOptions, 'maxRetries' | 'timeoutMs' | 'maxRetryDelayMs'>> & { headers: Record<string, string> };

  constructor(opts: ClientOptions) {
    if (!opts.baseUrl) throw new TypeError('baseUrl is required');
    if (!opts.apiKey) throw new TypeError('apiKey is required');
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.#apiKey = opts.apiKey;
    const f = opts.fetch ?? globalThis.fetch;
    if (typeof f !== 'function') throw new TypeError('no fetch: use Node 20 or newer, or pass `fetch`');
    this.#fetch = f;
    this.#opts = {
      maxRetries: opts.maxRetries ?? 2,
      timeoutMs: opts.timeoutMs ?? 60_000,
      maxRetryDelayMs: opts.maxRetryDelayMs ?? 30_000,
      headers: opts.headers ?? {},
    };
  }

  /** Calls an operation and returns the whole envelope of its answer. */
  async call<K extends OperationName>(op: K, args: CallArgs<K>, opts: RequestOptions = {}): Promise<Answer<K>> {
    const [method, template] = op.split(' ') as [string, string];
    const path = fillPath(template, (args.path ?? {}) as Record<string, unknown>);
    const url = `${this.baseUrl}${path}${queryString((args.query ?? {}) as Record<string, unknown>)}`;
    const headers = mergeHeaders(this.headers(), opts.headers);
    let body: string | undefined;
    if (args.body !== undefined) {
      body = JSON.stringify(args.body);
      headers['content-type'] ??= 'application/json';
    }
    let key: string | undefined;
    if (method === 'POST') {
      // One key per call, the caller's when given (as the option, or as the header the HTTP
      // API documents): a second value beside it would be joined into one new key per call.
      const given = headers['idempotency-key'];
      if (opts.idempotencyKey !== undefined && given !== undefined && given !== opts.idempotencyKey)
        throw new TypeError('idempotencyKey and an Idempotency-Key header disagree: give one');
      key = opts.idempotencyKey ?? given ?? randomUUID();
      headers['idempotency-key'] = key;
    }
    const replaySafe = method === 'GET' || REPLAY_SAFE_POSTS.has(op) || READ_POSTS.has(op);
    try {
      const res = await this.send(method, url, { headers, ...(body === undefined ? {} : { body }) }, opts, replaySafe, path);
      return (await res.json()) as Answer<K>;
    } catch (err) {
      // The outcome of a POST that timed out or lost its connection is unknown: the key it was
      // sent with lets the caller send it again as the same request, or look it up.
      if (key !== undefined && err instanceof WalletSdkError) err.idempotencyKey = key;
      throw err;
    }
  }

  /** The headers of every request (streams use them too). */
  headers(): Record<string, string> {
    return mergeHeaders(
      { 'x-api-key': this.#apiKey, accept: 'application/json', 'user-agent': `stablecoin-wallet-sdk/${SDK_VERSION}` },
      this.#opts.headers,
    );
  }

  /**
   * Sends until an answer that is not retried: a 2xx is returned, an error status thrown as
   * ApiError. 429 and 503 are retried (the service did nothing: refused, or rolled back;
   * for a POST not answered once per key, only the 503s WROTE_NOTHING names), after
   * `Retry-After` when given, else exponential backoff with jitter.
   */
  async send(
    method: string,
    url: string,
    init: { headers: Record<string, string>; body?: string },
    opts: RequestOptions,
    replaySafe: boolean,
    path = new URL(url).pathname,
  ): Promise<Response> {
    const maxRetries = opts.maxRetries ?? this.#opts.maxRetries;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.#attempt(method, url, init, opts);
      } catch (err) {
        if (opts.signal?.aborted || !(err instanceof ConnectionError || err instanceof TimeoutError)) throw err;
        if (!replaySafe || attempt >= maxRetries) throw err;
        await sleep(this.#backoff(attempt, null), opts.signal);
        continue;
      }
      if (res.ok) return res;
      const error = await toApiError(res, method, path);
      if (!error.retryable || attempt >= maxRetries) throw error;
      // A 503 that may have come after a step of the request committed (WROTE_NOTHING): sent
      // again only where the service answers a repeat once (a read, a withdrawal by its key).
      if (!replaySafe && error.status === 503 && !WROTE_NOTHING.has(error.code)) throw error;
      await sleep(this.#backoff(attempt, error.retryAfter), opts.signal);
    }
  }

  /**
   * One GET whose body is read as it comes (a stream): the timeout covers the wait for the
   * answer's headers only; `signal` ends the whole request. Error statuses throw ApiError.
   */
  async open(path: string, query: Record<string, unknown>, headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
    const url = `${this.baseUrl}${path}${queryString(query)}`;
    const ctrl = new AbortController();
    const onAbort = () => ctrl.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctrl.abort();
    }, this.#opts.timeoutMs);
    let res: Response;
    try {
      res = await this.#fetch(url, {
        method: 'GET',
        headers: mergeHeaders(this.headers(), headers),
        signal: ctrl.signal,
        redirect: 'manual',
      });
    } catch (err) {
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted) throw signal.reason ?? err;
      if (timedOut) throw new TimeoutError(`GET ${url}: no answer within ${this.#opts.timeoutMs} ms`, { cause: err });
      throw new ConnectionError(`GET ${url}: ${(err as Error).message}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
    if (!res.ok) {
      signal.removeEventListener('abort', onAbort);
      throw await toApiError(res, 'GET', path);
    }
    return res;
  }

  async #attempt(
    method: string,
    url: string,
    init: { headers: Record<string, string>; body?: string },
    opts: RequestOptions,
  ): Promise<Response> {
    const timeoutMs = opts.timeoutMs ?? this.#opts.timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    try {
      // Never followed (toApiError reports it): fetch drops only the standard credential headers
      // on the way to another origin, so x-api-key (and a 307's body) would go wherever the
      // Location points.
      return await this.#fetch(url, {
        method,
        headers: init.headers,
        ...(init.body === undefined ? {} : { body: init.body }),
        signal,
        redirect: 'manual',
      });
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason ?? err;
      if (timeout.aborted) throw new TimeoutError(`${method} ${url}: no answer within ${timeoutMs} ms`, { cause: err });
      throw new ConnectionError(`${method} ${url}: ${(err as Error).message}`, { cause: err });
    }
  }

  #backoff(attempt: number, retryAfterS: number | null): number {
    return backoff(attempt, retryAfterS, this.#opts.maxRetryDelayMs);
  }
}

/** `Retry-After` when given (capped), else exponential backoff with jitter from 0.5 s. */
export function backoff(attempt: number, retryAfterS: number | null, maxMs: number): number {
  if (retryAfterS !== null) return Math.min(retryAfterS * 1000, maxMs);
  const ceiling = Math.min(BASE_DELAY_MS * 2 ** attempt, maxMs);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/**
 * Header sets merged by name without case (HTTP's rule), the later set winning: records with
 * `Idempotency-Key` and `idempotency-key` would otherwise both be sent, joined into one value.
 */
export function mergeHeaders(...sets: (Record<string, string> | undefined)[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const set of sets) if (set) for (const [name, value] of Object.entries(set)) out[name.toLowerCase()] = value;
  return out;
}

function fillPath(template: string, params: Record<string, unknown>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === null || value === '') throw new TypeError(`missing path parameter ${name}`);
    // encodeURIComponent leaves dots alone, and the URL parser drops a `.` segment and a `..`
    // one with the segment before it: `addresses/../withdraw` would be the master's withdrawal.
    // No id is either, so a parameter never chooses the route.
    if (value === '.' || value === '..') throw new TypeError(`path parameter ${name} may not be ${JSON.stringify(value)}`);
    return encodeURIComponent(String(value));
  });
}

function queryString(query: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    q.set(k, Array.isArray(v) ? v.join(',') : String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

async function toApiError(res: Response, method: string, path: string): Promise<ApiError> {
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel().catch(() => undefined);
    const location = res.headers.get('location');
    return new ApiError({
      status: res.status,
      code: `HTTP_${res.status}`,
      message: `the service answered a redirect${location ? ` to ${location}` : ''}; it is not followed (the API key would go along): set baseUrl to the service's own URL`,
      requestId: res.headers.get('x-request-id'),
      details: [],
      retryAfter: null,
      method,
      path,
    });
  }
  const text = await res.text().catch(() => '');
  let body: { error?: unknown; message?: unknown; details?: unknown; requestId?: unknown } = {};
  try {
    body = text ? (JSON.parse(text) as typeof body) : {};
  } catch {
    /* not the service's error body (a proxy's page): keep the status */
  }
  return new ApiError({
    status: res.status,
    code: typeof body.error === 'string' ? body.error : `HTTP_${res.status}`,
    message: typeof body.message === 'string' ? body.message : text.slice(0, 200) || res.statusText,
    requestId: typeof body.requestId === 'string' ? body.requestId : res.headers.get('x-request-id'),
    details: Array.isArray(body.details) ? (body.details as FieldIssue[]) : [],
    retryAfter: parseRetryAfter(res.headers.get('retry-after')),
    method,
    path,
  });
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
