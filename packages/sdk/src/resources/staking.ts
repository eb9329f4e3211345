import type { RequestBody } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

/**
 * Staking of the master address's native coin where the chain's family stakes (Tron's Stake
 * 2.0; docs/treasury.md#staking-tron). Each operation answers a PENDING Transaction.
 */
export class Staking extends Resource {
  /** What is staked, lent, unlocking and withdrawable now. */
  get(walletId: string, opts?: RequestOptions) {
    return this.data('GET /v1/wallets/{walletId}/staking', { path: { walletId } }, opts);
  }

  stake(walletId: string, body: RequestBody<'POST /v1/wallets/{walletId}/staking/stake'>, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/staking/stake', { path: { walletId }, body }, opts);
  }

  /** Starts unstaking: the amount unlocks after the chain's period. */
  unstake(walletId: string, body: RequestBody<'POST /v1/wallets/{walletId}/staking/unstake'>, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/staking/unstake', { path: { walletId }, body }, opts);
  }

  /** Puts every pending unstake back into its stake. */
  restake(walletId: string, body: RequestBody<'POST /v1/wallets/{walletId}/staking/restake'> = {}, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/staking/restake', { path: { walletId }, body }, opts);
  }

  /** Pays out what unstaking unlocked. */
  withdraw(walletId: string, body: RequestBody<'POST /v1/wallets/{walletId}/staking/withdraw'> = {}, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/staking/withdraw', { path: { walletId }, body }, opts);
  }
}
