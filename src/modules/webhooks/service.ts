/**
 * Events and webhooks. `emit` writes the event (and, when the wallet has a URL, its
 * delivery and the job that makes it) inside the caller's transaction: the outbox. Every
 * delivery one transaction writes joins one batch with one job (up to BATCH_MAX), so a
 * burst is claimed, sent and recorded in groups by DeliveryRunner (delivery.ts). The log of
 * deliveries, resends and the test event are WebhookLog's (log.ts).
 */
import type { Db, DbConn } from '../../db/pool.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { KeyVault } from '../../keys/vault.js';
import { uuidv7 } from '../../lib/ids.js';
import type { ApiKeyService } from '../apikeys/service.js';
import type { TransactionRow, TransactionService, TransactionView } from '../transactions/service.js';
import type { WalletService } from '../wallets/service.js';
import { DEFER_MS, DeliveryRunner } from './delivery.js';
import { MAX_ATTEMPTS } from './schedule.js';
import { WebhookLog } from './log.js';
import type { WebhookSender } from './sender.js';
import { WebhookSecretService } from './secrets.js';
import * as attempts from './attempts-store.js';
import * as store from './store.js';

export { TEST_EVENT, type WebhookLogEntry } from './log.js';
/** Transactions loaded and events written per statement (bounds memory on big ranges). */
const EMIT_CHUNK = 100;
/** Encoded event chunks queued on a transaction's connection at most (see eventWriter). */
const QUEUED_CHUNKS = 2;
/** Deliveries per batch job: a huge transaction still spreads over several workers. */
export const BATCH_MAX = 500;
/** How long the sweep leaves a batch's first attempts to its own job. */
const SWEEP_BATCH_GRACE_MS = 2 * 60_000;

/** One event of `EventWriter.writeStages`: its name, and the view a row sends with it (null: none). */
export interface EventStage {
  name: string;
  view(v: TransactionView): TransactionView | null;
  /**
   * Optional: `view(v)` as JSON.stringify writes it, derived from `json`, the JSON of `v`
   * (written once per row for all the stages: the bodies are ~4 KB each); null when it
   * cannot be derived (the view is then written by JSON.stringify). Must equal
   * JSON.stringify(view(v)) byte for byte whenever view(v) is not null.
   */
  json?(json: string, v: TransactionView): string | null;
}

/** Event inserts queued in order on one transaction (`WebhookService.eventWriter`). */
export interface EventWriter {
  /** Presents `rows` a chunk at a time and queues each stage's events of the chunk. */
  writeStages(rows: TransactionRow[], present: (row: TransactionRow) => TransactionView, stages: EventStage[]): Promise<void>;
  /** Settles when every queued insert has; rejects with the first failure. */
  finish(): Promise<void>;
}

interface BatchState {
  id: string;
  size: number;
}

