import type { QueryParams, RequestBody } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

/**
 * Payment links and their checkout sessions (the service's docs/checkout.md). The SDK sends
 * JSON; a link's image (`file`) is a multipart upload the API also takes (`curl -F`).
 */
export class PaymentLinks extends Resource {
  create(body: RequestBody<'POST /v1/payment_links'>, opts?: RequestOptions) {
    return this.data('POST /v1/payment_links', { body }, opts);
  }

  list(query?: QueryParams<'GET /v1/payment_links'>, opts?: RequestOptions) {
    return this.paged('GET /v1/payment_links', { query }, opts);
  }

  get(id: string, opts?: RequestOptions) {
    return this.data('GET /v1/payment_links/{id}', { path: { id } }, opts);
  }

  /** Edits the link; `{ active: false }` deactivates it. */
  update(id: string, body: RequestBody<'PATCH /v1/payment_links/{id}'>, opts?: RequestOptions) {
    return this.data('PATCH /v1/payment_links/{id}', { path: { id }, body }, opts);
  }

  deactivate(id: string, opts?: RequestOptions) {
    return this.update(id, { active: false }, opts);
  }
}

/** Checkout sessions: one payer's dedicated address, amount and deadline on a payment link. */
export class Checkouts extends Resource {
  /** Starts a session on a link, as its page does when a payer opens it. */
  create(paymentLinkId: string, body: RequestBody<'POST /v1/payment_links/{id}/checkouts'>, opts?: RequestOptions) {
    return this.data('POST /v1/payment_links/{id}/checkouts', { path: { id: paymentLinkId }, body }, opts);
  }

  list(paymentLinkId: string, query?: QueryParams<'GET /v1/payment_links/{id}/checkouts'>, opts?: RequestOptions) {
    return this.paged('GET /v1/payment_links/{id}/checkouts', { path: { id: paymentLinkId }, query }, opts);
  }

  get(id: string, opts?: RequestOptions) {
    return this.data('GET /v1/checkouts/{id}', { path: { id } }, opts);
  }
}
