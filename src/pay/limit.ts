/**
 * How many sessions one client address may start in a window: each session issues a child
 * address, so an open page must not let one client issue them without end. A fixed window per
 * address, in this process's memory (bounded: the oldest addresses go first).
 */
export class SessionLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly perWindow: number,
    private readonly windowMs: number,
    private readonly maxClients = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one session for `client`; false when its window is used up. */
  take(client: string): boolean {
    if (this.perWindow <= 0) return true;
    const t = this.now();
    let w = this.#windows.get(client);
    if (!w || t - w.start >= this.windowMs) {
      this.#windows.delete(client);
      if (this.#windows.size >= this.maxClients) this.#windows.delete(this.#windows.keys().next().value!);
      this.#windows.set(client, (w = { start: t, count: 0 }));
    }
    if (w.count >= this.perWindow) return false;
    w.count++;
    return true;
  }
}
