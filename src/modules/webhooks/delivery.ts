/**
 * Making webhook attempts, many at a time. A job names one delivery or one batch (every
 * delivery a database transaction wrote); attempts are claimed in groups with one
 * statement, sent with bounded concurrency over keep-alive connections, and their outcomes
 * are recorded in groups with one statement. The per-attempt round trips (lock, update,
 * insert, key read, two record updates, commits) are what kept throughput at a fraction of
 * what the HTTP side can do.
 */
import type { Db } from '../../db/pool.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { signatureHeaders } from '../../lib/webhook-signature.js';
import type { ApiKeyService } from '../apikeys/service.js';
import type { WebhookSecretService } from './secrets.js';
import { FINAL_ATTEMPT_GRACE_MS, RETRY_DELAYS_MS } from './schedule.js';
import type { SendResult, WebhookSender } from './sender.js';
import * as attempts from './attempts-store.js';
import { JobShares, type Turn } from './job-shares.js';

/** Attempts one batch job keeps in flight. */
export const BATCH_WINDOW = 32;
/**
 * Attempts in flight in this process across all jobs: more only queues requests inside the
 * HTTP agent (64 sockets per host), where the 15 s timeout would already be running.
 */
export const MAX_IN_FLIGHT = 64;
export { PER_BUSINESS_JOBS } from './job-shares.js';
/**
 * Attempts of one business this process keeps in flight at most, across all its jobs: the
 * rest of MAX_IN_FLIGHT stays free for other businesses. A batch job that has started goes
 * on (one burst runs its whole window), but a business with two bursts whose receiver hangs
 * no longer holds every slot while other businesses' events wait out its timeouts.
 */
export const PER_BUSINESS_IN_FLIGHT = MAX_IN_FLIGHT - BATCH_WINDOW / 2;
export const DEFER_MS = 1_000;
/** Outcomes recorded per statement at most. */
const RECORD_GROUP = 500;
/** Wallets whose signing secret is kept in memory at most. */
const KEY_CACHE_SIZE = 10_000;

interface KeyEntry {
  keyId: string;
  secret: Promise<string | null>;
}

interface PendingOutcome {
  outcome: attempts.AttemptOutcome;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class DeliveryRunner {
  /**
   * The opened signing secret per wallet, valid only for the key row it was opened from: the
   * claim statement returns the wallet's live key id with every attempt, so a regenerated
   * (or revoked) key is noticed on the very next attempt, in every process, with no
   * invalidation messages or TTL.
   */
  readonly #keys = new Map<string, KeyEntry>();
  #pending: PendingOutcome[] = [];
  #flushing = false;
  #active = 0;
  /** Attempts in flight per business, this process. */
  readonly #activeOf = new Map<string, number>();
  /** Slots held by claims in progress (their attempts are not active yet). */
  #reserved = 0;
  #capacityWaiters: (() => void)[] = [];
  /** Delivery jobs per business and the turns of share-weighing claims (job-shares.ts). */
  readonly #shares = new JobShares();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly apiKeys: ApiKeyService,
    private readonly secrets: WebhookSecretService,
    private readonly sender: WebhookSender,
    private readonly logger: Logger,
  ) {}

  /** The next attempt of one delivery, if it is due ('deferred': its business is at its share, see PER_BUSINESS_JOBS). */
  async deliverOne(deliveryId: string): Promise<'sent' | 'not-due' | 'deferred'> {
    const turn = await this.#shares.turn();
    let row: attempts.ClaimedAttempt | undefined;
    let done: () => void;
    try {
      [row] = (await this.claim({ ids: [deliveryId] }, 1, turn.skip)).attempts;
      if (!row) return (await this.heldBack({ ids: [deliveryId] }, turn.skip)) ? 'deferred' : 'not-due';
      done = this.#shares.jobOf([row.business_id]);
    } finally {
      turn.release();
    }
    try {
      await this.attempt(row);
    } finally {
      done();
    }
    return 'sent';
  }

