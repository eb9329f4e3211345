import type { RequestBody } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

type WithdrawBody = RequestBody<'POST /v1/wallets/{walletId}/withdraw'>;

/**
 * Withdrawals from the master address or a child address, sign-only withdrawals and fee
 * quotes. Each call carries an Idempotency-Key (a fresh one per call unless you pass
 * `idempotencyKey`): the service answers a repeated key with the first answer, so the
 * client's retries never pay twice.
 */
export class Withdrawals extends Resource {
  create(walletId: string, body: WithdrawBody, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/withdraw', { path: { walletId }, body }, opts);
  }

  createFromAddress(walletId: string, addressId: string, body: WithdrawBody, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/addresses/{addressId}/withdraw', { path: { walletId, addressId }, body }, opts);
  }

  /** Signs without broadcasting. */
  sign(walletId: string, body: WithdrawBody, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/withdraw/sign', { path: { walletId }, body }, opts);
  }

  signFromAddress(walletId: string, addressId: string, body: WithdrawBody, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/addresses/{addressId}/withdraw/sign', { path: { walletId, addressId }, body }, opts);
  }

  /** What the withdrawal would cost in the native coin, and whether the balance covers it. */
  networkFee(walletId: string, body: WithdrawBody, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/withdraw/network-fee', { path: { walletId }, body }, opts);
  }

  networkFeeFromAddress(walletId: string, addressId: string, body: WithdrawBody, opts?: RequestOptions) {
    return this.data(
      'POST /v1/wallets/{walletId}/addresses/{addressId}/withdraw/network-fee',
      { path: { walletId, addressId }, body },
      opts,
    );
  }
}
