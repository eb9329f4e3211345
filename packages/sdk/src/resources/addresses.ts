import type { QueryParams, RequestBody } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

/** Child (deposit) addresses of a wallet, and external addresses it watches. */
export class Addresses extends Resource {
  create(walletId: string, body: RequestBody<'POST /v1/wallets/{walletId}/addresses'> = {}, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/addresses', { path: { walletId }, body }, opts);
  }

  list(walletId: string, query?: QueryParams<'GET /v1/wallets/{walletId}/addresses'>, opts?: RequestOptions) {
    return this.paged('GET /v1/wallets/{walletId}/addresses', { path: { walletId }, query }, opts);
  }

  get(walletId: string, addressId: string, query?: QueryParams<'GET /v1/wallets/{walletId}/addresses/{addressId}'>, opts?: RequestOptions) {
    return this.data('GET /v1/wallets/{walletId}/addresses/{addressId}', { path: { walletId, addressId }, query }, opts);
  }

  update(
    walletId: string,
    addressId: string,
    body: RequestBody<'PATCH /v1/wallets/{walletId}/addresses/{addressId}'>,
    opts?: RequestOptions,
  ) {
    return this.data('PATCH /v1/wallets/{walletId}/addresses/{addressId}', { path: { walletId, addressId }, body }, opts);
  }

  /** Watches an external address (deposits to it are credited to the wallet). */
  whitelist(walletId: string, body: RequestBody<'POST /v1/wallets/{walletId}/addresses/whitelist'>, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/addresses/whitelist', { path: { walletId }, body }, opts);
  }

  removeWhitelisted(walletId: string, addressId: string, opts?: RequestOptions) {
    return this.data('DELETE /v1/wallets/{walletId}/addresses/whitelist/{addressId}', { path: { walletId, addressId } }, opts);
  }
}
