/**
 * Identical concurrent reads share one query, without ever answering from a read that
 * started before the caller asked: per key at most one read runs; callers arriving while
 * it runs wait for the next one, which starts when it ends and serves all of them. Under a
 * burst (hundreds of withdrawals to one wallet at once) that is one query per database
 * round trip instead of one per request; a lone request waits for nothing.
 *
 * `read` must depend on nothing but the key: a later group is served by the `read` of the
 * caller that opened the key. Results are shared between callers: read-only.
 */
interface Caller<V> {
  resolve(value: V): void;
  reject(err: unknown): void;
}

export class FreshCoalescer<V> {
  readonly #keys = new Map<string, { queued: Caller<V>[] | null }>();

  load(key: string, read: () => Promise<V>): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      const running = this.#keys.get(key);
      if (running) {
        (running.queued ??= []).push({ resolve, reject });
        return;
      }
      const state = { queued: null as Caller<V>[] | null };
      this.#keys.set(key, state);
      this.#run(key, state, [{ resolve, reject }], read);
    });
  }

  #run(key: string, state: { queued: Caller<V>[] | null }, callers: Caller<V>[], read: () => Promise<V>): void {
    let started: Promise<V>;
    try {
      started = read();
    } catch (err) {
      started = Promise.reject(err);
    }
    void started
      .then(
        (value) => callers.forEach((c) => c.resolve(value)),
        (err: unknown) => callers.forEach((c) => c.reject(err)),
      )
      .finally(() => {
        const next = state.queued;
        state.queued = null;
        if (next) this.#run(key, state, next, read);
        else this.#keys.delete(key);
      });
  }
}
