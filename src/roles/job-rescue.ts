/**
 * Keeps jobs from being stranded by a worker process that died mid-job (roles/store.ts says
 * how the presence locks work). One dedicated connection per worker process holds a lock
 * per worker id it runs and, every `intervalMs`, looks for jobs held by worker ids whose lock
 * nobody holds. An id must be seen orphaned twice, at least `intervalMs` apart, before its
 * jobs are released: a live process whose connection dropped (a database restart) has that
 * long to reconnect and lock its ids again.
 */
import pg from 'pg';
import type { Logger } from '../lib/logger.js';
import * as store from './store.js';

export interface JobRescueOptions {
  connectionString: string;
  applicationName: string;
  logger: Logger;
  intervalMs?: number;
  graceSeconds?: number;
}

export class JobRescue {
  readonly #opts: Required<JobRescueOptions>;
  readonly #ids = new Set<string>();
  #client: pg.Client | null = null;
  #connecting: Promise<pg.Client> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #suspects = new Map<string, number>();
  #stopped = false;
  /** Serialises use of the one connection (pg queues queries, but a reconnect must not interleave). */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(opts: JobRescueOptions) {
    this.#opts = { intervalMs: 3_000, graceSeconds: 3, ...opts };
  }

  start(): void {
    this.#timer = setInterval(() => void this.scan(), this.#opts.intervalMs);
    this.#timer.unref();
  }

  /** Worker ids this process runs from now on: locked at once (and after every reconnect). */
  async add(ids: string[]): Promise<void> {
    for (const id of ids) this.#ids.add(id);
    await this.#run((c) => store.lockWorkerIds(c, ids)).catch((err: unknown) => this.#warn('could not lock worker ids', err));
  }

  /** Worker ids that no longer run here; their jobs, if any, are released at once. */
  async remove(ids: string[]): Promise<string[]> {
    for (const id of ids) this.#ids.delete(id);
    return this.#run(async (c) => {
      const released = await store.releaseJobsOf(c, ids);
      await store.unlockWorkerIds(c, ids);
      return released;
    });
  }

  /** One round: releases the jobs of workers seen orphaned twice. */
  async scan(): Promise<string[]> {
    if (this.#stopped) return [];
    try {
      const orphaned = await this.#run((c) => store.orphanedWorkerIds(c, this.#opts.graceSeconds));
      const now = Date.now();
      const confirmed = orphaned.filter((id) => now - (this.#suspects.get(id) ?? now) >= this.#opts.intervalMs * 0.8);
      this.#suspects = new Map(orphaned.filter((id) => !confirmed.includes(id)).map((id) => [id, this.#suspects.get(id) ?? now]));
      if (confirmed.length === 0) return [];
      const jobs = await this.#run((c) => store.releaseJobsOf(c, confirmed));
      this.#opts.logger.warn({ workers: confirmed, jobs }, 'released the jobs of job-queue workers that are gone');
      return jobs;
    } catch (err) {
      this.#warn('job rescue round failed', err);
      return [];
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#queue.catch(() => undefined);
    const client = this.#client;
    this.#client = null;
    // Ending the session releases every presence lock.
    await client?.end().catch(() => undefined);
  }

  #run<T>(task: (client: pg.Client) => Promise<T>): Promise<T> {
    const next = this.#queue.then(async () => task(await this.#connect()));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #connect(): Promise<pg.Client> {
    if (this.#client) return this.#client;
    if (this.#stopped) throw new Error('job rescue stopped');
    this.#connecting ??= (async () => {
      const client = new pg.Client({
        connectionString: this.#opts.connectionString,
        application_name: this.#opts.applicationName,
        connectionTimeoutMillis: 10_000,
        keepAlive: true,
      });
      // A connection error does not always end the client with an 'end' event, and pg never
      // queries on that client again: forget it either way.
      const lost = () => {
        if (this.#client !== client) return;
        this.#client = null;
        void client.end().catch(() => undefined);
        // Locks went with the session: take them again as soon as the database answers.
        if (!this.#stopped) setTimeout(() => void this.#relock(), 1_000).unref();
      };
      client.on('error', (err) => {
        this.#warn('job rescue connection error', err);
        lost();
      });
      client.on('end', lost);
      try {
        await client.connect();
        await store.lockWorkerIds(client, [...this.#ids]);
      } catch (err) {
        await client.end().catch(() => undefined);
        throw err;
      }
      this.#client = client;
      return client;
    })().finally(() => (this.#connecting = null));
    return this.#connecting;
  }

  async #relock(): Promise<void> {
    if (this.#stopped || this.#client) return;
    try {
      await this.#run(async () => undefined);
      this.#opts.logger.info({ workers: this.#ids.size }, 'job-queue worker presence restored');
    } catch {
      if (!this.#stopped) setTimeout(() => void this.#relock(), 1_000).unref();
    }
  }

  #warn(msg: string, err: unknown): void {
    if (!this.#stopped) this.#opts.logger.warn({ err: (err as Error).message }, msg);
  }
}
