import type { RequestBody } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

/** Typed-data (EIP-712) and message signatures. */
export class Signing extends Resource {
  typedData(walletId: string, body: RequestBody<'POST /v1/wallets/{walletId}/signing/typed-data'>, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/signing/typed-data', { path: { walletId }, body }, opts);
  }

  message(walletId: string, body: RequestBody<'POST /v1/wallets/{walletId}/signing/message'>, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/signing/message', { path: { walletId }, body }, opts);
  }

  messageFromAddress(
    walletId: string,
    addressId: string,
    body: RequestBody<'POST /v1/wallets/{walletId}/addresses/{addressId}/signing/message'>,
    opts?: RequestOptions,
  ) {
    return this.data('POST /v1/wallets/{walletId}/addresses/{addressId}/signing/message', { path: { walletId, addressId }, body }, opts);
  }
}
