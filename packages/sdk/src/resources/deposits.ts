import type { RequestBody } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

/** Finding a missed deposit, and sweeping one by hand. */
export class Deposits extends Resource {
  rescan(walletId: string, body: RequestBody<'POST /v1/wallets/{walletId}/rescan/blocks'>, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/rescan/blocks', { path: { walletId }, body }, opts);
  }

  sweep(walletId: string, body: RequestBody<'POST /v1/wallets/{walletId}/transactions/sweep/assets'>, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/transactions/sweep/assets', { path: { walletId }, body }, opts);
  }
}
