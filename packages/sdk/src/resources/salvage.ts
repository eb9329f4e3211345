import type { RequestBody } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

/**
 * Asset recovery (docs/treasury.md#asset-recovery-salvage): unlisted tokens, a child's native
 * coin, funds sent to the wallet's address on another chain of its family.
 */
export class Salvage extends Resource {
  /** The sender's native balance, the token's, and what the recovery's fee would be. */
  networkFee(walletId: string, body: RequestBody<'POST /v1/wallets/{walletId}/salvage/network-fee'>, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/salvage/network-fee', { path: { walletId }, body }, opts);
  }

  /** Starts the recovery: a PENDING SALVAGE Transaction. */
  create(walletId: string, body: RequestBody<'POST /v1/wallets/{walletId}/salvage'>, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/salvage', { path: { walletId }, body }, opts);
  }
}
