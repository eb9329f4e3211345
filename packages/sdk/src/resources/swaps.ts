import type { RequestBody } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

type QuoteBody = RequestBody<'POST /v1/wallets/{walletId}/swaps/quote'>;
type ExecuteBody = RequestBody<'POST /v1/wallets/{walletId}/swaps/execute'>;

/**
 * Swaps on the wallet's chain through its router (docs/treasury.md#swaps): a quote with an id
 * and an expiry, then its execution (always quoted again; never below the quote's minimum).
 */
export class Swaps extends Resource {
  quote(walletId: string, body: QuoteBody, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/swaps/quote', { path: { walletId }, body }, opts);
  }

  quoteFromAddress(walletId: string, addressId: string, body: QuoteBody, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/addresses/{addressId}/swaps/quote', { path: { walletId, addressId }, body }, opts);
  }

  /** Executes a quote (`quoteId`) or a request given whole; a PENDING SWAP Transaction. */
  execute(walletId: string, body: ExecuteBody, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/swaps/execute', { path: { walletId }, body }, opts);
  }

  executeFromAddress(walletId: string, addressId: string, body: ExecuteBody, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/addresses/{addressId}/swaps/execute', { path: { walletId, addressId }, body }, opts);
  }
}
