import type { QueryParams } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

/** AML screening (docs/aml.md): an address checked against every list in force, and held deposits released. */
export class Aml extends Resource {
  /** Screens an address on a blockchain (`blockchain` is required with a business key). */
  lookup(query: QueryParams<'GET /v1/aml/lookup'>, opts?: RequestOptions) {
    return this.data('GET /v1/aml/lookup', { query }, opts);
  }

  /** Screens an address on the wallet's chain. */
  lookupForWallet(walletId: string, query: QueryParams<'GET /v1/wallets/{walletId}/aml/lookup'>, opts?: RequestOptions) {
    return this.data('GET /v1/wallets/{walletId}/aml/lookup', { path: { walletId }, query }, opts);
  }

  /** Releases a deposit held by screening (a business key): its sweep and settlements proceed. */
  release(walletId: string, transactionId: string, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/transactions/{transactionId}/aml/release', { path: { walletId, transactionId } }, opts);
  }
}
