import type { QueryParams, RequestBody } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

/**
 * Approval requests of payouts a policy holds (PENDING_APPROVAL; docs/policies.md). A vote
 * needs a business key granted APPROVE that the request lists, never the initiator's.
 */
export class Approvals extends Resource {
  list(query?: QueryParams<'GET /v1/approvals'>, opts?: RequestOptions) {
    return this.paged('GET /v1/approvals', { query }, opts);
  }

  /** `id`: the request's id or its transaction's. */
  get(id: string, opts?: RequestOptions) {
    return this.data('GET /v1/approvals/{id}', { path: { id } }, opts);
  }

  approve(id: string, body?: RequestBody<'POST /v1/approvals/{id}/approve'>, opts?: RequestOptions) {
    return this.data('POST /v1/approvals/{id}/approve', { path: { id }, body: body ?? {} }, opts);
  }

  reject(id: string, body?: RequestBody<'POST /v1/approvals/{id}/reject'>, opts?: RequestOptions) {
    return this.data('POST /v1/approvals/{id}/reject', { path: { id }, body: body ?? {} }, opts);
  }
}
