/**
 * In-process queue per key (a sending address) with group commit.
 *
 * Requests from one sender wait here, holding no database connection, instead of each
 * holding one while it waits for the sender's advisory lock (which still serialises them
 * across processes). While one transaction of a sender runs, the requests that arrive
 * queue up; the next transaction takes all of them (up to `maxBatch`) at once. Inside it
 * they are handled one after the other, in arrival order, exactly as separate
 * transactions would handle them (funds.ts, create.ts), but the lock, the reservation
 * read, the nonce counter, the inserts and the commit (an fsync) are paid once per batch
 * instead of once per request: that, not CPU, is what limits one sender's acceptance rate.
 *
 * A batch that fails as a whole (an unexpected database error) is retried one request at
 * a time, so one bad request cannot fail the others. Such a failure may come after the
 * batch committed (the connection lost during COMMIT), so a run again must recognise what
 * it already wrote: withdrawals carry a reference fixed before the first run
 * (service.ts, #create), and a key when the client sent one. `solo` runs a function alone,
 * in queue order (retries, which need their own transaction).
 */
export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

type Entry<J, R> =
  | { kind: 'job'; job: J; resolve: (v: R) => void; reject: (e: unknown) => void }
  | { kind: 'solo'; fn: () => Promise<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void };

export class GroupQueue<J, R> {
  readonly #queues = new Map<string, Entry<J, R>[]>();

  constructor(
    /** Runs a batch; one outcome per job, in order. Throwing fails the batch as a whole. */
    private readonly runBatch: (jobs: J[]) => Promise<Outcome<R>[]>,
    private readonly maxBatch = 100,
  ) {}

  submit(key: string, job: J): Promise<R> {
    return new Promise<R>((resolve, reject) => this.#push(key, { kind: 'job', job, resolve, reject }));
  }

  solo<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => this.#push(key, { kind: 'solo', fn, resolve: resolve as (v: unknown) => void, reject }));
  }

  #push(key: string, entry: Entry<J, R>): void {
    const queue = this.#queues.get(key);
    if (queue) {
      queue.push(entry);
      return;
    }
    this.#queues.set(key, [entry]);
    void this.#drain(key);
  }

  async #drain(key: string): Promise<void> {
    const queue = this.#queues.get(key)!;
    // The first entry stays in the queue while it runs: a non-empty queue means "running".
    while (queue.length > 0) {
      const head = queue[0]!;
      if (head.kind === 'solo') {
        await head.fn().then(head.resolve, head.reject);
        queue.shift();
        continue;
      }
      let n = 1;
      while (n < queue.length && n < this.maxBatch && queue[n]!.kind === 'job') n++;
      const batch = queue.slice(0, n) as Extract<Entry<J, R>, { kind: 'job' }>[];
      const outcomes = await this.#run(batch.map((e) => e.job));
      for (const [i, e] of batch.entries()) {
        const o = outcomes[i]!;
        if (o.ok) e.resolve(o.value);
        else e.reject(o.error);
      }
      queue.splice(0, n);
    }
    this.#queues.delete(key);
  }

  async #run(jobs: J[]): Promise<Outcome<R>[]> {
    try {
      return await this.runBatch(jobs);
    } catch (error) {
      if (jobs.length === 1) return [{ ok: false, error }];
    }
    const out: Outcome<R>[] = [];
    for (const job of jobs) {
      try {
        out.push(...(await this.runBatch([job])));
      } catch (error) {
        out.push({ ok: false, error });
      }
    }
    return out;
  }
}
