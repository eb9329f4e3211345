import type { QueryParams, RequestBody } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

/** The business's API keys (a business key without restrictions manages them). */
export class ApiKeys extends Resource {
  /** A new key, shown only in this answer. */
  create(body: RequestBody<'POST /v1/api-keys'>, opts?: RequestOptions) {
    return this.data('POST /v1/api-keys', { body }, opts);
  }

  list(query?: QueryParams<'GET /v1/api-keys'>, opts?: RequestOptions) {
    return this.paged('GET /v1/api-keys', { query }, opts);
  }

  get(keyId: string, opts?: RequestOptions) {
    return this.data('GET /v1/api-keys/{keyId}', { path: { keyId } }, opts);
  }

  revoke(keyId: string, opts?: RequestOptions) {
    return this.data('DELETE /v1/api-keys/{keyId}', { path: { keyId } }, opts);
  }
}