export class WebhookService {
  readonly runner: DeliveryRunner;
  /** Per-wallet signing secrets of the Standard Webhooks signature. */
  readonly secrets: WebhookSecretService;
  /** The delivery log: a transaction's, a wallet's, a business's deliveries; resends and the test event (log.ts). */
  readonly log: WebhookLog;
  /** The open batch of each live transaction (gone with the transaction object). */
  readonly #batches = new WeakMap<object, BatchState>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    vault: KeyVault,
    wallets: WalletService,
    apiKeys: ApiKeyService,
    private readonly transactions: TransactionService,
    sender: WebhookSender,
    logger: Logger,
  ) {
    this.secrets = new WebhookSecretService(db, clock, vault, wallets);
    this.runner = new DeliveryRunner(db, clock, apiKeys, this.secrets, sender, logger);
    this.log = new WebhookLog({ db, clock, wallets, transactions, plan: (tx, count) => this.plan(tx, count) });
  }

  /**
   * Where the next `count` deliveries written through `tx` go: the transaction's open batch,
   * whose job the first statement writing a delivery of it queues (store.ts). Outside a
   * transaction every delivery gets its own job (a batch could then outlive the job that
   * drains it).
   */
  private plan(tx: DbConn, count: number): store.JobPlan {
    if (!tx.isTransaction) return { batch: null };
    let state = this.#batches.get(tx);
    if (!state || state.size + count > BATCH_MAX) this.#batches.set(tx, (state = { id: uuidv7(), size: 0 }));
    state.size += count;
    return { batch: state.id };
  }

  /** Records `name` for a transaction, with the Transaction as it is inside `tx`. */
  async emitForTransaction(tx: DbConn, transactionId: string, name: string): Promise<void> {
    await this.emitForTransactions(tx, [transactionId], name);
  }

  /**
   * Records `name` for many transactions with a constant number of statements per chunk
   * (the indexer confirms thousands of deposits in one range).
   */
  async emitForTransactions(tx: DbConn, transactionIds: string[], name: string): Promise<void> {
    // In chunks: each payload is a full Transaction; only one chunk is in memory at a time.
    let inflight: Promise<void> = Promise.resolve();
    try {
      for (let i = 0; i < transactionIds.length; i += EMIT_CHUNK) {
        inflight = this.emitViews(tx, await this.transactions.loadMany(transactionIds.slice(i, i + EMIT_CHUNK), tx), name, inflight);
      }
    } catch (err) {
      await inflight; // a failed insert aborted the transaction first: report that
      throw err;
    }
    await inflight;
  }

  /** See `TransactionService.presenterFor` (views of rows without a query per chunk). */
  presenterFor(
    refs: Pick<TransactionRow, 'wallet_id' | 'address_id'>[],
    db: DbConn = this.db,
  ): Promise<(row: TransactionRow) => TransactionView> {
    return this.transactions.presenterFor(refs, db);
  }

  /**
   * Queues event inserts on `tx` one after another, in call order, while the caller goes on
   * (see `emitViews`). The caller must await `finish()` before its transaction commits.
   */
  eventWriter(tx: DbConn): EventWriter {
    let inflight: Promise<void> = Promise.resolve();
    // One promise per chunk written and not yet known to be done.
    const queued: Promise<void>[] = [];
    return {
      writeStages: async (rows, present, stages) => {
        for (let i = 0; i < rows.length; i += EMIT_CHUNK) {
          // At most QUEUED_CHUNKS encoded chunks wait for the connection (their bodies take
          // ~0.4 MB each): building further ahead only holds memory, the database writes
          // one statement at a time. A failed insert is thrown here.
          while (queued.length >= QUEUED_CHUNKS) await queued.shift();
          // Let statements already queued (this chunk's, another insert) leave before building
          // the next chunk: PostgreSQL runs them while this process builds.
          await new Promise((resolve) => setImmediate(resolve));
          const views = rows.slice(i, i + EMIT_CHUNK).map(present);
          const texts = stages.some((s) => s.json) ? views.map((v) => JSON.stringify(v)) : null;
          for (const stage of stages) {
            const picked: TransactionView[] = [];
            const json: (string | null)[] = [];
            views.forEach((v, j) => {
              const view = stage.view(v);
              if (!view) return;
              picked.push(view);
              json.push(texts && stage.json ? stage.json(texts[j]!, v) : null);
            });
            if (picked.length) inflight = this.emitViews(tx, picked, stage.name, inflight, json);
          }
          queued.push(inflight);
        }
      },
      finish: () => inflight,
    };
  }

  /**
   * Writes the events of `views` after those queued before (`before`), and
   * returns without waiting for them: the caller builds the next chunk while PostgreSQL
   * writes this one (node and the database then work at the same time instead of taking
   * turns). The statements still run one after another, in order, on the transaction's
   * connection; the caller awaits the last one before its transaction commits, and any
   * failure still aborts the transaction.
   */
  private emitViews(tx: DbConn, views: TransactionView[], name: string, before: Promise<void>, json?: (string | null)[]): Promise<void> {
    // Encoded and planned now, in call order, so batch ids are handed out as without overlap.
    // A batch holds at most BATCH_MAX: split where a batch fills up.
    const parts: Parameters<typeof store.insertEventsWithDeliveries>[1][] = [];
    for (let i = 0; i < views.length;) {
      const state = tx.isTransaction ? this.#batches.get(tx) : undefined;
      const room = state && state.size < BATCH_MAX ? BATCH_MAX - state.size : BATCH_MAX;
      const part = views.slice(i, i + room);
      const rows = encodeRows(name, part, json?.slice(i, i + part.length));
      parts.push({ name, rows, maxAttempts: MAX_ATTEMPTS, now: this.clock.now(), job: this.plan(tx, part.length) });
      i += part.length;
    }
    // In a transaction, queued now: its one connection runs statements in the order they
    // were queued, each as soon as the previous one completes. Elsewhere (a pool) in turn.
    const sent = tx.isTransaction ? parts.map((p) => store.insertEventsWithDeliveries(tx, p)) : null;
    for (const s of sent ?? []) s.catch(() => {}); // awaited in order below
    const done = (async () => {
      await before;
      if (sent) for (const s of sent) await s;
      else for (const p of parts) await store.insertEventsWithDeliveries(tx, p);
    })();
    // Awaited by the caller later; until then a failure must not count as unhandled.
    done.catch(() => {});
    return done;
  }

  /** Must run inside the transaction of the state change it reports. */
  async emit(
    tx: DbConn,
    e: { walletId: string; transactionId: string | null; name: string; reference: string; data: unknown; test?: boolean },
  ): Promise<string> {
    const eventId = uuidv7();
    await store.insertEventWithDelivery(tx, {
      eventId,
      deliveryId: uuidv7(),
      walletId: e.walletId,
      transactionId: e.transactionId,
      name: e.name,
      reference: e.reference,
      // A test event (webhooks trigger) says so in the body, beside the usual two fields.
      body: JSON.stringify(e.test ? { event: e.name, data: e.data, test: true } : { event: e.name, data: e.data }),
      maxAttempts: MAX_ATTEMPTS,
      now: this.clock.now(),
      job: this.plan(tx, 1),
    });
    return eventId;
  }

  /**
   * Makes the next attempt of a delivery if it is due. Safe to call any number of times
   * from any number of workers: the claim statement's row lock and the unique (delivery,
   * attempt) key let exactly one caller make each attempt.
   */
  async deliver(deliveryId: string): Promise<'sent' | 'not-due' | 'deferred'> {
    const result = await this.runner.deliverOne(deliveryId);
    // Its business runs its share of delivery jobs in this process: the job comes back shortly.
    if (result === 'deferred') await store.enqueueDeliveryJob(this.db, deliveryId, new Date(Date.now() + DEFER_MS));
    return result;
  }

  /** Makes the due attempts of a batch (one job per transaction that wrote deliveries). */
  async deliverBatch(batch: string): Promise<number | 'deferred'> {
    const result = await this.runner.deliverBatch(batch);
    if (result === 'deferred') await store.enqueueBatchJob(this.db, batch, new Date(Date.now() + DEFER_MS));
    return result;
  }

  /**
   * Finds deliveries due by the service clock and queues them; fails deliveries whose
   * final attempt never reported back. Runs periodically, and after a restart. A delivery
   * that is also in a batch cannot be attempted twice: whichever claims it first moves its
   * schedule on, and the other finds it not due. First attempts of a batch are left to its
   * job for SWEEP_BATCH_GRACE_MS (the job is only lost if the queue itself loses it).
   */
  async sweep(limit = 500): Promise<number> {
    const now = this.clock.now();
    const due = await attempts.dueDeliveries(this.db, now, limit, SWEEP_BATCH_GRACE_MS);
    for (const d of due) {
      if (d.attempts >= d.max_attempts) await attempts.failAbandoned(this.db, d.id, now);
      else await store.enqueueDeliveryJob(this.db, d.id, new Date());
    }
    return due.length;
  }
}

/**
 * The event rows of some Transactions, already encoded: the views are garbage by the time
 * the insert is awaited, so a big range does not carry them into V8's old generation.
 * `json[i]`, when given and not null: views[i] as JSON.stringify writes it.
 */
function encodeRows(name: string, views: TransactionView[], json?: (string | null)[]): store.EncodedEventRows {
  return store.encodeEventRows(
    name,
    views.map((data, i) => ({
      ...(json?.[i] != null ? { json: json[i] } : {}),
      event_id: uuidv7(),
      delivery_id: uuidv7(),
      wallet_id: data.wallet.id,
      transaction_id: data.id,
      reference: data.reference,
      data,
    })),
  );
}
