/**
 * Events and webhooks. `emit` writes the event (and, when the wallet has a URL, its
 * delivery and the job that makes it) inside the caller's transaction: the outbox. The
 * worker's `deliver` claims one attempt under a row lock, sends it, and records it.
 */
import type { Static } from '@sinclair/typebox';
import type { Db, DbConn } from '../../db/pool.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { BusinessRuleError, NotFoundError } from '../../lib/errors.js';
import { shortReference, uuidv7 } from '../../lib/ids.js';
import { pageMeta, type PageMeta } from '../../lib/schema.js';
import { policyFor } from '../../lib/ssrf.js';
import { signatureHeaders } from '../../lib/webhook-signature.js';
import type { ApiKeyService, AuthContext } from '../apikeys/service.js';
import type { TransactionService } from '../transactions/service.js';
import type { WalletService } from '../wallets/service.js';
import { FINAL_ATTEMPT_GRACE_MS, MAX_ATTEMPTS, followingAttemptAt } from './schedule.js';
import type { WebhookLogEntrySchema } from './schemas.js';
import type { WebhookSender } from './sender.js';
import * as store from './store.js';

export type WebhookLogEntry = Static<typeof WebhookLogEntrySchema>;

export const TEST_EVENT = 'webhook.test';
const EMIT_CHUNK = 250;

