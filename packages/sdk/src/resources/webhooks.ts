import type { QueryParams, RequestBody } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

/** Webhook delivery logs, resends, test events and the signing secret. (Verifying deliveries: `@stablecoin-wallet/sdk/webhooks`.) */
export class Webhooks extends Resource {
  /** Every delivery of a transaction, newest first. */
  logs(walletId: string, transactionId: string, opts?: RequestOptions) {
    return this.data(
      'GET /v1/wallets/{walletId}/transactions/{transactionsId}/webhooks',
      { path: { walletId, transactionsId: transactionId } },
      opts,
    );
  }

  /** Every delivery of the wallet, newest first. */
  list(walletId: string, query?: QueryParams<'GET /v1/wallets/{walletId}/webhooks'>, opts?: RequestOptions) {
    return this.paged('GET /v1/wallets/{walletId}/webhooks', { path: { walletId }, query }, opts);
  }

  /** A new delivery of the transaction's latest event: the Transaction and the new log entry. */
  async resend(walletId: string, transactionId: string, opts?: RequestOptions) {
    const answer = await this.transport.call(
      'POST /v1/wallets/{walletId}/transactions/webhooks/resend',
      { path: { walletId }, body: { id: transactionId } },
      opts,
    );
    return { transaction: answer.data, webhookLog: answer.webhookLog };
  }

  /** A signed `webhook.test` delivery to the wallet's URL. */
  test(walletId: string, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/webhooks/test', { path: { walletId } }, opts);
  }

  /** A test event of any type with a realistic body, marked `"test": true` (feed, streams, and a delivery when a URL is set). */
  trigger(walletId: string, event: RequestBody<'POST /v1/wallets/{walletId}/webhooks/trigger'>['event'], opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/webhooks/trigger', { path: { walletId }, body: { event } }, opts);
  }

  secretStatus(walletId: string, opts?: RequestOptions) {
    return this.data('GET /v1/wallets/{walletId}/webhooks/secret', { path: { walletId } }, opts);
  }

  /** A new `whsec_` signing secret, shown only in this answer. */
  rotateSecret(walletId: string, body: RequestBody<'POST /v1/wallets/{walletId}/webhooks/secret'> = {}, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/webhooks/secret', { path: { walletId }, body }, opts);
  }
}