  /**
   * Every due delivery of a batch, at most BATCH_WINDOW in flight; returns how many attempts
   * were made. Deliveries another worker holds, or that are not due, are left alone (their
   * own jobs or the sweep cover them).
   */
  async deliverBatch(batch: string): Promise<number | 'deferred'> {
    const inFlight = new Set<Promise<void>>();
    // This batch's attempts in flight, per business.
    const mine = new Map<string, number>();
    let made = 0;
    // Only the first claim weighs the businesses' shares: a job that started goes on. Its turn
    // (JobShares.turn) is held across that claim alone, never while the job waits for room: turns
    // are few, and a job holding one while the process is full of a hanging receiver's
    // attempts would hold up every other job's first claim, any business's, until those ended.
    let weighs = true;
    let turn: Turn | null = null;
    const letGo = () => {
      turn?.release();
      turn = null;
    };
    let done: (() => void) | null = null;
    let exhausted = false;
    let failure: unknown = null;
    // Businesses at their share whose deliveries are all this batch has left due (the last
    // claim, leaving them out, found nothing): no claim is worth making until one of them is
    // under its share again. Without this, every attempt ending in the process woke each such
    // job to a claim and a heldBack check that found the same.
    let heldFor: string[] | null = null;
    try {
      while (!failure) {
        if (weighs && turn === null) turn = await this.#shares.turn();
        const skip = weighs ? turn!.skip : null;
        const room = Math.min(BATCH_WINDOW - inFlight.size, MAX_IN_FLIGHT - this.#active - this.#reserved);
        // Claim in groups (half a window at least), not one statement per finished attempt.
        if (!exhausted && room > 0 && (room >= BATCH_WINDOW / 2 || inFlight.size === 0)) {
          // Businesses at their share of the process's attempts are left out, and the claim is
          // no bigger than the others' share allows (claims still awaited may all be theirs).
          const plan = this.sharePlan(room);
          if (heldFor !== null && inFlight.size === 0 && heldFor.every((id) => plan.full.includes(id))) {
            letGo();
            await this.waitForRoom(inFlight);
            continue;
          }
          heldFor = null;
          // Near a business's share the room left is small: wait for half a window (while
          // some of this batch's attempts are in flight), not a claim per finished attempt.
          // Only when that business's attempts include this batch's: the end of those makes
          // the room larger; another business's load would keep it small while the batch's
          // other deliveries waited behind its slowest attempt.
          const ownHeaviest = plan.heaviest !== null && (mine.get(plan.heaviest) ?? 0) > 0;
          if (plan.room < 1 || (plan.room < BATCH_WINDOW / 2 && inFlight.size > 0 && ownHeaviest)) {
            letGo();
            await this.waitForRoom(inFlight);
            continue;
          }
          // Held while the claim is awaited, so concurrent batches cannot overshoot the budget.
          this.#reserved += plan.room;
          let rows: attempts.ClaimedAttempt[];
          // Deliveries the claim closed instead (their wallet has no URL any more): they took room too.
          let closed: number;
          try {
            ({ attempts: rows, closed } = await this.claim({ batch }, plan.room, [...new Set([...(skip ?? []), ...plan.full])]));
          } finally {
            this.#reserved -= plan.room;
            this.wakeWaiters();
          }
          const weighed = skip !== null && skip.length > 0;
          if (weighed && rows.length === 0) {
            if (await this.heldBack({ batch }, skip!)) return 'deferred';
            // Nothing of theirs is due either: nothing is (but what it closed, or what is left
            // out as full, both seen to below). The job still weighs, so without this its next
            // claim would leave the same businesses out and find the same, for ever.
            if (closed === 0 && plan.full.length === 0) exhausted = true;
          }
          // The job counts from its first claim that took some; until then each claim weighs
          // (one that came back empty, its businesses full of other jobs' attempts, counted no
          // job: the next would then have run one past the share uncounted).
          if (weighs && rows.length > 0) {
            done = this.#shares.jobOf(rows.map((r) => r.business_id));
            weighs = false;
          }
          letGo();
          // A first claim that left some out for their share is no sign of the end: claim again.
          // Nor is one whose room went partly to deliveries it closed.
          if (rows.length + closed < plan.room && !weighed && plan.full.length === 0) exhausted = true;
          // Only attempts of businesses at their share are left: wait until some of theirs end.
          if (rows.length === 0 && plan.full.length > 0 && inFlight.size === 0) {
            if (await this.heldBack({ batch }, plan.full)) {
              heldFor = plan.full;
              await this.waitForRoom(inFlight);
            } else exhausted = true;
            continue;
          }
          made += rows.length;
          for (const row of rows) {
            mine.set(row.business_id, (mine.get(row.business_id) ?? 0) + 1);
            const p: Promise<void> = this.attempt(row)
              .catch((err: unknown) => void (failure ??= err))
              .finally(() => {
                inFlight.delete(p);
                mine.set(row.business_id, mine.get(row.business_id)! - 1);
              });
            inFlight.add(p);
          }
        }
        if (inFlight.size > 0) await Promise.race(inFlight);
        else if (exhausted) break;
        // Other jobs use the whole budget: wait until one of their attempts ends.
        else if (room <= 0) {
          letGo();
          await new Promise<void>((resolve) => this.#capacityWaiters.push(resolve));
        }
      }
      await Promise.allSettled(inFlight);
    } finally {
      letGo();
      done?.();
    }
    // A recording failure: the job is retried; the claimed attempts already count and
    // their next slot is set, exactly as if this worker had died.
    if (failure) throw failure;
    return made;
  }

  /** Batches waiting for room in the process budget look again. */
  private wakeWaiters(): void {
    for (const wake of this.#capacityWaiters.splice(0)) wake();
  }

  /**
   * What the next claim may take under PER_BUSINESS_IN_FLIGHT: businesses at their share are
   * left out, and the claim is small enough that none of the others passes it.
   */
  private sharePlan(room: number): { room: number; full: string[]; heaviest: string | null } {
    const limit = PER_BUSINESS_IN_FLIGHT - this.#reserved;
    const full: string[] = [];
    let heaviest = 0;
    let heaviestId: string | null = null;
    for (const [id, n] of this.#activeOf) {
      if (n >= limit) full.push(id);
      else if (n > heaviest) [heaviest, heaviestId] = [n, id];
    }
    return { room: Math.min(room, limit - heaviest), full, heaviest: heaviestId };
  }

  /** Until an attempt or a claim of this process ends (or a moment passes: a wake may have come already). */
  private async waitForRoom(inFlight: Set<Promise<void>>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      ...inFlight,
      new Promise<void>((resolve) => this.#capacityWaiters.push(resolve)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, DEFER_MS))),
    ]);
    clearTimeout(timer);
  }

  private async heldBack(which: { ids?: string[]; batch?: string }, skip: string[]): Promise<boolean> {
    return skip.length > 0 && attempts.heldBack(this.db, { ...which, now: this.clock.now(), skipBusinesses: skip });
  }

  private claim(
    which: { ids?: string[]; batch?: string },
    limit: number,
    skip: string[] = [],
  ): Promise<{ attempts: attempts.ClaimedAttempt[]; closed: number }> {
    return attempts.claimAttempts(this.db, {
      ...which,
      skipBusinesses: skip,
      now: this.clock.now(),
      limit,
      retryDelaysMs: RETRY_DELAYS_MS,
      finalGraceMs: FINAL_ATTEMPT_GRACE_MS,
    });
  }

  /** Signs, sends and records one claimed attempt. */
  private async attempt(row: attempts.ClaimedAttempt): Promise<void> {
    this.#active++;
    this.#activeOf.set(row.business_id, (this.#activeOf.get(row.business_id) ?? 0) + 1);
    try {
      await this.attemptOnce(row);
    } finally {
      this.#active--;
      const left = this.#activeOf.get(row.business_id)! - 1;
      if (left > 0) this.#activeOf.set(row.business_id, left);
      else this.#activeOf.delete(row.business_id);
      this.wakeWaiters();
    }
  }

  private async attemptOnce(row: attempts.ClaimedAttempt): Promise<void> {
    // The attempt starts now (service clock): the signature carries this instant.
    const startedAt = this.clock.now();
    // The attempt is claimed (counted, its schedule moved on): a key that cannot be read now
    // (the vault, an HSM or KMS, the database failing for a moment) fails this attempt with
    // its reason in the log and its retry queued, as an unanswered request would. Thrown, it
    // left the attempt without an outcome and the delivery without a retry job.
    let keys: [string | null, Buffer[]];
    let keyError: string | null = null;
    try {
      keys = await Promise.all([row.key_id ? this.secret(row.wallet_id, row.key_id) : null, this.secrets.keys(row.secret_ids)]);
    } catch (err) {
      // The vault's message stays in the operator's log: the tenant reads the delivery log.
      this.logger.warn({ err, deliveryId: row.id, walletId: row.wallet_id }, 'webhook signing key could not be read');
      keys = [null, []];
      keyError = 'not sent: the signing key could not be read (the service logged why); the next attempt reads it again';
    }
    const [apiKey, secrets] = keys;
    const timestamp = Math.floor(startedAt.getTime() / 1000);
    const result: SendResult = apiKey
      ? await this.sender.send(
          row.url,
          row.body,
          signatureHeaders(row.body, { id: row.id, timestamp, apiKey, secrets, apiKeyStandard: row.api_key_signs }),
          row.network,
        )
      : { statusCode: null, response: null, error: keyError ?? 'the wallet has no live API key to sign with', ok: false, durationMs: 0 };
    const finishedAt = this.clock.now();
    const retries = row.attempt < row.max_attempts && !result.ok;
    const delay = RETRY_DELAYS_MS[row.attempt - 1] ?? 0;
    await this.record({
      deliveryId: row.id,
      attempt: row.attempt,
      status: result.ok ? 'success' : retries ? 'pending' : 'failed',
      statusCode: result.statusCode,
      response: result.response,
      error: result.error,
      durationMs: result.durationMs,
      finishedAt,
      // The job fires after the same delay in real time; the sweep catches anything the
      // queue loses, and the claim re-checks due-ness against the service clock.
      retryJobAt: retries ? new Date(Date.now() + Math.max(0, delay - (finishedAt.getTime() - startedAt.getTime()))) : null,
    });
    if (!result.ok) this.logger.info({ deliveryId: row.id, attempt: row.attempt, error: result.error }, 'webhook attempt failed');
  }

  private secret(walletId: string, keyId: string): Promise<string | null> {
    const cached = this.#keys.get(walletId);
    if (cached?.keyId === keyId) return cached.secret;
    // The live key may have changed again since the claim; the newest one is right to sign with.
    const secret = this.apiKeys.revealWalletKey(walletId);
    const entry = { keyId, secret };
    this.#keys.delete(walletId);
    if (this.#keys.size >= KEY_CACHE_SIZE) this.#keys.delete(this.#keys.keys().next().value!);
    this.#keys.set(walletId, entry);
    // A failed read is not kept: the next attempt reads again.
    secret.catch(() => this.#keys.get(walletId) === entry && this.#keys.delete(walletId));
    return secret;
  }

  /**
   * Records an outcome together with the others that finish meanwhile: one statement per
   * group, resolved once the group is committed.
   */
  private record(outcome: attempts.AttemptOutcome): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ outcome, resolve, reject });
      if (!this.#flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.#flushing = true;
    try {
      while (this.#pending.length) {
        const group = this.#pending.splice(0, RECORD_GROUP);
        try {
          await attempts.recordOutcomes(
            this.db,
            group.map((g) => g.outcome),
          );
          for (const g of group) g.resolve();
        } catch (err) {
          for (const g of group) g.reject(err);
        }
      }
    } finally {
      this.#flushing = false;
    }
  }
}
