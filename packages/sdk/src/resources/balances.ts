import type { QueryParams } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

/** On-chain balances, read when asked (amounts are decimal strings). */
export class Balances extends Resource {
  /** Every enabled asset of the master wallet (or of `address`), or one (`asset_id`). */
  list(walletId: string, query?: QueryParams<'GET /v1/wallets/{walletId}/balances'>, opts?: RequestOptions) {
    return this.data('GET /v1/wallets/{walletId}/balances', { path: { walletId }, query }, opts);
  }

  get(walletId: string, query: QueryParams<'GET /v1/wallets/{walletId}/balance'>, opts?: RequestOptions) {
    return this.data('GET /v1/wallets/{walletId}/balance', { path: { walletId }, query }, opts);
  }

  ofAddress(walletId: string, addressId: string, opts?: RequestOptions) {
    return this.data('GET /v1/wallets/{walletId}/addresses/{addressId}/balances', { path: { walletId, addressId } }, opts);
  }

  ofAddressAsset(
    walletId: string,
    addressId: string,
    query: QueryParams<'GET /v1/wallets/{walletId}/addresses/{addressId}/balance'>,
    opts?: RequestOptions,
  ) {
    return this.data('GET /v1/wallets/{walletId}/addresses/{addressId}/balance', { path: { walletId, addressId }, query }, opts);
  }
}
