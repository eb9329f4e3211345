/**
 * The job queue's SQL: the one place that writes `graphile_worker.add_job(s)`, built from the
 * job catalogue (catalogue.ts), so a job is queued by its catalogue entry, typed:
 *
 *   await jobs.outbound_send.add(tx, { id }, { key: jobs.outbound_send.key(id), keyMode: 'preserve_run_at' });
 *
 * The payload is checked against the job's schema at compile time (JobPayload) and no store
 * writes a job's name. A job is queued in the connection it is given: in a transaction it
 * commits with the rows that need it, or not at all (the outbox), which is why every enqueuer
 * takes the caller's `tx`. Statements that queue one job per row of a query (deliveries,
 * settlement runs, sweeps) use `addSql` or `addAllSql`: the same call as an SQL expression
 * whose payload fields are SQL expressions over the query's rows.
 */
import { sql, type RawBuilder } from 'kysely';
import type { DbConn } from '../db/pool.js';
import { JOBS, type JobName, type JobPayload } from './catalogue.js';

/** An SQL expression, or a value bound as a parameter. */
type SqlValue = RawBuilder<unknown> | string | number | Date | null;

/** Each field of a job's payload as an SQL expression (per alternative of a union payload). */
export type PayloadSql<N extends JobName> =
  JobPayload<N> extends infer P ? (P extends object ? { [K in keyof P]-?: RawBuilder<unknown> } : never) : never;

export interface AddOptions {
  /** Runs no sooner than this many milliseconds after now (the database's clock). */
  delayMs?: number;
  /** Runs no sooner than this time. */
  runAt?: Date;
  /** graphile-worker's job key: one job per key; `keyMode` says what a second add does. */
  key?: string;
  /** 'replace' (graphile-worker's default): the new payload and schedule; 'preserve_run_at': the waiting job keeps its schedule. */
  keyMode?: 'replace' | 'preserve_run_at';
  /** A named queue runs its jobs one at a time. */
  queue?: string;
  /** graphile-worker's default is 25. */
  maxAttempts?: number;
}

/** AddOptions whose values may be SQL expressions over a query's rows. */
export interface SqlOptions {
  runAt?: SqlValue;
  key?: SqlValue;
  queue?: SqlValue;
  maxAttempts?: number;
}

export interface Job<N extends JobName> {
  readonly name: N;
  /** `<name>:<id>`: the key of a job that exists once per row (the outbound pipeline's, auto_settle's). */
  key(id: string): string;
  /** The same key as an SQL expression over a query's row (`id` the expression of its id, as text). */
  keySql(id: RawBuilder<unknown>): RawBuilder<unknown>;
  /** Queues one job in `tx` (the caller's transaction, when it is one). */
  add(tx: DbConn, payload: JobPayload<N>, opts?: AddOptions): Promise<void>;
  /** The add_job call as an SQL expression (one job per row of the statement's query). */
  addSql(payload: PayloadSql<N>, opts?: SqlOptions): RawBuilder<unknown>;
  /**
   * `graphile_worker.add_jobs` over every row of the statement's query, as an aggregate
   * expression (one bulk insert); `preserveRunAt`: a waiting job of the same key keeps its schedule.
   */
  addAllSql(payload: PayloadSql<N>, opts?: SqlOptions & { preserveRunAt?: boolean }): RawBuilder<unknown>;
}

const json = (fields: Record<string, RawBuilder<unknown>>): RawBuilder<unknown> =>
  sql`json_build_object(${sql.join(Object.entries(fields).flatMap(([k, v]) => [sql.lit(k), v]))})`;

const value = (v: SqlValue): RawBuilder<unknown> => (v !== null && typeof v === 'object' && !(v instanceof Date) ? v : sql`${v}`);

function job<N extends JobName>(name: N): Job<N> {
  return {
    name,
    key: (id) => `${name}:${id}`,
    keySql: (id) => sql`${`${name}:`}::text || ${id}`,
    async add(tx, payload, opts = {}) {
      const named: RawBuilder<unknown>[] = [];
      if (opts.queue !== undefined) named.push(sql`queue_name := ${opts.queue}`);
      if (opts.runAt !== undefined) named.push(sql`run_at := ${opts.runAt}`);
      else if (opts.delayMs !== undefined) named.push(sql`run_at := now() + make_interval(secs => ${opts.delayMs / 1000})`);
      if (opts.key !== undefined) named.push(sql`job_key := ${opts.key}`);
      if (opts.keyMode !== undefined) named.push(sql`job_key_mode := ${opts.keyMode}`);
      if (opts.maxAttempts !== undefined) named.push(sql`max_attempts := ${opts.maxAttempts}`);
      const args = [sql`${name}::text`, sql`${JSON.stringify(payload)}::json`, ...named];
      await sql`SELECT graphile_worker.add_job(${sql.join(args)})`.execute(tx);
    },
    addSql(payload, opts = {}) {
      const named: RawBuilder<unknown>[] = [];
      if (opts.queue !== undefined) named.push(sql`queue_name := ${value(opts.queue)}`);
      if (opts.runAt !== undefined) named.push(sql`run_at := ${value(opts.runAt)}`);
      if (opts.key !== undefined) named.push(sql`job_key := ${value(opts.key)}`);
      if (opts.maxAttempts !== undefined) named.push(sql`max_attempts := ${opts.maxAttempts}`);
      return sql`graphile_worker.add_job(${sql.join([sql`${name}::text`, json(payload as Record<string, RawBuilder<unknown>>), ...named])})`;
    },
    addAllSql(payload, opts = {}) {
      // graphile_worker.job_spec: identifier, payload, queue_name, run_at, max_attempts, job_key, priority, flags.
      const fields = [
        sql`${name}::text`,
        json(payload as Record<string, RawBuilder<unknown>>),
        opts.queue === undefined ? sql`NULL` : value(opts.queue),
        opts.runAt === undefined ? sql`now()` : value(opts.runAt),
        sql`${opts.maxAttempts ?? 25}::int`,
        opts.key === undefined ? sql`NULL` : value(opts.key),
        sql`NULL`,
        sql`NULL`,
      ];
      return sql`graphile_worker.add_jobs(array_agg(ROW(${sql.join(fields)})::graphile_worker.job_spec), ${opts.preserveRunAt ?? false})`;
    },
  };
}

/** Every job of the catalogue, by name: `jobs.<name>.add(tx, payload, options)`. */
export const jobs = Object.freeze(Object.fromEntries(Object.keys(JOBS).map((name) => [name, job(name as JobName)]))) as {
  readonly [N in JobName]: Job<N>;
};

/**
 * Gives the jobs of `names` that ran out of attempts (and are not running) a fresh set of
 * attempts, to run now, with their payloads and keys as they were (graphile-worker's
 * reschedule_jobs). Returns how many.
 */
export async function reviveExhausted(db: DbConn, names: readonly JobName[], limit = 500): Promise<number> {
  if (names.length === 0) return 0;
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM graphile_worker.reschedule_jobs(
      ARRAY(SELECT id FROM graphile_worker.jobs
             WHERE task_identifier = ANY(${names}::text[]) AND attempts >= max_attempts AND locked_at IS NULL
             ORDER BY id LIMIT ${limit}),
      run_at := now(), attempts := 0)`.execute(db);
  return rows[0]!.n;
}
