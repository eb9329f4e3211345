/**
 * Webhook signatures, shared by the sender and the receiver kit.
 *
 * - `x-service-signature`: lowercase hex HMAC-SHA512 of the exact body bytes, keyed with
 *   the wallet's API key (the spec's scheme).
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp` (Unix seconds) and
 *   `webhook-signature` = `v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`,
 *   keyed with the UTF-8 bytes of the same API key, so receivers can reject replays.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function serviceSignature(body: string | Buffer, apiKey: string): string {
  return createHmac('sha512', apiKey).update(body).digest('hex');
}

export function standardSignature(id: string, timestamp: number, body: string | Buffer, apiKey: string): string {
  const mac = createHmac('sha256', apiKey);
  mac.update(`${id}.${timestamp}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

export function signatureHeaders(body: string, opts: { id: string; timestamp: number; apiKey: string }): Record<string, string> {
  return {
    'x-service-signature': serviceSignature(body, opts.apiKey),
    'webhook-id': opts.id,
    'webhook-timestamp': String(opts.timestamp),
    'webhook-signature': standardSignature(opts.id, opts.timestamp, body, opts.apiKey),
  };
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
