/**
 * Receiver kit: verify a webhook from the wallet service in your own receiver.
 *
 *   import { verifyWebhook } from '@stablecoin-wallet/sdk/webhooks';
 *   const { event, data } = verifyWebhook({ body: rawBody, headers: req.headers, secret: process.env.WEBHOOK_SECRET });
 *
 * Pass the raw body exactly as received (a Buffer, Uint8Array or ArrayBuffer is hashed as
 * bytes; a string as its UTF-8 bytes), never re-serialised JSON. Checked, in order: the
 * headers are present; `webhook-timestamp` is at most `toleranceSeconds` old and at most
 * `futureToleranceSeconds` ahead; the signatures; and that this attempt (its `webhook-id`
 * and `webhook-timestamp`) was not accepted before (replay guard). Throws
 * WebhookVerificationError otherwise.
 */
import { COMPAT_SIGNATURE_HEADER, parseWebhookSecret, safeEqual, serviceSignature, standardSignature } from './signature.js';
import { MemoryReplayStore, type ReplayStore, type SyncReplayStore } from './replay.js';

export { MemoryReplayStore, type ReplayStore, type SyncReplayStore } from './replay.js';

export type VerificationFailure = 'header' | 'timestamp' | 'signature' | 'replay' | 'body';

export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: VerificationFailure,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** Default past window (Standard Webhooks' 5 minutes). */
export const DEFAULT_TOLERANCE_SECONDS = 300;
/** Default future window: clock skew only; the service stamps each attempt when it starts. */
export const DEFAULT_FUTURE_TOLERANCE_SECONDS = 60;

/** The store used when `replay` is not given: one per process. */
export const defaultReplayStore = new MemoryReplayStore();

export interface VerifyOptions<S extends ReplayStore = SyncReplayStore> {
  /** The raw request body. */
  body: string | Uint8Array | ArrayBuffer;
  /** Request headers (any letter case; Node's IncomingHttpHeaders, a plain object or Headers). */
  headers: Record<string, string | string[] | undefined> | Headers;
  /**
   * The wallet's webhook signing secret (`whsec_…`), or several while you move from one to
   * the next: `webhook-signature` must carry a signature made with one of them.
   */
  secret?: string | string[];
  /**
   * The wallet's API key: `x-service-signature` must match (or `x-blockradar-signature`, the
   * same value under the described service's name, when only that one is there; when both
   * are there, both must match). Without `secret`, it must also key `webhook-signature`
   * (wallets that have no signing secret yet). An empty string is a TypeError, never a key.
   */
  apiKey?: string;
  /** Oldest accepted timestamp, seconds before now; default 300 (a finite number, at least 0: anything else is a TypeError). */
  toleranceSeconds?: number;
  /** Newest accepted timestamp, seconds after now; default 60 (a finite number, at least 0). */
  futureToleranceSeconds?: number;
  /** Where accepted attempts are remembered; default `defaultReplayStore`; false: no guard. */
  replay?: S | false;
  /** Current time in ms (for tests). */
  now?: number;
}

export interface VerifiedWebhook<T = unknown> {
  id: string;
  timestamp: number;
  event: string;
  data: T;
}

interface Checked {
  id: string;
  timestamp: number;
  text: string;
  replayKey: string;
  expiresAtMs: number;
  nowMs: number;
}

/** Verifies with a synchronous replay store (the default in-memory one). */
export function verifyWebhook<T = unknown>(opts: VerifyOptions<SyncReplayStore>): VerifiedWebhook<T> {
  const checked = checkSigned(opts);
  const store = opts.replay === undefined ? defaultReplayStore : opts.replay;
  if (store) {
    const first = store.claim(checked.replayKey, checked.expiresAtMs, checked.nowMs) as boolean | Promise<boolean>;
    if (typeof first !== 'boolean') throw new TypeError('this replay store is asynchronous: use verifyWebhookAsync');
    if (!first) throw replayError();
  }
  return parse<T>(checked);
}

/** Verifies with any replay store, for example one shared by several receiver processes. */
export async function verifyWebhookAsync<T = unknown>(opts: VerifyOptions<ReplayStore>): Promise<VerifiedWebhook<T>> {
  const checked = checkSigned(opts);
  const store = opts.replay === undefined ? defaultReplayStore : opts.replay;
  if (store && !(await store.claim(checked.replayKey, checked.expiresAtMs, checked.nowMs))) throw replayError();
  return parse<T>(checked);
}

const replayError = () => new WebhookVerificationError('replay', 'this delivery attempt was already received (replay)');

function checkSigned(opts: VerifyOptions<ReplayStore>): Checked {
  if (opts.secret === undefined && opts.apiKey === undefined) throw new TypeError('verifyWebhook needs `secret` or `apiKey`');
  // Misconfiguration fails closed. An empty key is one anyone can sign with (an environment
  // variable set but empty, as .env files leave them); a window that is not a number
  // compares false, so no timestamp was too old and no replay was remembered.
  if (opts.apiKey !== undefined && (typeof opts.apiKey !== 'string' || opts.apiKey === '')) {
    throw new TypeError('verifyWebhook: `apiKey` is empty');
  }
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const future = opts.futureToleranceSeconds ?? DEFAULT_FUTURE_TOLERANCE_SECONDS;
  for (const [name, value] of [
    ['toleranceSeconds', tolerance],
    ['futureToleranceSeconds', future],
  ] as const) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new TypeError(`verifyWebhook: \`${name}\` must be a finite number of seconds, at least 0`);
    }
  }
  const header = (name: string): string => {
    const value = opts.headers instanceof Headers ? opts.headers.get(name) : findHeader(opts.headers, name);
    if (!value) throw new WebhookVerificationError('header', `missing ${name} header`);
    return value;
  };
  const body = bodyBytes(opts.body);
  const id = header('webhook-id');
  const rawTimestamp = header('webhook-timestamp');
  const timestamp = Number(rawTimestamp);
  if (!/^\d{1,12}$/.test(rawTimestamp)) throw new WebhookVerificationError('timestamp', 'webhook-timestamp is not a Unix time in seconds');
  const nowMs = opts.now ?? Date.now();
  const now = Math.floor(nowMs / 1000);
  if (now - timestamp > tolerance) throw new WebhookVerificationError('timestamp', 'webhook-timestamp is too old');
  if (timestamp - now > future) throw new WebhookVerificationError('timestamp', 'webhook-timestamp is in the future');

  if (opts.apiKey !== undefined) {
    const expected = serviceSignature(body, opts.apiKey);
    const present = ['x-service-signature', COMPAT_SIGNATURE_HEADER].filter((name) => optionalHeader(opts.headers, name) !== undefined);
    if (present.length === 0) throw new WebhookVerificationError('header', `missing x-service-signature header`);
    for (const name of present) {
      if (!safeEqual(header(name).toLowerCase(), expected)) throw new WebhookVerificationError('signature', `${name} does not match`);
    }
  }
  const keys: (string | Uint8Array)[] =
    opts.secret === undefined ? [opts.apiKey!] : (Array.isArray(opts.secret) ? opts.secret : [opts.secret]).map(parseWebhookSecret);
  // The header lists one signature per key the service signs with (two during a rotation).
  const offered = header('webhook-signature').split(' ');
  const matched = keys.some((key) => {
    const expected = standardSignature(id, timestamp, body, key);
    return offered.some((candidate) => safeEqual(candidate, expected));
  });
  if (!matched) throw new WebhookVerificationError('signature', 'webhook-signature does not match');
  return {
    id,
    timestamp,
    text: typeof body === 'string' ? body : utf8(body),
    // Retries of a delivery keep its webhook-id but carry a new timestamp (and signature):
    // the pair names one attempt, so a replay is refused and a retry is not.
    replayKey: `${id}.${timestamp}`,
    // Until the timestamp check would refuse the attempt by itself.
    expiresAtMs: (timestamp + tolerance + 1) * 1000,
    nowMs,
  };
}

function optionalHeader(headers: VerifyOptions['headers'], name: string): string | undefined {
  const value = headers instanceof Headers ? headers.get(name) : findHeader(headers, name);
  return value ? value : undefined;
}

function parse<T>(checked: Checked): VerifiedWebhook<T> {
  let parsed: { event?: unknown; data?: unknown };
  try {
    parsed = JSON.parse(checked.text) as { event?: unknown; data?: unknown };
  } catch {
    throw new WebhookVerificationError('body', 'body is not JSON');
  }
  if (typeof parsed?.event !== 'string') throw new WebhookVerificationError('body', 'body has no event');
  return { id: checked.id, timestamp: checked.timestamp, event: parsed.event, data: parsed.data as T };
}

function bodyBytes(body: VerifyOptions['body']): string | Uint8Array {
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError('body must be the raw request body: a string, Buffer, Uint8Array or ArrayBuffer');
}

function utf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new WebhookVerificationError('body', 'body is not UTF-8');
  }
}

function findHeader(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(' ') : value;
  }
  return undefined;
}
