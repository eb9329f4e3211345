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
  /** Requests in flight at once (default 8). */
  concurrency?: number;
}

export function httpProvider(config: HttpProviderConfig): ScreeningProvider {
  const base = config.url.replace(/\/+$/, '');
  const concurrency = Math.max(1, config.concurrency ?? 8);
  return {
    name: config.kind,
    covers: () => true,
    async screen(_chain: ChainHandle, addresses: readonly string[], signal: AbortSignal): Promise<boolean[]> {
      const out = new Array<boolean>(addresses.length);
      let next = 0;
      const worker = async () => {
        while (next < addresses.length) {
          const i = next++;
          const res = await fetch(`${base}/api/v1/address/${encodeURIComponent(addresses[i]!)}`, {
            headers: { accept: 'application/json', ...(config.apiKey ? { 'x-api-key': config.apiKey } : {}) },
            signal,
          });
          if (!res.ok) throw new Error(`HTTP ${res.status} from the ${config.kind} API`);
          const body = (await res.json().catch(() => null)) as { identifications?: unknown } | null;
          if (!body || !Array.isArray(body.identifications)) throw new Error(`the ${config.kind} API answered without identifications`);
          out[i] = body.identifications.length > 0;
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, addresses.length) }, worker));
      return out;
    },
  };
}
