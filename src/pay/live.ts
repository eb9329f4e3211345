/**
 * Live status for the payer's page (server-sent events): one poll a second for all the
 * sessions open pages watch in this process, whatever their number, and each page told when
 * its session changed. Polling the database (not a process's memory) sees what any worker
 * or API process wrote; reads apply a passed deadline first (CheckoutService.rows).
 */
import type { CheckoutRow, CheckoutService } from '../modules/checkouts/service.js';

type Listener = (row: CheckoutRow) => void;

export class LiveCheckouts {
  readonly #listeners = new Map<string, Set<Listener>>();
  readonly #last = new Map<string, string>();
  #timer: NodeJS.Timeout | null = null;
  #polling = false;

  constructor(
    private readonly checkouts: CheckoutService,
    private readonly onError: (err: unknown) => void,
    private readonly intervalMs = 1000,
  ) {}

  /** Calls `listener` with the session's row now and at each change; returns the unsubscription. */
  watch(id: string, listener: Listener): () => void {
    let set = this.#listeners.get(id);
    if (!set) this.#listeners.set(id, (set = new Set()));
    set.add(listener);
    // The page read its first state before it came here: a change the poll saw in between is
    // in #last already and would never reach this page (it kept showing "Waiting for your
    // payment", instructions and all, after the session settled). The next poll tells every
    // page of the session its state again.
    this.#last.delete(id);
    this.#timer ??= setInterval(() => void this.#poll(), this.intervalMs);
    return () => {
      set.delete(listener);
      if (set.size === 0) {
        this.#listeners.delete(id);
        this.#last.delete(id);
      }
      if (this.#listeners.size === 0) this.stop();
    };
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  async #poll(): Promise<void> {
    if (this.#polling || this.#listeners.size === 0) return;
    this.#polling = true;
    try {
      for (const row of await this.checkouts.rows([...this.#listeners.keys()])) {
        const mark = `${row.status}|${row.partial}|${row.overpaid}|${row.paid_late}|${row.seen_in_time}|${row.seen_late}|${row.amount_confirmed}`;
        if (this.#last.get(row.id) === mark) continue;
        this.#last.set(row.id, mark);
        for (const listener of this.#listeners.get(row.id) ?? []) listener(row);
      }
    } catch (err) {
      this.onError(err);
    } finally {
      this.#polling = false;
    }
  }
}
