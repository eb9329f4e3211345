/**
 * The per-business share of a process's delivery jobs (delivery.ts): how many jobs of each
 * business run here, and the turns of the claims that decide whether a new job may start.
 */

/**
 * Delivery jobs of one business this process runs at once before a new one waits: a job
 * holds one of the worker's 20 slots while its attempts run, and a tenant whose receiver
 * hangs (each trigger a job of its own) must not take every slot while other tenants'
 * events queue behind it. A job held back is queued again a little later (DEFER_MS) and
 * ends at once. A burst comes as a few batch jobs of many attempts each (one per
 * transaction), and a job that has started goes on through its window, so a burst is not
 * held back.
 */
export const PER_BUSINESS_JOBS = 8;

/**
 * Claims a first claim waits to end before it leaves a contested business out (turn):
 * as many as can be in progress, so a waiter outlasts the claims it found running unless
 * new ones keep coming.
 */
const CONTESTED_ROUNDS = PER_BUSINESS_JOBS;

/** A turn to make a share-weighing claim: the businesses it leaves out, and its end. */
export interface Turn {
  skip: string[];
  release(): void;
}

export class JobShares {
  /** Delivery jobs running per business, this process (a batch across businesses counts for each). */
  readonly #jobs = new Map<string, number>();
  /**
   * Share-weighing claims in progress (a job's first): each may yet start a job of any
   * business, so atShare counts them against every business, and no more than
   * PER_BUSINESS_JOBS run at once (see turn).
   */
  #weighing = 0;
  #waiters: (() => void)[] = [];

  /**
   * A turn to make a share-weighing claim: the businesses it leaves out, and the release to
   * call once the claim's jobs are counted (jobOf). Claims run concurrently, so each weighs
   * the others still awaited (atShare); a business without a running job cannot be left out
   * by name, so at most PER_BUSINESS_JOBS such claims run at once: a burst of jobs starting
   * together could otherwise all come back with the same business and pass its share.
   */
  async turn(): Promise<Turn> {
    for (let round = 0; ; round++) {
      if (this.#weighing >= PER_BUSINESS_JOBS) {
        await new Promise<void>((resolve) => this.#waiters.push(resolve));
        continue;
      }
      // A business under its share only while the claims in progress are counted against it
      // (most of them are usually other businesses'): wait for one of them to end, a claim's
      // time, rather than leave it out and defer the job. A few rounds at most: under a
      // steady stream of first claims it may stay so.
      const contested = [...this.#jobs.values()].some((n) => n < PER_BUSINESS_JOBS && n + this.#weighing >= PER_BUSINESS_JOBS);
      if (!contested || round >= CONTESTED_ROUNDS) break;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    const skip = this.#atShare();
    this.#weighing++;
    let released = false;
    return {
      skip,
      release: () => {
        if (released) return;
        released = true;
        this.#weighing--;
        // Every waiter looks again: one waiting for a contested business may wait on, and a
        // wake given to it alone would be lost to the others.
        for (const wake of this.#waiters.splice(0)) wake();
      },
    };
  }

  /** Counts a running job for these businesses; the returned function ends it. */
  jobOf(businesses: Iterable<string>): () => void {
    const ids = [...new Set(businesses)];
    for (const id of ids) this.#jobs.set(id, (this.#jobs.get(id) ?? 0) + 1);
    return () => {
      for (const id of ids) {
        const left = this.#jobs.get(id)! - 1;
        if (left > 0) this.#jobs.set(id, left);
        else this.#jobs.delete(id);
      }
    };
  }

  /**
   * Businesses that could pass PER_BUSINESS_JOBS here: their running jobs plus the weighing
   * claims still awaited (any of which may come back with one of theirs) reach the share.
   */
  #atShare(): string[] {
    return [...this.#jobs].flatMap(([id, n]) => (n + this.#weighing >= PER_BUSINESS_JOBS ? [id] : []));
  }
}
