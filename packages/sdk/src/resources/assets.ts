import type { QueryParams, RequestBody } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

/** The asset catalogue, prices, and the assets enabled on a wallet. */
export class Assets extends Resource {
  /** The catalogue's assets (every configured chain). */
  catalogue(query?: QueryParams<'GET /v1/assets'>, opts?: RequestOptions) {
    return this.paged('GET /v1/assets', { query }, opts);
  }

  rates(query?: QueryParams<'GET /v1/assets/rates'>, opts?: RequestOptions) {
    return this.data('GET /v1/assets/rates', { query }, opts);
  }

  /** The wallet's assets. */
  list(walletId: string, opts?: RequestOptions) {
    return this.data('GET /v1/wallets/{walletId}/assets', { path: { walletId } }, opts);
  }

  add(walletId: string, body: RequestBody<'POST /v1/wallets/{walletId}/assets'>, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/assets', { path: { walletId }, body }, opts);
  }

  update(walletId: string, assetId: string, body: RequestBody<'PATCH /v1/wallets/{walletId}/assets/{assetId}'>, opts?: RequestOptions) {
    return this.data('PATCH /v1/wallets/{walletId}/assets/{assetId}', { path: { walletId, assetId }, body }, opts);
  }

  remove(walletId: string, assetId: string, opts?: RequestOptions) {
    return this.data('DELETE /v1/wallets/{walletId}/assets/{assetId}', { path: { walletId, assetId } }, opts);
  }
}
