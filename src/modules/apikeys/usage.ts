/**
 * "Last used" for API keys without a write per request: a request only notes the time in
 * memory; every `flushMs` the times noted since the last flush are written in one
 * statement. So a key in constant use costs one row update per flush interval and
 * process, and the value shown is at most one interval old.
 */
import type { Logger } from '../../lib/logger.js';

export class UsageRecorder {
  /** Key id -> the latest use noted since the last flush (ms since the epoch). */
  #seen = new Map<string, number>();
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> | null = null;

  constructor(
    private readonly write: (uses: { id: string; at: Date }[]) => Promise<void>,
    private readonly opts: { flushMs: number; logger?: Logger },
  ) {}

  /** Called on every authenticated request: a map write, nothing more. */
  touch(keyId: string, now = Date.now()): void {
    this.#seen.set(keyId, now);
    if (!this.#timer && this.opts.flushMs > 0) {
      this.#timer = setTimeout(() => {
        this.#timer = null;
        void this.flush();
      }, this.opts.flushMs);
      this.#timer.unref();
    }
  }

  /** Writes what was noted. A failed write is logged and its uses noted again for the next one. */
  flush(): Promise<void> {
    // One write at a time; a flush asked for meanwhile follows it.
    const run = async (): Promise<void> => {
      if (this.#seen.size === 0) return;
      const batch = this.#seen;
      this.#seen = new Map();
      try {
        await this.write([...batch].map(([id, at]) => ({ id, at: new Date(at) })));
      } catch (err) {
        for (const [id, at] of batch) if ((this.#seen.get(id) ?? 0) < at) this.#seen.set(id, at);
        this.opts.logger?.warn({ err: (err as Error).message }, 'could not record API key last use; retrying at the next flush');
      }
    };
    const next = (this.#flushing ?? Promise.resolve()).then(run);
    this.#flushing = next;
    void next.finally(() => {
      if (this.#flushing === next) this.#flushing = null;
    });
    return next;
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.flush();
  }
}
