import type { RequestBody } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

/**
 * Transaction policies (docs/policies.md): rules that allow, block or hold a payout for
 * approval. Changes need a business key granted MANAGE_POLICIES; reading and the dry run
 * need a business key.
 */
export class Policies extends Resource {
  /** Every rule of the business, in evaluation order (one answer, not paged). */
  list(opts?: RequestOptions) {
    return this.data('GET /v1/policies', {}, opts);
  }

  create(body: RequestBody<'POST /v1/policies'>, opts?: RequestOptions) {
    return this.data('POST /v1/policies', { body }, opts);
  }

  get(id: string, opts?: RequestOptions) {
    return this.data('GET /v1/policies/{id}', { path: { id } }, opts);
  }

  update(id: string, body: RequestBody<'PATCH /v1/policies/{id}'>, opts?: RequestOptions) {
    return this.data('PATCH /v1/policies/{id}', { path: { id }, body }, opts);
  }

  remove(id: string, opts?: RequestOptions) {
    return this.data('DELETE /v1/policies/{id}', { path: { id } }, opts);
  }

  /** The dry run: which rule would decide a would-be transaction, and why (nothing written). */
  evaluate(body: RequestBody<'POST /v1/policies/evaluate'>, opts?: RequestOptions) {
    return this.data('POST /v1/policies/evaluate', { body }, opts);
  }
}
