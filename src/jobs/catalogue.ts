/**
 * The job catalogue: every task the worker runs, by name, with the TypeBox schema of its
 * payload. tasks.ts runs each task through `task()`, which checks the payload first: a job
 * whose payload does not match fails with a JobPayloadError naming the task and the
 * fields (graphile-worker records it as the job's last_error), instead of running on
 * guessed values. Jobs are queued through store.ts (`jobs.<name>.add(tx, payload)`), built
 * from this catalogue, so a job's name is written here only and its payload is typed by its
 * schema; catalogue.test.ts checks that nothing else queues a job or spells a job's name.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

const Id = Type.String({ minLength: 1 });
/** Scheduled tasks (crontab, interval loops) take no payload of ours (graphile-worker adds `_cron`). */
const None = Type.Object({});
/** The deposits an event named (the indexer confirms a whole range at once). */
const DepositIds = Type.Array(Id, { minItems: 1 });
/** Which confirmation poll this is (0, 1, ...): spaces the polls out. */
const Poll = Type.Optional(Type.Integer({ minimum: 0 }));

export const JOBS = {
  /** One run of a scheduled settlement (settlements/store.ts queues them per wallet). */
  settlement_run: Type.Object({ runId: Id }),
  /** Scheduled (every minute): queues a run for each settlement period that has closed. */
  settlements_tick: None,
  /** One webhook delivery (retries, the sweep) or a batch (every delivery one transaction wrote). */
  deliver_webhook: Type.Union([Type.Object({ batch: Id }), Type.Object({ deliveryId: Id })]),
  /** Sweeps one asset of one child address to the master (sweeps/store.ts). */
  sweep_address: Type.Object({ addressId: Id, assetId: Id }),
  /** Re-queues webhook deliveries whose job was lost. */
  webhooks_sweep: None,
  /** Executes one auto-settlement (autosettlements/store.ts). */
  auto_settle: Type.Object({ id: Id }),
  /** Scheduled (every 5 minutes): re-queues auto-settlements whose job ran out of attempts. */
  auto_settle_resume: None,
  /** Ends a final API swap with what its recipient received (swaps/flow.ts). */
  swap_settle: Type.Object({ id: Id }),
  /** Scheduled (every 5 minutes): gives the REVIVED jobs that ran out of attempts a fresh set (store.ts reviveExhausted). */
  jobs_revive: None,
  /** Ends a staking operation mined and final (`depth`: its block's depth then) with what the chain did (staking/service.ts). */
  staking_settle: Type.Object({ id: Id, depth: Type.Optional(Type.Integer({ minimum: 1 })) }),
  /** Signs and broadcasts one outbound row (outbound/store.ts). */
  outbound_send: Type.Object({ id: Id }),
  /** Scheduled (hourly): forgets Idempotency-Keys older than 24 hours. */
  idempotency_prune: None,
  /** Follows a signed outbound row: its receipt (re-broadcasting, replacing), then its depth until final. */
  outbound_track: Type.Object({ id: Id, poll: Poll }),
  /**
   * One depth check of a settled outbound row. No longer queued (outbound_track counts the
   * depth now); kept so that jobs queued before that change still run.
   */
  outbound_confirm: Type.Object({ id: Id, poll: Poll }),
  // The work that follows deposit.confirmed and sweep.completed (src/subscriptions.ts),
  // queued in the transaction that confirmed the deposits or completed the sweep.
  /** Queues sweep_address where auto-sweep applies to confirmed deposits (sweeps/store.ts). */
  sweep_deposits: Type.Object({ depositIds: DepositIds }),
  /** Auto-settlement of confirmed deposits that stay where they landed (autosettlements/store.ts). */
  auto_settle_deposits: Type.Object({ depositIds: DepositIds }),
  /** Auto-settlement of deposits a sweep moved to the master (autosettlements/store.ts). */
  auto_settle_swept: Type.Object({ depositIds: DepositIds }),
  /** INSTANT settlement runs for confirmed deposits made to the master (settlements/store.ts). */
  settle_deposits: Type.Object({ depositIds: DepositIds }),
  /** INSTANT settlement runs for deposits a sweep moved to the master (settlements/store.ts). */
  settle_swept: Type.Object({ depositIds: DepositIds }),
  /** At its time to live: an approval request still open is expired, its payout CANCELLED (policies/approvals.ts). */
  approval_expire: Type.Object({ id: Id }),
  /** Scheduled (every minute): expires open approval requests past their time to live whose job was lost. */
  approvals_expire_due: None,
  /**
   * Deposits to checkout sessions' addresses, recorded or confirmed (checkouts/store.ts): each
   * attached to its session with `seenAt` (the service clock when the indexer's transaction
   * recorded it), then the sessions' states moved on.
   */
  checkout_payments: Type.Object({ depositIds: DepositIds, seenAt: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T' }) }),
  /** Scheduled (every minute): sessions whose deadline or monitoring window passed are expired or invalid. */
  checkouts_tick: None,
  /** AML screening of deposits whose providers did not answer when they were found (aml/store.ts); retried until they answer. */
  aml_rescreen_deposits: Type.Object({ depositIds: DepositIds }),
} satisfies Record<string, TSchema>;

export type JobName = keyof typeof JOBS;

/** Every job's name, by name: what code that names a job without queueing it writes (a periodic loop, a log). */
export const JOB = Object.freeze(Object.fromEntries(Object.keys(JOBS).map((name) => [name, name]))) as { readonly [N in JobName]: N };

/**
 * The scheduled jobs and their crontab schedules (tasks.ts turns them into graphile-worker
 * crontab lines: each time slot runs once across all workers).
 */
export const SCHEDULES: { readonly [N in JobName]?: string } = {
  // Scheduled settlements: a run for each period that has closed (UTC), once per beneficiary and period.
  settlements_tick: '* * * * *',
  // Idempotency-Keys older than 24 hours are forgotten (hourly; a missed hour is not replayed).
  idempotency_prune: '17 * * * *',
  // Auto-settlements whose job was lost (ran out of attempts while an RPC was down) are queued again.
  auto_settle_resume: '*/5 * * * *',
  // Jobs whose work must end (REVIVED) that ran out of attempts while a node was down run again.
  jobs_revive: '*/5 * * * *',
  // Approval requests past their time to live whose own job was lost (the job at expires_at is the usual path).
  approvals_expire_due: '* * * * *',
  // Checkout sessions past their deadline (expired) or monitoring window (invalid), by the service clock.
  checkouts_tick: '* * * * *',
};
/**
 * Jobs whose work must end however long a node stays away, with nothing else to queue them
 * again (the outbound pipeline has sweepStuck, auto-settlements auto_settle_resume, settlement
 * runs their requeue): the last step of a move whose funds have left (a swap's or a staking
 * operation's outcome read back from the chain), the sweep of confirmed deposits (their funds
 * would sit at the child until another deposit came), the re-screen of deposits a provider did
 * not answer for (held until then). Out of graphile-worker's 25 attempts (about four days of
 * backoff), such a job was lost for good; jobs_revive gives it a fresh set, its payload as it
 * was. Each is idempotent: run again, it does only what is still to do.
 */
export const REVIVED: readonly JobName[] = ['swap_settle', 'staking_settle', 'sweep_deposits', 'sweep_address', 'aml_rescreen_deposits'];

export type JobPayload<N extends JobName> = Static<(typeof JOBS)[N]>;

/** A job's payload does not match its task's schema: the job fails, nothing runs. */
export class JobPayloadError extends Error {
  constructor(
    readonly task: JobName,
    readonly problems: string[],
  ) {
    super(`Job ${task}: malformed payload (${problems.join('; ')})`);
    this.name = 'JobPayloadError';
  }
}

const checkers = Object.fromEntries(Object.entries(JOBS).map(([name, schema]) => [name, TypeCompiler.Compile(schema)])) as {
  [N in JobName]: ReturnType<typeof TypeCompiler.Compile<(typeof JOBS)[N]>>;
};

/** The payload, typed, or a JobPayloadError saying what is wrong with it. */
export function parsePayload<N extends JobName>(name: N, payload: unknown): JobPayload<N> {
  const checker = checkers[name];
  const value = payload ?? {};
  if (checker.Check(value)) return value as JobPayload<N>;
  const problems = [...checker.Errors(value)].slice(0, 5).map((e) => `${e.path || '/'} ${e.message}`);
  throw new JobPayloadError(name, problems.length ? problems : ['does not match']);
}

/** A task that runs `run` on the checked payload (the shape graphile-worker's TaskList takes). */
export function task<N extends JobName>(name: N, run: (payload: JobPayload<N>) => Promise<void>): (payload: unknown) => Promise<void> {
  return async (payload) => run(parsePayload(name, payload));
}
