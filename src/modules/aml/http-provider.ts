/**
 * A screening provider behind an HTTP API (providers.ts `ScreeningProvider`). The one built
 * in speaks Chainalysis's free sanctions screening API: `GET {url}/api/v1/address/{address}`
 * with the `X-API-Key` header, answering `{ "identifications": [...] }` (an empty array: not
 * sanctioned). Another vendor (TRM, Elliptic) is another `ScreeningProvider` given to
 * createServices (`amlProviders`); the screening code does not change. docs/aml.md shows how.
 */
import type { ChainHandle } from '../catalogue/service.js';
import type { ScreeningProvider } from './providers.js';

export interface HttpProviderConfig {
  /** The API's protocol; 'chainalysis' (the sanctions screening API) is the one built in. */
  kind: 'chainalysis';
  /** Base URL, e.g. https://public.chainalysis.com. */
  url: string;
  /** Sent as X-API-Key; never logged. */
  apiKey: string | null;
  /** Requests in flight at once per screening call (default 8); the runner keeps up to 4 calls in flight per chain. */
  concurrency?: number;
}

/**
 * An answer is a short JSON object; a provider (or whatever answers at its address) that sends
 * more is refused rather than buffered whole, so a misbehaving endpoint cannot fill the
 * process's memory from inside the screening of a payout.
 */
export const MAX_ANSWER_BYTES = 256 * 1024;

async function readCapped(res: Response, what: string): Promise<string> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > MAX_ANSWER_BYTES) {
    await res.body?.cancel().catch(() => {});
    throw new Error(`the ${what} API answered more than ${MAX_ANSWER_BYTES} bytes`);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => {});
      throw new Error(`the ${what} API answered more than ${MAX_ANSWER_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function httpProvider(config: HttpProviderConfig): ScreeningProvider {
  const base = config.url.replace(/\/+$/, '');
  const concurrency = Math.max(1, config.concurrency ?? 8);
  return {
    name: config.kind,
    covers: () => true,
    // One request per address: a call is one round of requests, answered within the timeout
    // as one request is (runner.ts), whatever the number of screenings waiting.
    maxBatch: concurrency,
    async screen(_chain: ChainHandle, addresses: readonly string[], signal: AbortSignal): Promise<boolean[]> {
      const out = new Array<boolean>(addresses.length);
      let next = 0;
      const worker = async () => {
        while (next < addresses.length) {
          const i = next++;
          const res = await fetch(`${base}/api/v1/address/${encodeURIComponent(addresses[i]!)}`, {
            headers: { accept: 'application/json', ...(config.apiKey ? { 'x-api-key': config.apiKey } : {}) },
            signal,
            // A redirect is not followed (it fails the call as 'HTTP 3xx'): fetch strips only the
            // standard credential headers when it follows one to another origin, so X-API-Key
            // would go along to wherever the Location pointed. The API answers at its own URL.
            redirect: 'manual',
          });
          if (!res.ok) {
            await res.body?.cancel().catch(() => {});
            throw new Error(`HTTP ${res.status} from the ${config.kind} API`);
          }
          const text = await readCapped(res, config.kind);
          let body: { identifications?: unknown } | null = null;
          try {
            body = JSON.parse(text) as { identifications?: unknown } | null;
          } catch {
            body = null;
          }
          if (!body || !Array.isArray(body.identifications)) throw new Error(`the ${config.kind} API answered without identifications`);
          out[i] = body.identifications.length > 0;
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, addresses.length) }, worker));
      return out;
    },
  };
}
