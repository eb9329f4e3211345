/**
 * The webhook delivery log, as the API and the dashboard show it: a transaction's, a
 * wallet's and a business's deliveries with every attempt; a resend (the event delivered
 * again, a new log entry) and the signed test event. New deliveries join the calling
 * transaction's batch through the emitting side's plan (service.ts).
 */
import type { Static } from '@sinclair/typebox';
import type { Db, DbConn } from '../../db/pool.js';
import type { Clock } from '../../lib/clock.js';
import { BusinessRuleError, NotFoundError } from '../../lib/errors.js';
import { shortReference, uuidv7 } from '../../lib/ids.js';
import { pageMeta, type PageMeta } from '../../lib/schema.js';
import type { AuthContext } from '../apikeys/service.js';
import type { TransactionService, TransactionView } from '../transactions/service.js';
import type { WalletService } from '../wallets/service.js';
import * as logStore from './log-store.js';
import { MAX_ATTEMPTS } from './schedule.js';
import type { WebhookLogEntrySchema } from './schemas.js';
import * as store from './store.js';

export type WebhookLogEntry = Static<typeof WebhookLogEntrySchema>;

export const TEST_EVENT = 'webhook.test';

export interface WebhookLogDeps {
  db: Db;
  clock: Clock;
  wallets: WalletService;
  transactions: TransactionService;
  /** Where the next `count` deliveries written through `tx` go (WebhookService's batches). */
  plan(tx: DbConn, count: number): store.JobPlan;
}

export class WebhookLog {
  constructor(private readonly deps: WebhookLogDeps) {}

  async listForTransaction(auth: AuthContext, walletId: string, transactionId: string): Promise<WebhookLogEntry[]> {
    await this.deps.transactions.require(auth, walletId, transactionId);
    return this.present(await logStore.deliveriesOfTransaction(this.deps.db, walletId, transactionId));
  }

  async listForWallet(
    auth: AuthContext,
    walletId: string,
    page: number,
    limit: number,
  ): Promise<{ items: WebhookLogEntry[]; meta: PageMeta }> {
    await this.deps.wallets.require(auth, walletId);
    const [rows, total] = await Promise.all([
      logStore.deliveriesOfWallet(this.deps.db, walletId, (page - 1) * limit, limit),
      logStore.countDeliveriesOfWallet(this.deps.db, walletId),
    ]);
    const items = await this.present(rows);
    return { items, meta: pageMeta(page, limit, items.length, total) };
  }

  /** Re-delivers the transaction's latest event as a new delivery (same body, new log entry). */
  async resend(auth: AuthContext, walletId: string, transactionId: string): Promise<WebhookLogEntry> {
    await this.deps.transactions.require(auth, walletId, transactionId);
    const id = await this.deps.db.transaction().execute(async (tx) => {
      const event = await store.latestEventOfTransaction(tx, transactionId);
      if (!event) throw new BusinessRuleError('NO_EVENT', 'This transaction has no event to resend yet');
      return this.#deliverAgain(tx, event);
    });
    return this.one(walletId, id);
  }

  /** The deliveries of every wallet of the caller's business, newest first (the dashboard's delivery log). */
  async listForBusiness(
    auth: AuthContext,
    filter: { walletId?: string; status?: string; event?: string },
    page: number,
    limit: number,
  ): Promise<{ items: (WebhookLogEntry & { walletId: string })[]; meta: PageMeta }> {
    const { rows, total } = await logStore.deliveriesOfBusiness(
      this.deps.db,
      { businessId: auth.businessId, ...filter },
      (page - 1) * limit,
      limit,
    );
    const entries = await this.present(rows);
    const items = entries.map((e, i) => ({ ...e, walletId: rows[i]!.wallet_id }));
    return { items, meta: pageMeta(page, limit, items.length, total) };
  }

