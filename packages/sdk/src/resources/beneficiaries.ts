import type { QueryParams, RequestBody } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

/** Beneficiaries (whitelisting, scheduled settlement) and their settlements. */
export class Beneficiaries extends Resource {
  create(walletId: string, body: RequestBody<'POST /v1/wallets/{walletId}/beneficiaries'>, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/beneficiaries', { path: { walletId }, body }, opts);
  }

  list(walletId: string, query?: QueryParams<'GET /v1/wallets/{walletId}/beneficiaries'>, opts?: RequestOptions) {
    return this.paged('GET /v1/wallets/{walletId}/beneficiaries', { path: { walletId }, query }, opts);
  }

  get(walletId: string, id: string, opts?: RequestOptions) {
    return this.data('GET /v1/wallets/{walletId}/beneficiaries/{id}', { path: { walletId, id } }, opts);
  }

  update(walletId: string, id: string, body: RequestBody<'PATCH /v1/wallets/{walletId}/beneficiaries/{id}'>, opts?: RequestOptions) {
    return this.data('PATCH /v1/wallets/{walletId}/beneficiaries/{id}', { path: { walletId, id }, body }, opts);
  }

  delete(walletId: string, id: string, opts?: RequestOptions) {
    return this.data('DELETE /v1/wallets/{walletId}/beneficiaries/{id}', { path: { walletId, id } }, opts);
  }

  settlements(
    walletId: string,
    id: string,
    query?: QueryParams<'GET /v1/wallets/{walletId}/beneficiaries/{id}/settlements'>,
    opts?: RequestOptions,
  ) {
    return this.paged('GET /v1/wallets/{walletId}/beneficiaries/{id}/settlements', { path: { walletId, id }, query }, opts);
  }
}
