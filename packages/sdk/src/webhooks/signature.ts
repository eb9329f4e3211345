/**
 * The two signatures of a webhook delivery, as the service computes them (its sender,
 * src/lib/webhook-signature.ts in the service's repository; test/sdk/webhooks-verify.test.ts
 * signs with the service's code and verifies with this one):
 *
 * - `x-service-signature`: lowercase hex HMAC-SHA512 of the exact body bytes, keyed with
 *   the wallet's API key (repeated as `x-blockradar-signature` unless the operator turned
 *   that off);
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp` (Unix seconds) and
 *   `webhook-signature` = space-separated `v1,<base64 HMAC-SHA256 of id.timestamp.body>`,
 *   one per key: the wallet's `whsec_` signing secret, or its API key while it has none.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** What is signed: the exact bytes (a string stands for its UTF-8 bytes). */
export type SignedBody = string | Uint8Array;

export const SECRET_PREFIX = 'whsec_';
/** The same value as x-service-signature, under the name receivers written for the described service read. */
export const COMPAT_SIGNATURE_HEADER = 'x-blockradar-signature';

export function serviceSignature(body: SignedBody, apiKey: string): string {
  return createHmac('sha512', apiKey).update(body).digest('hex');
}

/** One `v1,<base64>` signature; `key` is a secret's bytes, or a string's UTF-8 bytes (an API key). */
export function standardSignature(id: string, timestamp: number, body: SignedBody, key: string | Uint8Array): string {
  const mac = createHmac('sha256', key);
  mac.update(`${id}.${timestamp}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

/** The key bytes of a `whsec_…` secret (the prefix is optional, as in Standard Webhooks' libraries). */
export function parseWebhookSecret(secret: string): Buffer {
  const b64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length < 16 || bytes.toString('base64').replace(/=+$/, '') !== b64.replace(/=+$/, '')) {
    throw new Error('a webhook secret is whsec_ followed by the base64 of at least 16 bytes');
  }
  return bytes;
}

export interface SignOptions {
  /** `webhook-id`: the delivery id (the same on every retry of a delivery). */
  id: string;
  /** `webhook-timestamp`, Unix seconds (default: now). */
  timestamp?: number;
  /** Keys x-service-signature (and webhook-signature when no secret is given). */
  apiKey: string;
  /** `whsec_…` secrets that key webhook-signature (two during a rotation). */
  secrets?: string[];
  /** Also repeat x-service-signature as x-blockradar-signature (default true, as the service). */
  compatHeader?: boolean;
}

/** The headers of a delivery of `body`, signed exactly as the service signs its deliveries. */
export function signWebhook(body: SignedBody, opts: SignOptions): Record<string, string> {
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const keys: (string | Uint8Array)[] = opts.secrets?.length ? opts.secrets.map(parseWebhookSecret) : [opts.apiKey];
  const service = serviceSignature(body, opts.apiKey);
  return {
    'content-type': 'application/json',
    'x-service-signature': service,
    ...(opts.compatHeader === false ? {} : { [COMPAT_SIGNATURE_HEADER]: service }),
    'webhook-id': opts.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': keys.map((k) => standardSignature(opts.id, timestamp, body, k)).join(' '),
  };
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