export class WebhookService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly wallets: WalletService,
    private readonly apiKeys: ApiKeyService,
    private readonly transactions: TransactionService,
    private readonly sender: WebhookSender,
    private readonly logger: Logger,
  ) {}

  /** Records `name` for a transaction, with the Transaction as it is inside `tx`. */
  async emitForTransaction(tx: DbConn, transactionId: string, name: string): Promise<void> {
    await this.emitForTransactions(tx, [transactionId], name);
  }

  /**
   * Records `name` for many transactions with a constant number of queries (the indexer
   * confirms thousands of deposits in one range): events, deliveries and their jobs in bulk.
   */
  async emitForTransactions(tx: DbConn, transactionIds: string[], name: string): Promise<void> {
    // In chunks: a backfill can confirm thousands of deposits in one range, and each
    // payload is a full Transaction; only one chunk of them is held in memory at a time.
    for (let i = 0; i < transactionIds.length; i += EMIT_CHUNK) await this.emitChunk(tx, transactionIds.slice(i, i + EMIT_CHUNK), name);
  }

  private async emitChunk(tx: DbConn, transactionIds: string[], name: string): Promise<void> {
    const views = await this.transactions.loadMany(transactionIds, tx);
    const now = this.clock.now();
    const events = views.map((data) => ({
      id: uuidv7(),
      walletId: data.wallet.id,
      transactionId: data.id,
      name,
      reference: data.reference,
      payload: data,
      createdAt: now,
    }));
    await store.insertEvents(tx, events);
    const urls = await store.webhookUrls(tx, [...new Set(events.map((e) => e.walletId))]);
    const deliveries = events.flatMap((e) => {
      const url = urls.get(e.walletId);
      if (!url) return [];
      return [
        {
          id: uuidv7(),
          eventId: e.id,
          walletId: e.walletId,
          transactionId: e.transactionId,
          event: name,
          reference: e.reference,
          url,
          body: JSON.stringify({ event: name, data: e.payload }),
          maxAttempts: MAX_ATTEMPTS,
          now,
        },
      ];
    });
    await store.insertDeliveries(tx, deliveries);
    await store.enqueueDeliveryJobsNow(
      tx,
      deliveries.map((d) => d.id),
    );
  }

  /** Must run inside the transaction of the state change it reports. */
  async emit(
    tx: DbConn,
    e: { walletId: string; transactionId: string | null; name: string; reference: string; data: unknown },
  ): Promise<string> {
    const eventId = uuidv7();
    const now = this.clock.now();
    await store.insertEvent(tx, {
      id: eventId,
      walletId: e.walletId,
      transactionId: e.transactionId,
      name: e.name,
      reference: e.reference,
      payload: e.data,
      createdAt: now,
    });
    const url = await store.walletWebhookUrl(tx, e.walletId);
    if (url)
      await this.createDelivery(tx, {
        eventId,
        walletId: e.walletId,
        transactionId: e.transactionId,
        name: e.name,
        reference: e.reference,
        data: e.data,
        url,
      });
    return eventId;
  }

  private async createDelivery(
    tx: DbConn,
    d: { eventId: string; walletId: string; transactionId: string | null; name: string; reference: string; data: unknown; url: string },
  ): Promise<string> {
    const id = uuidv7();
    const now = this.clock.now();
    await store.insertDelivery(tx, {
      id,
      eventId: d.eventId,
      walletId: d.walletId,
      transactionId: d.transactionId,
      event: d.name,
      reference: d.reference,
      url: d.url,
      body: JSON.stringify({ event: d.name, data: d.data }),
      maxAttempts: MAX_ATTEMPTS,
      now,
    });
    await store.enqueueDeliveryJob(tx, id, new Date());
    return id;
  }

  /**
   * Makes the next attempt of a delivery if it is due. Safe to call any number of times
   * from any number of workers: the row lock and the unique (delivery, attempt) key let
   * exactly one caller make each attempt.
   */
  async deliver(deliveryId: string): Promise<'sent' | 'not-due'> {
    const claimed = await this.db.transaction().execute(async (tx) => {
      const startedAt = this.clock.now();
      const row = await store.lockDueDelivery(tx, deliveryId, startedAt);
      if (!row) return null;
      const attempt = row.attempts + 1;
      // Move the schedule to the following slot before sending: if this process dies
      // mid-attempt, the delivery is picked up exactly when a failed attempt would have
      // been retried.
      const following = attempt < row.max_attempts ? followingAttemptAt(attempt, startedAt) : null;
      const nextAt = following ?? new Date(startedAt.getTime() + FINAL_ATTEMPT_GRACE_MS);
      await store.markAttemptClaimed(tx, row.id, attempt, startedAt, nextAt);
      await store.insertAttempt(tx, { id: uuidv7(), deliveryId: row.id, attempt, attemptedAt: startedAt });
      return { row, attempt, startedAt, following };
    });
    if (!claimed) return 'not-due';
    const { row, attempt, startedAt, following } = claimed;

    const apiKey = await this.apiKeys.revealWalletKey(row.wallet_id);
    const result = apiKey
      ? await this.sender.send(
          row.url,
          row.body,
          signatureHeaders(row.body, { id: row.id, timestamp: Math.floor(startedAt.getTime() / 1000), apiKey }),
          policyFor(row.network),
        )
      : { statusCode: null, response: null, error: 'the wallet has no live API key to sign with', ok: false, durationMs: 0 };

    const finishedAt = this.clock.now();
    const lastResponse = result.response ?? result.error;
    await this.db.transaction().execute(async (tx) => {
      await store.recordAttempt(tx, row.id, attempt, { ...result, finishedAt });
      if (result.ok) {
        await store.settleDelivery(tx, row.id, {
          status: 'success',
          statusCode: result.statusCode,
          response: lastResponse,
          at: finishedAt,
          clearNext: true,
        });
      } else if (!following) {
        await store.settleDelivery(tx, row.id, {
          status: 'failed',
          statusCode: result.statusCode,
          response: lastResponse,
          at: finishedAt,
          clearNext: true,
        });
      } else {
        await store.settleDelivery(tx, row.id, {
          status: 'pending',
          statusCode: result.statusCode,
          response: lastResponse,
          at: finishedAt,
          clearNext: false,
        });
        // The job fires after the same delay in real time; the sweep catches anything the
        // queue loses, and `deliver` re-checks due-ness against the service clock.
        await store.enqueueDeliveryJob(tx, row.id, new Date(Date.now() + (following.getTime() - finishedAt.getTime())));
      }
    });
    if (!result.ok) this.logger.info({ deliveryId: row.id, attempt, error: result.error }, 'webhook attempt failed');
    return 'sent';
  }

  /**
   * Finds deliveries due by the service clock and queues them; fails deliveries whose
   * final attempt never reported back. Runs periodically, and after a restart.
   */
  async sweep(limit = 500): Promise<number> {
    const now = this.clock.now();
    const due = await store.dueDeliveries(this.db, now, limit);
    for (const d of due) {
      if (d.attempts >= d.max_attempts) await store.failAbandoned(this.db, d.id, now);
      else await store.enqueueDeliveryJob(this.db, d.id, new Date());
    }
    return due.length;
  }

  async listForTransaction(auth: AuthContext, walletId: string, transactionId: string): Promise<WebhookLogEntry[]> {
    await this.transactions.require(auth, walletId, transactionId);
    return this.present(await store.deliveriesOfTransaction(this.db, walletId, transactionId));
  }

  async listForWallet(
    auth: AuthContext,
    walletId: string,
    page: number,
    limit: number,
  ): Promise<{ items: WebhookLogEntry[]; meta: PageMeta }> {
    await this.wallets.require(auth, walletId);
    const [rows, total] = await Promise.all([
      store.deliveriesOfWallet(this.db, walletId, (page - 1) * limit, limit),
      store.countDeliveriesOfWallet(this.db, walletId),
    ]);
    const items = await this.present(rows);
    return { items, meta: pageMeta(page, limit, items.length, total) };
  }

  /** Re-delivers the transaction's latest event as a new delivery. */
  async resend(auth: AuthContext, walletId: string, transactionId: string): Promise<WebhookLogEntry> {
    await this.transactions.require(auth, walletId, transactionId);
    const id = await this.db.transaction().execute(async (tx) => {
      const event = await store.latestEventOfTransaction(tx, transactionId);
      if (!event) throw new BusinessRuleError('NO_EVENT', 'This transaction has no event to resend yet');
      const url = await this.requireUrl(tx, walletId);
      return this.createDelivery(tx, {
        eventId: event.id,
        walletId,
        transactionId,
        name: event.name,
        reference: event.reference,
        data: event.payload,
        url,
      });
    });
    return this.one(walletId, id);
  }

  /** Sends a signed `webhook.test` event through the real pipeline. */
  async sendTest(auth: AuthContext, walletId: string): Promise<WebhookLogEntry> {
    const wallet = await this.wallets.require(auth, walletId);
    const view = this.wallets.present(wallet);
    const now = this.clock.now().toISOString();
    const reference = shortReference();
    const data = {
      id: uuidv7(),
      reference,
      type: 'TEST',
      status: 'SUCCESS',
      network: view.network,
      wallet: view,
      createdAt: now,
      updatedAt: now,
    };
    const id = await this.db.transaction().execute(async (tx) => {
      const url = await this.requireUrl(tx, walletId);
      const eventId = uuidv7();
      await store.insertEvent(tx, {
        id: eventId,
        walletId,
        transactionId: null,
        name: TEST_EVENT,
        reference,
        payload: data,
        createdAt: this.clock.now(),
      });
      return this.createDelivery(tx, { eventId, walletId, transactionId: null, name: TEST_EVENT, reference, data, url });
    });
    return this.one(walletId, id);
  }

  /** One delivery of the wallet, for callers that already checked access. */
  async one(walletId: string, deliveryId: string): Promise<WebhookLogEntry> {
    const row = await store.findDelivery(this.db, walletId, deliveryId);
    if (!row) throw new NotFoundError('Webhook delivery');
    const [entry] = await this.present([row]);
    return entry!;
  }

  private async requireUrl(tx: DbConn, walletId: string): Promise<string> {
    const url = await store.walletWebhookUrl(tx, walletId);
    if (!url) throw new BusinessRuleError('WEBHOOK_URL_NOT_SET', 'Set webhookUrl on the wallet (PATCH /v1/wallets/{walletId}) first');
    return url;
  }

  private async present(rows: store.DeliveryRow[]): Promise<WebhookLogEntry[]> {
    const attempts = await store.attemptsOf(
      this.db,
      rows.map((r) => r.id),
    );
    return rows.map((r) => ({
      id: r.id,
      event: r.event,
      payload: (JSON.parse(r.body) as { data: unknown }).data,
      reference: r.reference,
      attempts: r.attempts,
      status: r.status,
      response: r.response,
      url: r.url,
      transactionId: r.transaction_id,
      lastStatusCode: r.last_status_code,
      lastAttemptAt: r.last_attempt_at?.toISOString() ?? null,
      nextAttemptAt: r.status === 'pending' ? (r.next_attempt_at?.toISOString() ?? null) : null,
      history: attempts
        .filter((a) => a.delivery_id === r.id)
        .map((a) => ({
          attempt: a.attempt,
          attemptedAt: a.attempted_at.toISOString(),
          statusCode: a.status_code,
          error: a.error,
          durationMs: a.duration_ms,
        })),
      createdAt: r.created_at.toISOString(),
      updatedAt: r.updated_at.toISOString(),
    }));
  }
}
