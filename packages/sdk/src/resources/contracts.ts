import type { RequestBody } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

type Call = RequestBody<'POST /v1/wallets/{walletId}/contracts/read'>;

/** Smart-contract reads and writes, from the master address or a child address. */
export class Contracts extends Resource {
  read(walletId: string, body: Call, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/contracts/read', { path: { walletId }, body }, opts);
  }

  write(walletId: string, body: Call, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/contracts/write', { path: { walletId }, body }, opts);
  }

  networkFee(walletId: string, body: Call, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/contracts/network-fee', { path: { walletId }, body }, opts);
  }

  /** Signs a write without broadcasting it. */
  signWrite(walletId: string, body: Call, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/contracts/write/sign', { path: { walletId }, body }, opts);
  }

  readFromAddress(walletId: string, addressId: string, body: Call, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/addresses/{addressId}/contracts/read', { path: { walletId, addressId }, body }, opts);
  }

  writeFromAddress(walletId: string, addressId: string, body: Call, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/addresses/{addressId}/contracts/write', { path: { walletId, addressId }, body }, opts);
  }

  networkFeeFromAddress(walletId: string, addressId: string, body: Call, opts?: RequestOptions) {
    return this.data(
      'POST /v1/wallets/{walletId}/addresses/{addressId}/contracts/network-fee',
      { path: { walletId, addressId }, body },
      opts,
    );
  }

  signWriteFromAddress(walletId: string, addressId: string, body: Call, opts?: RequestOptions) {
    return this.data(
      'POST /v1/wallets/{walletId}/addresses/{addressId}/contracts/write/sign',
      { path: { walletId, addressId }, body },
      opts,
    );
  }
}
