/**
 * One provider on one chain, as screening uses it: answers cached for a short time per
 * address (the lists change, so not for long), concurrent screenings batched into one
 * provider call (so 1,000 lookups at once cost a few node calls, not 1,000), each call
 * bounded by a timeout, and a health record for /readyz. After a failure, calls within
 * `retryMs` fail at once with the same error instead of each waiting for the timeout (a
 * provider down makes payouts fail fast); the first call after that tries again.
 */
import { addressKey } from '../../chains/address-key.js';
import { BatchLoader } from '../../lib/batch-loader.js';
import type { ChainHandle } from '../catalogue/service.js';
import type { ScreeningProvider } from './providers.js';

export interface RunnerOptions {
  timeoutMs: number;
  cacheTtlMs: number;
  retryMs: number;
  /** Entries kept per runner (the oldest go first). */
  maxEntries?: number;
  now?: () => number;
}

export interface ProviderHealth {
  provider: string;
  chain: string;
  status: 'ok' | 'failing' | 'unknown';
  lastOkAt: string | null;
  lastErrorAt: string | null;
  lastError: string | null;
}

export class ProviderRunner {
  readonly #cache = new Map<string, { listed: boolean; expires: number }>();
  readonly #loader: BatchLoader<string, boolean>;
  #lastOk = 0;
  #lastError: { at: number; message: string } | null = null;
  readonly #now: () => number;

  constructor(
    readonly provider: ScreeningProvider,
    readonly chain: ChainHandle,
    private readonly opts: RunnerOptions,
  ) {
    this.#now = opts.now ?? Date.now;
    // Calls of at most the provider's own batch size, each within the timeout: a call's size
    // never grows with the screenings waiting (they wait for the next call instead, outside the
    // timeout), so a burst cannot make a healthy provider look down for the whole chain.
    this.#loader = new BatchLoader((addresses) => this.#load(addresses), { maxBatch: provider.maxBatch ?? 500, maxInFlight: 4 });
  }

  get name(): string {
    return this.provider.name;
  }

  /** Whether each address is listed, in order; throws the provider's failure. */
  async screen(addresses: readonly string[]): Promise<boolean[]> {
    const now = this.#now();
    const out: (boolean | undefined)[] = addresses.map((a) => {
      const hit = this.#cache.get(addressKey(a));
      return hit && hit.expires > now ? hit.listed : undefined;
    });
    const missing = addresses.filter((_a, i) => out[i] === undefined);
    if (missing.length === 0) return out as boolean[];
    const failed = this.#lastError;
    if (failed && this.#lastOk < failed.at && now - failed.at < this.opts.retryMs) throw new Error(failed.message);
    const answers = await Promise.all(missing.map((a) => this.#loader.load(a)));
    let j = 0;
    return out.map((v) => v ?? answers[j++]!);
  }

  /** Asks the provider once, past the cache (readyz, when nothing asked lately). */
  async probe(address: string): Promise<void> {
    await this.#load([address]);
  }

  /** Whether nothing has been asked for `ms`. */
  idleFor(ms: number): boolean {
    return this.#now() - Math.max(this.#lastOk, this.#lastError?.at ?? 0) > ms;
  }

  health(): ProviderHealth {
    const err = this.#lastError;
    const failing = err !== null && err.at >= this.#lastOk;
    return {
      provider: this.name,
      chain: this.chain.key,
      status: failing ? 'failing' : this.#lastOk > 0 ? 'ok' : 'unknown',
      lastOkAt: this.#lastOk > 0 ? new Date(this.#lastOk).toISOString() : null,
      lastErrorAt: err ? new Date(err.at).toISOString() : null,
      lastError: err?.message ?? null,
    };
  }

  clear(): void {
    this.#cache.clear();
  }

  async #load(addresses: string[]): Promise<Map<string, boolean>> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new Error(`timed out after ${this.opts.timeoutMs} ms`));
      }, this.opts.timeoutMs);
    });
    try {
      const answers = await Promise.race([this.provider.screen(this.chain, addresses, controller.signal), timeout]);
      if (answers.length !== addresses.length) throw new Error(`answered ${answers.length} addresses for ${addresses.length}`);
      const now = this.#now();
      this.#lastOk = now;
      const out = new Map<string, boolean>();
      addresses.forEach((a, i) => {
        out.set(a, answers[i]!);
        this.#remember(addressKey(a), answers[i]!, now);
      });
      return out;
    } catch (err) {
      const message = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 200);
      this.#lastError = { at: this.#now(), message };
      throw new Error(message);
    } finally {
      clearTimeout(timer);
    }
  }

  #remember(key: string, listed: boolean, now: number): void {
    if (this.opts.cacheTtlMs <= 0) return;
    this.#cache.delete(key);
    this.#cache.set(key, { listed, expires: now + this.opts.cacheTtlMs });
    const max = this.opts.maxEntries ?? 100_000;
    if (this.#cache.size > max) this.#cache.delete(this.#cache.keys().next().value!);
  }
}
