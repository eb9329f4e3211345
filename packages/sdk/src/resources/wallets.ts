import type { QueryParams, RequestBody } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

/** Master wallets. Creating and listing them takes a business key. */
export class Wallets extends Resource {
  create(body: RequestBody<'POST /v1/wallets'>, opts?: RequestOptions) {
    return this.data('POST /v1/wallets', { body }, opts);
  }

  list(query?: QueryParams<'GET /v1/wallets'>, opts?: RequestOptions) {
    return this.paged('GET /v1/wallets', { query }, opts);
  }

  get(walletId: string, opts?: RequestOptions) {
    return this.data('GET /v1/wallets/{walletId}', { path: { walletId } }, opts);
  }

  update(walletId: string, body: RequestBody<'PATCH /v1/wallets/{walletId}'>, opts?: RequestOptions) {
    return this.data('PATCH /v1/wallets/{walletId}', { path: { walletId }, body }, opts);
  }

  /** A new API key for the wallet; the old one stops working at once. */
  regenerateApiKey(walletId: string, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/api-key/regenerate', { path: { walletId } }, opts);
  }
}
