/**
 * Webhook signatures, shared by the sender and the receiver kit (which may import nothing
 * beyond this file and Node's crypto).
 *
 * - `x-service-signature`: lowercase hex HMAC-SHA512 of the exact body bytes, keyed with
 *   the wallet's API key (the spec's scheme).
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp` (Unix seconds) and
 *   `webhook-signature` = space-separated `v1,` + base64 HMAC-SHA256 of
 *   `${id}.${timestamp}.${body}`, one per signing key. The key is the wallet's webhook
 *   signing secret (`whsec_` + base64 of its bytes, as Standard Webhooks defines), so a
 *   receiver need not hold an API key that can move funds. A wallet without a secret (and
 *   during the overlap after its first secret is created) is also signed with the UTF-8
 *   bytes of its API key, as before secrets existed.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What is signed: the exact bytes (a string stands for its UTF-8 bytes). */
export type SignedBody = string | Uint8Array;

export const SECRET_PREFIX = 'whsec_';
/** Bytes of a generated signing secret. */
export const SECRET_BYTES = 32;

export function serviceSignature(body: SignedBody, apiKey: string): string {
  return createHmac('sha512', apiKey).update(body).digest('hex');
}

/** One `v1,<base64>` signature; `key` is the secret's bytes, or a string's UTF-8 bytes. */
export function standardSignature(id: string, timestamp: number, body: SignedBody, key: string | Uint8Array): string {
  const mac = createHmac('sha256', key);
  mac.update(`${id}.${timestamp}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

/** A new signing secret: its bytes and its `whsec_` text (shown once). */
export function generateWebhookSecret(): { bytes: Buffer; text: string } {
  const bytes = randomBytes(SECRET_BYTES);
  return { bytes, text: formatWebhookSecret(bytes) };
}

export function formatWebhookSecret(bytes: Uint8Array): string {
  return `${SECRET_PREFIX}${Buffer.from(bytes).toString('base64')}`;
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

export interface SigningKeys {
  apiKey: string;
  /** The wallet's live signing secrets, newest first (two during a rotation's overlap). */
  secrets?: Uint8Array[];
  /** Also sign webhook-signature with the API key (no secret yet, or the first overlap). */
  apiKeyStandard?: boolean;
}

export function signatureHeaders(body: SignedBody, opts: { id: string; timestamp: number } & SigningKeys): Record<string, string> {
  const secrets = opts.secrets ?? [];
  const keys: (string | Uint8Array)[] = [...secrets];
  if (opts.apiKeyStandard ?? secrets.length === 0) keys.push(opts.apiKey);
  return {
    'x-service-signature': serviceSignature(body, opts.apiKey),
    'webhook-id': opts.id,
    'webhook-timestamp': String(opts.timestamp),
    'webhook-signature': keys.map((k) => standardSignature(opts.id, opts.timestamp, body, k)).join(' '),
  };
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
