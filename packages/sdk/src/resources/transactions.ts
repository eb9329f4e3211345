import type { QueryParams } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

/** Transaction history (filters as the API's), and cancel or retry of a withdrawal. */
export class Transactions extends Resource {
  list(walletId: string, query?: QueryParams<'GET /v1/wallets/{walletId}/transactions'>, opts?: RequestOptions) {
    return this.paged('GET /v1/wallets/{walletId}/transactions', { path: { walletId }, query }, opts);
  }

  listForAddress(
    walletId: string,
    addressId: string,
    query?: QueryParams<'GET /v1/wallets/{walletId}/addresses/{addressId}/transactions'>,
    opts?: RequestOptions,
  ) {
    return this.paged('GET /v1/wallets/{walletId}/addresses/{addressId}/transactions', { path: { walletId, addressId }, query }, opts);
  }

  get(walletId: string, transactionId: string, opts?: RequestOptions) {
    return this.data(
      'GET /v1/wallets/{walletId}/transactions/{transactionsId}',
      { path: { walletId, transactionsId: transactionId } },
      opts,
    );
  }

  cancel(walletId: string, transactionId: string, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/transactions/cancel', { path: { walletId }, body: { id: transactionId } }, opts);
  }

  retry(walletId: string, transactionId: string, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/transactions/retry', { path: { walletId }, body: { id: transactionId } }, opts);
  }
}