  /** Delivers the event of one delivery of the caller's business again, as a new delivery. */
  async resendDelivery(auth: AuthContext, deliveryId: string): Promise<WebhookLogEntry> {
    const { id, walletId } = await this.deps.db.transaction().execute(async (tx) => {
      const event = await logStore.eventOfDelivery(tx, auth.businessId, deliveryId);
      if (!event) throw new NotFoundError('Webhook delivery');
      if (auth.walletId !== null && auth.walletId !== event.wallet_id) throw new NotFoundError('Webhook delivery');
      return { id: await this.#deliverAgain(tx, event), walletId: event.wallet_id };
    });
    return this.one(walletId, id);
  }

  async #deliverAgain(tx: DbConn, event: store.EventRow): Promise<string> {
    const url = await this.requireUrl(tx, event.wallet_id);
    const deliveryId = uuidv7();
    await store.insertDeliveryOfEvent(tx, {
      deliveryId,
      eventId: event.id,
      url,
      // Events from before migration 006 carry no body: the delivery keeps its own copy, the
      // bytes the event was first delivered (and signed) with. Rebuilt from the payload only
      // when no delivery kept them: jsonb has its own key order, the same value in other bytes.
      body:
        event.body === null
          ? ((await store.firstDeliveryBody(tx, event.id)) ?? JSON.stringify({ event: event.name, data: event.payload }))
          : null,
      maxAttempts: MAX_ATTEMPTS,
      now: this.deps.clock.now(),
      job: this.deps.plan(tx, 1),
    });
    return deliveryId;
  }

  /**
   * `resend` as the described service answers it: the Transaction, with the new delivery
   * (its log entry) beside it.
   */
  async resendTransaction(
    auth: AuthContext,
    walletId: string,
    transactionId: string,
  ): Promise<{ transaction: TransactionView; webhookLog: WebhookLogEntry }> {
    const webhookLog = await this.resend(auth, walletId, transactionId);
    return { transaction: await this.deps.transactions.get(auth, walletId, transactionId), webhookLog };
  }

  /** Sends a signed `webhook.test` event through the real pipeline. */
  async sendTest(auth: AuthContext, walletId: string): Promise<WebhookLogEntry> {
    const wallet = await this.deps.wallets.require(auth, walletId);
    const view = this.deps.wallets.present(wallet);
    const now = this.deps.clock.now().toISOString();
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
    const id = await this.deps.db.transaction().execute(async (tx) => {
      await this.requireUrl(tx, walletId);
      const deliveryId = await store.insertEventWithDelivery(tx, {
        eventId: uuidv7(),
        deliveryId: uuidv7(),
        walletId,
        transactionId: null,
        name: TEST_EVENT,
        reference,
        body: JSON.stringify({ event: TEST_EVENT, data }),
        maxAttempts: MAX_ATTEMPTS,
        now: this.deps.clock.now(),
        job: this.deps.plan(tx, 1),
      });
      // The URL taken off by a PATCH committed since requireUrl read it: no delivery was
      // written. Refused as if it had been read so (the event rolls back with this).
      if (!deliveryId) throw urlNotSet();
      return deliveryId;
    });
    return this.one(walletId, id);
  }

  /** One delivery of the wallet, for callers that already checked access. */
  async one(walletId: string, deliveryId: string): Promise<WebhookLogEntry> {
    const row = await logStore.findDelivery(this.deps.db, walletId, deliveryId);
    if (!row) throw new NotFoundError('Webhook delivery');
    const [entry] = await this.present([row]);
    return entry!;
  }

  private async requireUrl(tx: DbConn, walletId: string): Promise<string> {
    const url = await store.walletWebhookUrl(tx, walletId);
    if (!url) throw urlNotSet();
    return url;
  }

  private async present(rows: logStore.DeliveryRow[]): Promise<WebhookLogEntry[]> {
    const attempts = await logStore.attemptsOf(
      this.deps.db,
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

const urlNotSet = () => new BusinessRuleError('WEBHOOK_URL_NOT_SET', 'Set webhookUrl on the wallet (PATCH /v1/wallets/{walletId}) first');
