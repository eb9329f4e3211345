/**
 * Receiver kit: verify a webhook from the wallet service in your own receiver.
 *
 *   import { verifyWebhook } from 'stablecoin-wallet-service/receiver';
 *   const { event, data } = verifyWebhook({ body: rawBody, headers: req.headers, apiKey });
 *
 * Pass the raw body exactly as received (not re-serialised JSON). Both signatures are
 * checked, and the timestamp must be within `toleranceSeconds` of now, which rejects
 * replays of old deliveries. Throws WebhookVerificationError otherwise.
 */
import { safeEqual, serviceSignature, standardSignature } from '../lib/webhook-signature.js';

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyOptions {
  /** The raw request body. */
  body: string | Buffer;
  /** Request headers (any letter case; Node's IncomingHttpHeaders or a plain object). */
  headers: Record<string, string | string[] | undefined> | Headers;
  /** The wallet's API key: the signing secret. */
  apiKey: string;
  /** Accepted clock difference; default 300 s. */
  toleranceSeconds?: number;
  /** Current time in ms (for tests). */
  now?: number;
}

export interface VerifiedWebhook<T = unknown> {
  id: string;
  timestamp: number;
  event: string;
  data: T;
}

export function verifyWebhook<T = unknown>(opts: VerifyOptions): VerifiedWebhook<T> {
  const header = (name: string): string => {
    const value = opts.headers instanceof Headers ? opts.headers.get(name) : findHeader(opts.headers, name);
    if (!value) throw new WebhookVerificationError(`missing ${name} header`);
    return value;
  };
  const body = typeof opts.body === 'string' ? opts.body : opts.body.toString('utf8');
  const id = header('webhook-id');
  const timestamp = Number(header('webhook-timestamp'));
  if (!Number.isInteger(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a Unix time in seconds');
  const tolerance = opts.toleranceSeconds ?? 300;
  const now = Math.floor((opts.now ?? Date.now()) / 1000);
  if (Math.abs(now - timestamp) > tolerance) throw new WebhookVerificationError('webhook-timestamp is outside the tolerance window');

  if (!safeEqual(header('x-service-signature').toLowerCase(), serviceSignature(body, opts.apiKey))) {
    throw new WebhookVerificationError('x-service-signature does not match');
  }
  const expected = standardSignature(id, timestamp, body, opts.apiKey);
  // The header may list several space-separated signatures (key rotation); one must match.
  if (
    !header('webhook-signature')
      .split(' ')
      .some((candidate) => safeEqual(candidate, expected))
  ) {
    throw new WebhookVerificationError('webhook-signature does not match');
  }
  let parsed: { event?: unknown; data?: unknown };
  try {
    parsed = JSON.parse(body) as { event?: unknown; data?: unknown };
  } catch {
    throw new WebhookVerificationError('body is not JSON');
  }
  if (typeof parsed.event !== 'string') throw new WebhookVerificationError('body has no event');
  return { id, timestamp, event: parsed.event, data: parsed.data as T };
}

function findHeader(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}
